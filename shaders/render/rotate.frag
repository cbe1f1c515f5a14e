#version 450
// Pre-rotation (crates/render/src/frame/rotate.rs): copies the upright frame into the
// presented image of the surface's native orientation, rotated so that the presentation
// engine's rotation (clockwise by the surface's transform) shows it upright. A pure
// index remap: texelFetch, no filtering, so the picture's texels are the upright ones.
layout(set = 0, binding = 0) uniform sampler2D upright;

layout(push_constant) uniform Rotate {
    // Quarter turns clockwise the presentation engine applies (0..3).
    uint turns;
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(upright, 0);
    // The upright texel shown where the engine puts physical texel p.
    ivec2 s;
    if (pc.turns == 1u) {
        s = ivec2(size.x - 1 - p.y, p.x);
    } else if (pc.turns == 2u) {
        s = ivec2(size.x - 1 - p.x, size.y - 1 - p.y);
    } else if (pc.turns == 3u) {
        s = ivec2(p.y, size.y - 1 - p.x);
    } else {
        s = p;
    }
    out_color = texelFetch(upright, s, 0);
}
