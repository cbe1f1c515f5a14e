// The sun's cascaded shadow map (set 2): the cascades side by side in one depth atlas,
// 3×3 PCF through a comparison sampler, blended across the last fifth of each cascade.
#ifndef TESSERA_SHADOW_GLSL
#define TESSERA_SHADOW_GLSL

#include "frame_data.glsl"

#ifndef SHADOW_SET
#define SHADOW_SET 2
#define SHADOW_BINDING 0
#endif
layout(set = SHADOW_SET, binding = SHADOW_BINDING) uniform sampler2DShadow shadow_atlas;

float cascade_visibility(int i, vec3 p) {
    vec4 q = frame.cascade_view_proj[i] * vec4(p, 1.0);
    q.xyz /= q.w;
    // The shadow pass draws with a Y-up viewport, like every pass: clip +Y is row 0.
    vec2 uv = vec2(q.x * 0.5 + 0.5, 0.5 - q.y * 0.5);
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || q.z >= 1.0) {
        return 1.0;
    }
    float texel = frame.shadow.x;
    uv = clamp(uv, vec2(1.5 * texel), vec2(1.0 - 1.5 * texel));
    float sum = 0.0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            vec2 t = uv + vec2(dx, dy) * texel;
            vec3 at = vec3((float(i) + t.x) / frame.shadow.z, t.y, q.z);
#ifdef LIT_COMPUTE
            // Compute shaders have no derivatives for an implicit level: the atlas has one.
            sum += textureLod(shadow_atlas, at, 0.0);
#else
            sum += texture(shadow_atlas, at);
#endif
        }
    }
    return sum / 9.0;
}

// 1 where the sun reaches `p`, 0 in its shadow.
float sun_shadow(vec3 p) {
    if (frame.shadow.y == 0.0) {
        return 1.0;
    }
    float d = dot(p - frame.camera_pos.xyz, frame.camera_forward.xyz);
    float start = 0.0;
    int cascades = int(frame.shadow.z);
    for (int i = 0; i < cascades; ++i) {
        float end = frame.cascade_splits[i];
        if (d < end) {
            float s = cascade_visibility(i, p);
            float f = (d - start) / max(end - start, 1e-4);
            if (f > 0.8 && i + 1 < cascades) {
                s = mix(s, cascade_visibility(i + 1, p), (f - 0.8) / 0.2);
            }
            return s;
        }
        start = end;
    }
    return 1.0;
}

#endif
