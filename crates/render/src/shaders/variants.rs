// Every shader variant the renderer uses (`file#DEFINE#...`, the stage from the file's
// extension), which the build script (`crates/render/build.rs`, through `include!`, so
// plain `//` comments only) precompiles to SPIR-V. A variant the renderer asks for that is
// missing here is compiled at run time on desktop and is an error where there is no
// run-time compiler (Android); a test scans the crate's sources for variant names and
// fails on any not listed.

/// The renderer's shader variants, by file.
pub const VARIANTS: &[&str] = &[
    "bloom_down.comp",
    "bloom_down.comp#THRESHOLD",
    "bloom_up.comp",
    "debug_clusters.frag",
    "debug_exposure.frag",
    "debug_image.frag",
    "depth.vert",
    "exposure.comp",
    "forward.frag",
    "forward.frag#CLUSTERED",
    "forward.frag#CLUSTERED#MOTION#OPAQUE",
    "forward.frag#CLUSTERED#MOTION#OPAQUE#SSAO",
    "forward.frag#CLUSTERED#OPAQUE",
    "forward.frag#CLUSTERED#OPAQUE#SSAO",
    "forward.frag#MOTION#OPAQUE",
    "forward.frag#MOTION#OPAQUE#SSAO",
    "forward.frag#OPAQUE",
    "forward.frag#OPAQUE#SSAO",
    "fullscreen.vert",
    "gbuffer.frag",
    "gbuffer.frag#MOTION",
    "histogram.comp",
    "light_clustering.comp",
    "lighting.frag",
    "lighting.frag#CLUSTERED",
    "lighting.frag#CLUSTERED#SSAO",
    "lighting.frag#SSAO",
    "mesh.vert",
    "overlay.frag",
    "post.frag",
    "post.frag#BLOOM",
    "post.frag#BLOOM#AUTO_EXPOSURE",
    "shadow.vert",
    "sky.frag",
    "sky.frag#MOTION",
    "ssao.comp",
    "ssao_blur.comp",
    "taa.comp",
    "tonemap.frag",
    "tonemap.frag#AUTO_EXPOSURE",
    "tonemap.frag#AUTO_EXPOSURE#BLOOM_ADD",
    "tonemap.frag#AUTO_EXPOSURE#BLOOM_SOURCE",
    "tonemap.frag#BLOOM_ADD",
    "tonemap.frag#BLOOM_SOURCE",
];
