#version 450
// Temporal anti-aliasing on the tone-mapped image (crates/render/src/frame/taa.rs). Each
// frame's projection is jittered by a sub-pixel step; this pass blends the frame with the
// history of the previous ones, reprojected by the motion vectors:
// - the current colour and its 3×3 neighbourhood's box (min/max in YCoCg);
// - the motion vector of the nearest surface in the 3×3 (reversed Z: largest depth), or
//   for sky (no surface in the 3×3) the reprojection of the pixel's view direction;
// - the history at uv - motion (Catmull-Rom), clamped to the box (off-screen: none);
// - out = mix(history, current, alpha), alpha = max(1 / (n + 1), min_alpha), n = frames
//   accumulated since the history was reset (n = 0: the current colour only).
// The result is this frame's history (RGBA16F, render size), which the last post pass
// samples to the output.
#include "frame_data.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 1) uniform sampler2D current_tex;  // tone-mapped, sRGB decoded
layout(set = 0, binding = 2) uniform sampler2D motion_tex;   // UV now - UV last frame
layout(set = 0, binding = 3) uniform sampler2D depth_tex;    // reversed Z, 0: sky
layout(set = 0, binding = 4) uniform sampler2D history_tex;  // the previous frame's result
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D result;

layout(push_constant) uniform Taa {
    vec2 texel;       // 1 / render size
    float frames;     // n: frames accumulated since the reset
    float min_alpha;  // the current frame's least weight
} pc;

vec3 to_ycocg(vec3 c) {
    return vec3(
        dot(c, vec3(0.25, 0.5, 0.25)),
        dot(c, vec3(0.5, 0.0, -0.5)),
        dot(c, vec3(-0.25, 0.5, -0.25)));
}

vec3 to_rgb(vec3 y) {
    return vec3(y.x + y.y - y.z, y.x + y.z, y.x - y.y - y.z);
}

// NDC (unjittered) to UV: the viewport is flipped, NDC +Y is the top row.
vec2 uv_of(vec2 ndc) {
    return vec2(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
}

// The motion of a sky pixel at `uv`: its view direction seen by last frame's camera.
vec2 sky_motion(vec2 uv) {
    vec2 ndc = vec2(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0);
    vec3 dir_view = vec3(ndc * frame.proj.xy, -1.0);
    vec3 dir_world = transpose(mat3(frame.view)) * dir_view;
    vec4 before = frame.prev_view_proj * vec4(dir_world, 0.0);
    if (before.w <= 1e-6) {
        return vec2(0.0);
    }
    return uv - uv_of(before.xy / before.w);
}

// The history at `uv`, Catmull-Rom filtered (sharper than bilinear, which would blur the
// history a little more every frame the view moves) in five bilinear taps (the corners'
// weights are dropped), never negative.
vec3 history_at(vec2 uv) {
    vec2 size = vec2(textureSize(history_tex, 0));
    vec2 pos = uv * size;
    vec2 c = floor(pos - 0.5) + 0.5;
    vec2 f = pos - c;
    vec2 w0 = f * (-0.5 + f * (1.0 - 0.5 * f));
    vec2 w1 = 1.0 + f * f * (-2.5 + 1.5 * f);
    vec2 w2 = f * (0.5 + f * (2.0 - 1.5 * f));
    vec2 w3 = f * f * (-0.5 + 0.5 * f);
    vec2 w12 = w1 + w2;
    vec2 t0 = (c - 1.0) / size;
    vec2 t3 = (c + 2.0) / size;
    vec2 t12 = (c + w2 / w12) / size;
    vec4 sum = vec4(0.0);
    sum += vec4(textureLod(history_tex, vec2(t12.x, t0.y), 0.0).rgb, 1.0) * (w12.x * w0.y);
    sum += vec4(textureLod(history_tex, vec2(t0.x, t12.y), 0.0).rgb, 1.0) * (w0.x * w12.y);
    sum += vec4(textureLod(history_tex, t12, 0.0).rgb, 1.0) * (w12.x * w12.y);
    sum += vec4(textureLod(history_tex, vec2(t3.x, t12.y), 0.0).rgb, 1.0) * (w3.x * w12.y);
    sum += vec4(textureLod(history_tex, vec2(t12.x, t3.y), 0.0).rgb, 1.0) * (w12.x * w3.y);
    return max(sum.rgb / sum.w, vec3(0.0));
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(current_tex, 0);
    if (any(greaterThanEqual(p, size))) {
        return;
    }
    vec3 current = texelFetch(current_tex, p, 0).rgb;
    if (pc.frames < 0.5) {
        imageStore(result, p, vec4(current, 1.0));
        return;
    }
    vec3 lo = vec3(1e9);
    vec3 hi = vec3(-1e9);
    float nearest = -1.0;
    ivec2 at = p;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            ivec2 q = clamp(p + ivec2(dx, dy), ivec2(0), size - 1);
            vec3 y = to_ycocg(texelFetch(current_tex, q, 0).rgb);
            lo = min(lo, y);
            hi = max(hi, y);
            float d = texelFetch(depth_tex, q, 0).r;
            if (d > nearest) {
                nearest = d;
                at = q;
            }
        }
    }
    vec2 uv = (vec2(p) + 0.5) * pc.texel;
    vec2 motion = nearest > 0.0 ? texelFetch(motion_tex, at, 0).xy : sky_motion(uv);
    vec2 before = uv - motion;
    if (any(lessThan(before, vec2(0.0))) || any(greaterThan(before, vec2(1.0)))) {
        // Nothing of this point was on screen: start again from the current colour.
        imageStore(result, p, vec4(current, 1.0));
        return;
    }
    vec3 history = to_ycocg(history_at(before));
    history = clamp(history, lo, hi);
    float alpha = max(1.0 / (pc.frames + 1.0), pc.min_alpha);
    vec3 blended = mix(history, to_ycocg(current), alpha);
    imageStore(result, p, vec4(max(to_rgb(blended), vec3(0.0)), 1.0));
}
