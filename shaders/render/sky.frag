#version 450
// The forward path's sky: a full-screen triangle at the far plane, depth-tested so it covers
// only the samples no surface wrote (the deferred lighting pass writes the same colour where
// the G-buffer depth is empty).
#include "lit.glsl"

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_hdr;
#ifdef MOTION
// No motion where nothing is drawn, as the G-buffer's cleared motion target has.
layout(location = 1) out vec2 out_motion;
#endif

void main() {
    out_hdr = vec4(sky(in_uv), 0.0);
#ifdef MOTION
    out_motion = vec2(0.0);
#endif
}
