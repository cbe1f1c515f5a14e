#version 450
// Debug views of one image of the frame, drawn over the whole output: a G-buffer target,
// depth, ambient occlusion or one cascade of the shadow atlas (depth across its slice in
// greys, empty texels dark blue). The output is sRGB, so values
// meant to be seen as stored (normals, material channels, depth) are decoded first.
layout(set = 0, binding = 0) uniform sampler2D source;

layout(push_constant) uniform Debug {
    vec4 rect;  // xy: offset, zw: scale of the source's uv (a cascade of the atlas)
    uint mode;  // 0 colour, 1 as stored, 2 reversed-Z depth, 3 one channel, 4 shadow depth
    vec2 range; // shadow depth: the cascade's depths [x, y] where its slice lies
    vec2 logical; // pre-rotation: the logical (upright) size in pixels
    float turns;  // pre-rotation: quarter turns clockwise the presentation applies
} pc;

layout(location = 0) out vec4 out_color;

// Pre-rotation (crates/render/src/frame/rotate.rs): with `turns` quarter turns the pass
// renders the physical extent, and each pixel shows the upright pixel the presentation puts
// there: the full-screen UV of that upright pixel's centre (Y up, as `in_uv`). Computed
// from the pixel's index at every rotation (not the interpolated `in_uv`, which a turned
// render area would not reproduce bit for bit), so the turned picture is the upright one.
vec2 upright_uv(vec2 logical, float turns_f) {
    int turns = int(turns_f + 0.5);
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 l = ivec2(logical + 0.5);
    ivec2 s = p;
    if (turns == 1) {
        s = ivec2(l.x - 1 - p.y, p.x);
    } else if (turns == 2) {
        s = ivec2(l.x - 1 - p.x, l.y - 1 - p.y);
    } else if (turns == 3) {
        s = ivec2(p.y, l.y - 1 - p.x);
    }
    vec2 c = (vec2(s) + 0.5) / logical;
    return vec2(c.x, 1.0 - c.y);
}

vec3 as_stored(vec3 v) {
    return pow(clamp(v, 0.0, 1.0), vec3(2.2));
}

void main() {
    // The output's row 0 is the top of the picture; the sources are drawn Y-up.
    vec2 screen = upright_uv(pc.logical, pc.turns);
    vec2 uv = pc.rect.xy + vec2(screen.x, 1.0 - screen.y) * pc.rect.zw;
    vec4 s = texture(source, uv);
    vec3 c;
    if (pc.mode == 0u) {
        c = s.rgb;
    } else if (pc.mode == 1u) {
        c = as_stored(s.rgb);
    } else if (pc.mode == 2u) {
        // Reversed Z with the far plane at infinity: z falls as 1 / distance; a log scale
        // shows near and far apart.
        c = as_stored(vec3(clamp(1.0 + log(max(s.r, 1e-8)) / log(10.0) / 4.0, 0.0, 1.0)));
    } else if (pc.mode == 3u) {
        c = as_stored(s.rrr);
    } else if (s.r >= 1.0) {
        // Shadow depth where nothing was drawn: dark blue, apart from every depth (an empty
        // cascade, such as the nearest one when the camera looks from afar, shows as such).
        c = vec3(0.01, 0.02, 0.12);
    } else {
        // Shadow depth across the cascade's slice: dark near the sun, light grey far. The
        // cascade reaches far back towards the sun for casters, so its raw depths all lie
        // close to 1 and would show white.
        float t = clamp((s.r - pc.range.x) / max(pc.range.y - pc.range.x, 1e-6), 0.0, 1.0);
        c = as_stored(vec3(0.85 * t));
    }
    out_color = vec4(c, 1.0);
}
