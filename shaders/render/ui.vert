#version 450
// egui's tessellated meshes (crates/render/src/frame/ui.rs): positions in points, UVs into
// the primitive's texture, the colour sRGB-encoded and premultiplied (R8G8B8A8_UNORM).

layout(push_constant) uniform Push {
    // xy: the output's size in points (pixels / pixels_per_point), logical (upright); z:
    // the pre-rotation's quarter turns clockwise (crates/render/src/frame/rotate.rs).
    vec4 screen;
} push;

layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec2 out_uv;
layout(location = 1) out vec4 out_color;

vec3 srgb_to_linear(vec3 c) {
    bvec3 low = lessThanEqual(c, vec3(0.04045));
    return mix(pow((c + 0.055) / 1.055, vec3(2.4)), c / 12.92, vec3(low));
}

void main() {
    // Points to NDC, origin top left, Y down (the viewport is not flipped for this pass).
    vec2 u = 2.0 * in_pos / push.screen.xy - 1.0;
    // Pre-rotation: the upright position turned into the physical image, so that the
    // presentation's clockwise turn shows it upright.
    int turns = int(push.screen.z + 0.5);
    if (turns == 1) {
        u = vec2(u.y, -u.x);
    } else if (turns == 2) {
        u = -u;
    } else if (turns == 3) {
        u = vec2(-u.y, u.x);
    }
    gl_Position = vec4(u, 0.0, 1.0);
    out_uv = in_uv;
    // Premultiplied sRGB to premultiplied linear: the target is sRGB, blending is linear.
    out_color = vec4(srgb_to_linear(in_color.rgb), in_color.a);
}
