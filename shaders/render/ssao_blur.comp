#version 450
// The bilateral (depth-aware) 5×5 blur of the half-resolution SSAO: a Gaussian over the
// neighbours whose view depth is within a few percent of the centre's, so occlusion does
// not bleed across silhouettes.
#include "frame_data.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, r32f) uniform readonly image2D ao_in;
layout(set = 0, binding = 3, r32f) uniform writeonly image2D ao_out;

float view_depth(ivec2 o, ivec2 out_size, ivec2 size) {
    ivec2 t = min(ivec2((vec2(o) + 0.5) * vec2(size) / vec2(out_size)), size - 1);
    float z = texelFetch(depth_tex, t, 0).r;
    return z <= 0.0 ? 1e30 : frame.proj.z / z;
}

void main() {
    ivec2 o = ivec2(gl_GlobalInvocationID.xy);
    ivec2 out_size = imageSize(ao_out);
    if (any(greaterThanEqual(o, out_size))) {
        return;
    }
    ivec2 size = textureSize(depth_tex, 0);
    float d0 = view_depth(o, out_size, size);
    float sum = 0.0;
    float weights = 0.0;
    for (int y = -2; y <= 2; ++y) {
        for (int x = -2; x <= 2; ++x) {
            ivec2 s = o + ivec2(x, y);
            if (any(lessThan(s, ivec2(0))) || any(greaterThanEqual(s, out_size))) {
                continue;
            }
            float d = view_depth(s, out_size, size);
            float spatial = exp(-float(x * x + y * y) / 4.5);
            float range = max(1.0 - abs(d - d0) / (0.05 * d0), 0.0);
            float w = spatial * range;
            sum += imageLoad(ao_in, s).r * w;
            weights += w;
        }
    }
    imageStore(ao_out, o, vec4(weights > 0.0 ? sum / weights : imageLoad(ao_in, o).r));
}
