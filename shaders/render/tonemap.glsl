// Tone mapping's curve, shared by the raster (tonemap.frag, post.frag) and compute
// (tonemap.comp, post.comp) post chains, and the sRGB encoding the compute chain does itself
// (its storage images are UNORM: sRGB formats are rarely storage formats).

// Narkowicz's fit of the ACES reference rendering transform.
vec3 aces(vec3 x) {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

// Linear to sRGB-encoded (IEC 61966-2-1), what an sRGB attachment does on write.
vec3 srgb_encode(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    vec3 lo = c * 12.92;
    vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return mix(hi, lo, lessThanEqual(c, vec3(0.0031308)));
}

