// FXAA (the console variant of FXAA 3.11), shared by post.frag and post.comp: luma of the
// 2x2 neighbourhood, a blur along the edge direction, kept only where it stays within the
// local luma range; flat areas return the centre unchanged. The including shader defines
// `vec3 tap(vec2 uv)`: the linear colour at `uv`, bilinearly filtered.
vec3 tap(vec2 uv);

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
