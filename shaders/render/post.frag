#version 450
// The last post pass: the tone-mapped image (render size, sRGB: sampling decodes) scaled
// bilinearly to the output, with FXAA when `fxaa` is set (the console variant of FXAA 3.11:
// luma of the 2x2 neighbourhood, a blur along the edge direction, kept only where it stays
// within the local luma range; flat areas return the centre unchanged). BLOOM adds the
// tile-friendly bloom (from the tone-mapping pass's HDR copy) after the curve, as a screen
// blend; AUTO_EXPOSURE scales it by the adapted exposure.
layout(set = 0, binding = 0) uniform sampler2D ldr;
#ifdef BLOOM
layout(set = 0, binding = 1) uniform sampler2D bloom;
#ifdef AUTO_EXPOSURE
layout(set = 0, binding = 2, std430) readonly buffer Exposure {
    vec4 value;
} exposure_buf;
#endif
#endif

layout(push_constant) uniform Post {
    vec2 inv_output;  // 1 / output size
    vec2 ldr_texel;   // 1 / render size
    float fxaa;       // 1: anti-alias
    float bloom;      // bloom intensity
    float exposure;   // fixed exposure, or the compensation on the adapted one
    float exposure_valid; // AUTO_EXPOSURE: 1 when the buffer holds a previous frame's value
} pc;

layout(location = 0) out vec4 out_color;

vec3 tap(vec2 uv) {
    return textureLod(ldr, uv, 0.0).rgb;
}

// Perceptual luma of a linear colour (FXAA wants gamma-space luma).
float luma(vec3 c) {
    return sqrt(dot(c, vec3(0.299, 0.587, 0.114)));
}

vec3 fxaa(vec2 uv, vec2 t) {
    vec3 m = tap(uv);
    vec3 nw = tap(uv + vec2(-t.x, -t.y));
    vec3 ne = tap(uv + vec2(t.x, -t.y));
    vec3 sw = tap(uv + vec2(-t.x, t.y));
    vec3 se = tap(uv + vec2(t.x, t.y));
    float lm = luma(m), lnw = luma(nw), lne = luma(ne), lsw = luma(sw), lse = luma(se);
    float lmin = min(lm, min(min(lnw, lne), min(lsw, lse)));
    float lmax = max(lm, max(max(lnw, lne), max(lsw, lse)));
    if (lmax - lmin < max(0.0833, lmax * 0.166)) {
        return m;
    }
    vec2 dir = vec2(-((lnw + lne) - (lsw + lse)), (lnw + lsw) - (lne + lse));
    float reduce = max((lnw + lne + lsw + lse) * (0.25 / 8.0), 1.0 / 128.0);
    float rcp = 1.0 / (min(abs(dir.x), abs(dir.y)) + reduce);
    dir = clamp(dir * rcp, vec2(-8.0), vec2(8.0)) * t;
    vec3 a = 0.5 * (tap(uv + dir * (1.0 / 3.0 - 0.5)) + tap(uv + dir * (2.0 / 3.0 - 0.5)));
    vec3 b = a * 0.5 + 0.25 * (tap(uv - dir * 0.5) + tap(uv + dir * 0.5));
    float lb = luma(b);
    return (lb < lmin || lb > lmax) ? a : b;
}

vec3 aces(vec3 x) {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

void main() {
    vec2 uv = gl_FragCoord.xy * pc.inv_output;
    vec3 c = pc.fxaa > 0.5 ? fxaa(uv, pc.ldr_texel) : tap(uv);
#ifdef BLOOM
    float e = pc.exposure;
#ifdef AUTO_EXPOSURE
    // Before any adaptation (a new history): exposure 1, the adaptation's starting point.
    e *= pc.exposure_valid > 0.5 ? exposure_buf.value.x : 1.0;
#endif
    vec3 b = aces(textureLod(bloom, uv, 0.0).rgb * pc.bloom * e);
    c = 1.0 - (1.0 - c) * (1.0 - b);
#endif
    out_color = vec4(c, 1.0);
}
