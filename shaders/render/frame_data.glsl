// The per-frame constants (set 0, binding 0), shared by every shader of a frame.
#ifndef TESSERA_FRAME_DATA_GLSL
#define TESSERA_FRAME_DATA_GLSL

// Set 0, binding 0: what every pass of a frame sees (crates/render/src/gpu/frame_data.rs
// writes it; the layouts must agree).
layout(set = 0, binding = 0, std140) uniform FrameData {
    mat4 view_proj;
    mat4 inv_view_proj;
    vec4 camera_pos;      // xyz: world position
    vec4 sun_direction;   // xyz: direction the light travels (world), w: 1 when there is a sun
    vec4 sun_color;       // rgb: colour × illuminance
    vec4 ambient;         // rgb: hemisphere ambient (sky), a: ground factor
    uvec4 counts;         // x: point lights
    vec4 viewport;        // xy: render size in pixels, zw: 1 / size
    vec4 camera_forward;  // xyz: the view direction (view depth = dot(p - camera, forward))
    mat4 cascade_view_proj[4];  // world to each shadow cascade's clip space
    vec4 cascade_splits;  // view depth where each cascade ends
    vec4 shadow;          // x: 1 / cascade size in texels, y: 1 when shadows are on, z: cascades
    mat4 view;            // world to view (the camera looks down -Z)
    vec4 proj;            // xy: view x / depth, y / depth at NDC ±1; z: near; w: cluster far
    uvec4 cluster_grid;   // xy: cluster tiles, z: depth slices, w: light indices per cluster
    uvec4 flags;          // x: 1 when lit shaders read clusters, y: 1 when lighting reads SSAO,
                          // z: 1 for image-based ambient light (else the hemisphere)
    vec4 ssao;            // x: radius (m), y: strength, z: bias (cosine)
    mat4 unjittered_view_proj;  // world to clip without the TAA jitter (motion vectors)
    mat4 prev_view_proj;  // the previous frame's unjittered world to clip
    vec4 jitter;          // xy: TAA jitter (pixels), zw: the same in NDC
} frame;

#endif
