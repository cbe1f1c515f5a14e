#version 450
// egui's meshes: the vertex colour (linear, premultiplied) times the texture (an
// R8G8B8A8_SRGB image of premultiplied texels, decoded to linear by the sampler), blended
// `ONE, ONE_MINUS_SRC_ALPHA` over the sRGB output.

layout(set = 0, binding = 0) uniform sampler2D tex;

layout(location = 0) in vec2 in_uv;
layout(location = 1) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = in_color * texture(tex, in_uv);
}
