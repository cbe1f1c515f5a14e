#version 450
// The overlay: lines of text over the output, top left, in a translucent dark panel
// (`crates/render/src/frame/overlay.rs` packs the grid). The output is loaded and this
// shader's colour is blended over it (src alpha, one minus src alpha); outside the panel it
// discards, so those pixels keep their bytes. Glyphs are 8×8 bits (row y is byte y of a
// glyph, bit x its column x), scaled by header.z.

const uint COLUMNS = 120u;
const uint ROWS = 48u;
const uint GLYPH = 8u;
const uint LINE_HEIGHT = 10u;
const uint PADDING = 4u;
const vec4 PANEL = vec4(0.0, 0.0, 0.0, 0.6);

layout(set = 0, binding = 0, std140) uniform Overlay {
    uvec4 header;                      // x: lines, y: longest line, z: scale
    uvec4 panel;                       // x, y, width, height in pixels (origin top left)
    uvec4 colors[ROWS / 4u];           // one 0x00BBGGRR per row (sRGB)
    uvec4 font[64];                    // two words per ASCII code: rows 0-3, rows 4-7
    uvec4 text[ROWS * COLUMNS / 16u];  // four codes per word, row by row
} ov;

layout(location = 0) out vec4 out_color;

uint word(uint i) {
    return ov.text[i / 4u][i % 4u];
}

vec3 to_linear(vec3 c) {
    // The sRGB transfer function's inverse: the output's format encodes again.
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

void main() {
    // gl_FragCoord is in framebuffer pixels, row 0 the picture's top.
    ivec2 p = ivec2(gl_FragCoord.xy) - ivec2(ov.panel.xy);
    if (p.x < 0 || p.y < 0 || p.x >= int(ov.panel.z) || p.y >= int(ov.panel.w)) {
        discard;
    }
    vec4 c = PANEL;
    ivec2 q = p / int(max(ov.header.z, 1u)) - ivec2(PADDING);
    if (q.x >= 0 && q.y >= 0) {
        uint row = uint(q.y) / LINE_HEIGHT;
        uint col = uint(q.x) / GLYPH;
        uint gy = uint(q.y) % LINE_HEIGHT - 1u;  // one row of spacing above each glyph
        uint gx = uint(q.x) % GLYPH;
        if (row < min(ov.header.x, ROWS) && col < COLUMNS && gy < GLYPH) {
            uint i = row * COLUMNS + col;
            uint code = (word(i / 4u) >> (8u * (i % 4u))) & 0x7Fu;
            uint g = 2u * code + gy / 4u;
            uint bits = (ov.font[g / 4u][g % 4u] >> (8u * (gy % 4u))) & 0xFFu;
            if ((bits & (1u << gx)) != 0u) {
                uint rgb = ov.colors[row / 4u][row % 4u];
                vec3 srgb = vec3(rgb & 0xFFu, (rgb >> 8u) & 0xFFu, (rgb >> 16u) & 0xFFu) / 255.0;
                c = vec4(to_linear(srgb), 1.0);
            }
        }
    }
    out_color = c;
}
