#version 450
// Exposure adaptation: the mean log2 luminance of the histogram (black pixels and the
// darkest and brightest few percent left out), approached from the previous frames'
// adapted luminance with a fixed time step (never the wall clock, so every plan gives the
// same value), in place in the `exposure` history buffer (a graph history resource: one
// buffer, read by tone mapping before this pass updates it). When the history is new, the
// adaptation starts from exposure 1 adapted to the key. One invocation sums the bins in a
// fixed order: deterministic.
#include "exposure.glsl"
layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Histogram {
    uint bins[BINS];
} histogram;
layout(set = 0, binding = 1, std430) buffer Exposure {
    vec4 value; // x: exposure, y: adapted luminance, z: frames adapted, w: this frame's mean
} exposure;

layout(push_constant) uniform Adapt {
    float rate;     // 1 - exp(-dt * speed): the share of the gap closed per frame
    float key;      // the luminance that maps to exposure 1 (middle grey)
    float min_exposure;
    float max_exposure;
    float history_valid; // 1 when the buffer holds a previous frame's value
} pc;

void main() {
    uint total = 0u;
    for (uint b = 1u; b < BINS; ++b) {
        total += histogram.bins[b];
    }
    vec4 v = pc.history_valid > 0.5 ? exposure.value : vec4(1.0, pc.key, 0.0, pc.key);
    if (total == 0u) {
        exposure.value = vec4(v.xy, v.z + 1.0, v.w);
        return;
    }
    // Leave out the darkest 10% and the brightest 2% of the lit pixels.
    float lo = float(total) * 0.10;
    float hi = float(total) * 0.98;
    float seen = 0.0;
    float sum = 0.0;
    float weight = 0.0;
    for (uint b = 1u; b < BINS; ++b) {
        float n = float(histogram.bins[b]);
        float take = clamp(min(seen + n, hi) - max(seen, lo), 0.0, n);
        float centre = LOG_MIN + (float(b - 1u) + 0.5) / float(BINS - 1u) * LOG_RANGE;
        sum += take * centre;
        weight += take;
        seen += n;
    }
    float mean = weight > 0.0 ? sum / weight : log2(pc.key);
    float adapted = mix(log2(max(v.y, 1e-6)), mean, pc.rate);
    float lum = exp2(adapted);
    float e = clamp(pc.key / lum, pc.min_exposure, pc.max_exposure);
    exposure.value = vec4(e, lum, v.z + 1.0, exp2(mean));
}
