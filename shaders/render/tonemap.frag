#version 450
// Tone mapping: HDR (an input attachment: the same pixel, in tile memory when merged) to the
// display-referred output with the ACES filmic fit; the sRGB output format encodes.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput hdr_in;

layout(push_constant) uniform Tonemap {
    float exposure;
} pc;

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

// Narkowicz's fit of the ACES reference rendering transform.
vec3 aces(vec3 x) {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

void main() {
    vec3 hdr = subpassLoad(hdr_in).rgb;
    out_color = vec4(aces(hdr * pc.exposure), 1.0);
}
