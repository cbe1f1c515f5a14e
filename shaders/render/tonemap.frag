#version 450
// Tone mapping: HDR (an input attachment: the same pixel, in tile memory when merged) to the
// display-referred image with the ACES filmic fit; the sRGB target format encodes.
// Variants (defines): AUTO_EXPOSURE multiplies by the adapted exposure of the `exposure`
// history buffer (the previous frame's adaptation; exposure 1 before there was one); BLOOM_ADD adds the bloom
// chain's result (sampled, half resolution) before the curve; BLOOM_SOURCE also writes the
// HDR colour to a second attachment, the tile-friendly bloom's source. PER_SAMPLE reads a
// multisampled HDR at this invocation's sample (gl_SampleID runs the shader per sample): each
// sample is mapped, then the multisampled targets are resolved, so the average is taken after
// the non-linear curve.
#ifdef PER_SAMPLE
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInputMS hdr_in;
#define LOAD_HDR() subpassLoad(hdr_in, gl_SampleID)
#else
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput hdr_in;
#define LOAD_HDR() subpassLoad(hdr_in)
#endif

#ifdef AUTO_EXPOSURE
layout(set = 0, binding = 1, std430) readonly buffer Exposure {
    vec4 value; // x: exposure, y: adapted luminance, z: frames adapted, w: last average
} exposure_buf;
#define BLOOM_BINDING 2
#else
#define BLOOM_BINDING 1
#endif

#ifdef BLOOM_ADD
layout(set = 0, binding = BLOOM_BINDING) uniform sampler2D bloom;
#endif

layout(push_constant) uniform Tonemap {
    float exposure;   // fixed exposure, or the compensation on the adapted one
    float bloom;      // bloom intensity
    vec2 inv_size;    // 1 / render size
    float exposure_valid; // AUTO_EXPOSURE: 1 when the buffer holds a previous frame's value
} pc;

layout(location = 0) out vec4 out_color;
#ifdef BLOOM_SOURCE
layout(location = 1) out vec4 out_bloom_source;
#endif

#include "tonemap.glsl"

void main() {
    vec3 hdr = LOAD_HDR().rgb;
#ifdef BLOOM_SOURCE
    out_bloom_source = vec4(hdr, 1.0);
#endif
    float e = pc.exposure;
#ifdef AUTO_EXPOSURE
    // Before any adaptation (a new history): exposure 1, the adaptation's starting point.
    e *= pc.exposure_valid > 0.5 ? exposure_buf.value.x : 1.0;
#endif
#ifdef BLOOM_ADD
    hdr += textureLod(bloom, gl_FragCoord.xy * pc.inv_size, 0.0).rgb * pc.bloom;
#endif
    out_color = vec4(aces(hdr * e), 1.0);
}
