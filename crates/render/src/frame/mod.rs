//! The frame, declared through the graph every frame: deferred (below), or with
//! `RenderPath::Forward` the [`forward`] path (no G-buffer: steps 3-4 become a depth prepass
//! for SSAO, `forward opaque` and `transparents`, multisampled at `features.msaa`, then
//! tone mapped per sample in the same render pass or resolved into HDR; the rest is the
//! same). Each group of passes lives in its own module
//! and is declared by one function that takes the [`Targets`] so far:
//!
//! 1. `frame constants` (transfer): the camera, lights and shadow cascades into two
//!    transient buffers (here); with deforming draws, [`deform`] (compute): morph targets
//!    and skins into `animated vertices`, which the geometry passes read. [`environment`]: the sky cube map, its prefiltered specular
//!    mips and irradiance, and the BRDF table, persistent and run only when stale.
//! 2. [`clustering`] (`features.clustering`): `light clustering` on the async queue, the
//!    point lights binned into view-space froxels for lighting and transparents. [`ssao`]
//!    (`features.ssao`): `ssao` and `ssao blur` on the async queue at half resolution, from
//!    the G-buffer depth (declared after `gbuffer`, before `shadows`, so it overlaps them) or
//!    from `ssao depth prepass` (declared first).
//! 3. [`geometry`]: `shadows` (the sun's cascades side by side in one `D32_SFLOAT` atlas,
//!    `crate::shadows`), `gbuffer` (albedo `R8G8B8A8_SRGB`, normal
//!    `A2B10G10R10_UNORM_PACK32`, material `R8G8B8A8_UNORM`, emission into HDR or, with
//!    compute lighting, `gbuffer emission`, depth `D32_SFLOAT`, reversed Z; only depth is
//!    cleared: the colour targets are declared covered by it) and, after lighting,
//!    `transparents` (forward, blended).
//! 4. [`lighting`]: the sun (shadowed, PCF, cascades blended) and point lights (GGX), ambient
//!    (image-based from the [`environment`], or a hemisphere) × SSAO, and the sky, into HDR `B10G11R11_UFLOAT_PACK32`: with `Lighting::Raster` a full-screen pass
//!    reading the G-buffer and depth as input attachments and adding to HDR; with
//!    `Lighting::Compute` a compute pass sampling them (and `gbuffer emission`) and writing
//!    every pixel of HDR.
//! 5. [`post`]: [`bloom`] (a threshold and 5 + 5 compute mip steps, one transient image per
//!    level), `tonemap` (HDR as an input attachment, exposure, ACES fit), [`taa`] (`Aa::Taa`:
//!    the jittered frame blended with its reprojected history, from the G-buffer's `motion`),
//!    the last post pass
//!    (`fxaa`/`compose`: FXAA, the resolution scale, the tile-friendly bloom) into the sRGB
//!    output, [`exposure`] (histogram and adaptation on the async queue, into the
//!    `exposure` history buffer) and `readback` (the output into a host-visible buffer,
//!    when asked). With `PostPath::Compute` (`features.post`, the desktop default) `tonemap`
//!    and `fxaa`/`compose` are compute passes into storage images and `post copy` copies the
//!    result into the output ([`post`]).
//! 6. [`debug`] (`features.debug_view`): one intermediate shown as the output in place of
//!    the post chain.
//! 7. [`ui`] ([`crate::Renderer::set_ui`]): an egui frame's meshes painted over the output,
//!    the last raster pass (before `readback`); its vertex and index buffers (a capacity, not
//!    the UI's size) are written by `frame constants`, so a new UI never changes the graph.
//! 8. [`rotate`] (`Settings::output_rotation`, pre-rotation for a rotated surface): the
//!    passes that write the output write it turned, into the physical extent: the last
//!    post pass (`post.frag`; `post.comp` and compute tone mapping direct into a `post out`
//!    of the physical extent), the debug views and `ui`. Pre-rotated, raster tone mapping
//!    never writes the output directly: `compose` follows it.
//!
//! On a tiler the deferred raster passes merge into one render pass with the G-buffer and
//! depth memoryless (the shadow pass stays apart: its atlas is sampled at any pixel);
//! elsewhere the plan is what the compiler decides (the same shaders: an input attachment is
//! read from a loaded attachment when passes do not merge). The declaration needs no
//! device: bodies reach the scene and pipelines through their [`crate::gpu::pass::PassContext`],
//! so `tessera plan --frame` compiles the very graph the renderer runs.

pub mod bloom;
pub mod clustering;
pub mod debug;
pub mod deform;
pub mod environment;
pub mod exposure;
pub mod forward;
pub mod geometry;
pub mod lighting;
pub mod post;
pub mod rotate;
pub mod sets;
pub mod ssao;
pub mod taa;
pub mod ui;

pub use rotate::Rotation;

use crate::builder::{BufferRef, ImageRef, ImportFlags, Size};
use crate::features::{Aa, DebugView, Features, Lighting, RenderPath, Ssao};
use crate::gpu::frame_data::{update_buffer, FrameData, PointLightData};
use crate::gpu::pass::FrameBuilder;
use crate::gpu::scene::Draw;
use tessera_graph::{Format, PassKind};

/// The output image's format (sRGB: the hardware encodes).
pub const OUTPUT_FORMAT: Format = Format::R8G8B8A8_SRGB;
/// The HDR target's format.
pub const HDR_FORMAT: Format = Format::B10G11R11_UFLOAT_PACK32;

/// What the frame is declared from: plain data, no device objects.
#[derive(Clone, Debug)]
pub struct FrameInputs<'a> {
    /// The features to declare.
    pub features: &'a Features,
    /// Bytes of the scene's vertex buffer.
    pub vertex_bytes: u64,
    /// Bytes of the scene's index buffer.
    pub index_bytes: u64,
    /// Camera and sun.
    pub data: FrameData,
    /// Point lights this frame.
    pub lights: Vec<PointLightData>,
    /// Transparent draws, back to front.
    pub transparent: Vec<Draw>,
    /// This frame's deformation (morph targets, skins): the [`deform`] pass writing
    /// `animated vertices`, or nothing.
    pub deform: deform::Deformation,
    /// Texels per side of each shadow cascade; 0: no shadows (the atlas is 1 texel, cleared).
    pub shadow_size: u32,
    /// The output's name in the graph.
    pub output_name: &'a str,
    /// `Some(format)`: the output is a swapchain image of this format, a different one every
    /// frame (`per_frame`), left for presentation (`exit: present`); `None`: the renderer's
    /// own [`OUTPUT_FORMAT`] image.
    pub present: Option<Format>,
    /// Copy the output into the read-back buffer, declared as the imported buffer
    /// `readback` of this size.
    pub readback: Option<u64>,
    /// Declare the `ui` pass painting these egui meshes over the output; the graph depends
    /// on its buffers' capacities only.
    pub ui: Option<ui::UiInputs>,
    /// The rotation the presentation applies to the output ([`rotate`]): everything is
    /// drawn upright at the logical size; the passes that write the output write it (its
    /// sides swapped at 90° and 270°) pre-rotated.
    pub rotation: Rotation,
    /// TAA's count of frames accumulated since its history's reset, kept across frames by
    /// the renderer (`None`: a frame declared for its plan only).
    pub taa_frames: Option<&'a std::cell::Cell<u64>>,
    /// How the forward path's prepass resolves its multisampled depth (`None`: it renders
    /// single-sampled).
    pub depth_resolve: Option<tessera_graph::ResolveMode>,
    /// The forward path at `msaa` > 1 may tone map per sample (the device can shade per
    /// sample; [`forward::tonemaps_per_sample`]).
    pub tonemap_per_sample: bool,
    /// Which persistent environment content (the sky's image-based light, the BRDF table)
    /// still holds what its passes would write ([`environment`]).
    pub environment: environment::Validity,
    /// The post chain will run on the async queue beside the next frame's first graphics
    /// passes ([`tessera_graph::compile::overlap::tail_to_async`]): the frame's start is
    /// ordered for that.
    pub async_tail: bool,
}

/// The graph handles of the frame's imported resources, which the renderer hands to the
/// executor.
#[derive(Clone, Copy, Debug)]
pub struct Imports {
    /// The output image.
    pub output: ImageRef,
    /// The scene's vertex buffer.
    pub vertices: BufferRef,
    /// The scene's index buffer.
    pub indices: BufferRef,
    /// The read-back buffer, if declared.
    pub readback: Option<BufferRef>,
    /// The scene's deformation data (`deform vertices`, `deform draws`, `morph deltas`),
    /// when the [`deform`] pass runs.
    pub deform: Option<[BufferRef; 3]>,
    /// The post chain's resources: the `exposure` history buffer (`Exposure::Auto`), the
    /// bloom result and the rest a debug view shows.
    pub post: post::PostTargets,
}

/// The frame's resources declared so far, which later pass groups read.
#[derive(Clone, Copy, Debug)]
pub struct Targets {
    /// The output image.
    pub output: ImageRef,
    /// The scene's vertex buffer.
    pub vertices: BufferRef,
    /// The scene's index buffer.
    pub indices: BufferRef,
    /// This frame's deformed vertices (morph targets, skins), when the animations deform
    /// any: written by `deform` (or `frame constants`), read by the geometry passes.
    pub animated: Option<BufferRef>,
    /// The frame constants (uniform buffer).
    pub ubo: BufferRef,
    /// The same constants for the async-compute passes (uniform buffer), when there are any.
    pub async_ubo: Option<BufferRef>,
    /// The point lights (storage buffer).
    pub lights: BufferRef,
    /// The shadow atlas.
    pub atlas: ImageRef,
    /// G-buffer base colour.
    pub albedo: ImageRef,
    /// G-buffer normal.
    pub normal: ImageRef,
    /// G-buffer metallic, roughness, occlusion.
    pub material: ImageRef,
    /// The HDR colour target.
    pub hdr: ImageRef,
    /// What the G-buffer pass writes emission into: `hdr`, which raster lighting adds to;
    /// with `Lighting::Compute` its own `gbuffer emission` image, which lighting reads where
    /// surfaces are and then writes every pixel of `hdr`.
    pub emission: ImageRef,
    /// Scene depth.
    pub depth: ImageRef,
    /// The light clusters (storage buffer), when `features.clustering`.
    pub clusters: Option<BufferRef>,
    /// The blurred ambient occlusion (`R32_SFLOAT`, half resolution), when SSAO is on.
    pub ssao: Option<ImageRef>,
    /// The motion vectors (`R16G16_SFLOAT`, UV now minus UV last frame), when TAA runs.
    pub motion: Option<ImageRef>,
    /// The sky's image-based light, which every lit pass reads.
    pub env: environment::Environment,
}

/// The deferred path's SSAO, shadows and G-buffer, in the order that overlaps the async SSAO
/// with graphics work: with a prepass it runs while the shadows and the G-buffer draw; from
/// the G-buffer's depth it runs while the shadows draw, so the shadow pass is declared after
/// the G-buffer then, unless `async_tail`: the previous frame's post chain then still runs
/// on the async queue when this frame starts, and the shadow pass goes first, to run beside
/// it (its atlas needs nothing twice, where the G-buffer pass would need depth and motion
/// twice, which TAA reads: docs/perf.md measures both orders).
fn declare_deferred(
    fb: &mut FrameBuilder<'_>,
    t: &mut Targets,
    features: &Features,
    (shadow_size, cascades): (u32, u32),
    async_tail: bool,
) {
    // A debug view of a G-buffer target shows every pixel: cleared targets then.
    let covered = features.debug_view.needs_gbuffer().is_none();
    match features.ssao {
        Ssao::Off => {
            geometry::declare_shadows(fb, t, shadow_size, cascades);
            geometry::declare_gbuffer(fb, t, covered);
        }
        Ssao::Prepass => {
            let depth = ssao::declare_prepass(fb, t);
            t.ssao = Some(ssao::declare(fb, t, depth).ssao);
            geometry::declare_shadows(fb, t, shadow_size, cascades);
            geometry::declare_gbuffer(fb, t, covered);
        }
        Ssao::GBuffer if async_tail => {
            geometry::declare_shadows(fb, t, shadow_size, cascades);
            geometry::declare_gbuffer(fb, t, covered);
            t.ssao = Some(ssao::declare(fb, t, t.depth).ssao);
        }
        Ssao::GBuffer => {
            geometry::declare_gbuffer(fb, t, covered);
            t.ssao = Some(ssao::declare(fb, t, t.depth).ssao);
            geometry::declare_shadows(fb, t, shadow_size, cascades);
        }
    }
}

/// Declares the frame into `fb`.
pub fn declare<'a>(fb: &mut FrameBuilder<'a>, inputs: FrameInputs<'a>) -> Imports {
    let vertices = fb.import_buffer(
        "scene vertices",
        inputs.vertex_bytes.max(16),
        ImportFlags::default(),
    );
    let indices = fb.import_buffer(
        "scene indices",
        inputs.index_bytes.max(16),
        ImportFlags::default(),
    );
    let logical = fb.output();
    let (pw, ph) = inputs.rotation.swap((logical.width, logical.height));
    let output = fb.import_image(
        inputs.output_name,
        inputs.present.unwrap_or(OUTPUT_FORMAT),
        match inputs.rotation {
            Rotation::R0 => Size::Output,
            _ => Size::Fixed(pw, ph),
        },
        ImportFlags {
            clear_on_first_use: true,
            per_frame: inputs.present.is_some(),
            present: inputs.present.is_some(),
        },
    );
    let mut lights = inputs.lights;
    if lights.is_empty() {
        // A storage buffer may not be empty: one dark light the shader never reads.
        lights.push(PointLightData::point([0.0; 3], 0.0, [0.0; 3]));
    }
    let light_bytes = std::mem::size_of_val(lights.as_slice()) as u64;
    let ubo = fb.buffer("frame constants", std::mem::size_of::<FrameData>() as u64);
    let light_buffer = fb.buffer("point lights", light_bytes);
    let features = inputs.features;
    // The async passes read their own copy of the constants: an async pass that used a
    // buffer of a render pass while running inside it in the order would end that render
    // pass (the compiler's rule), costing the G-buffer → lighting merge.
    let async_ubo = (features.clustering || features.ssao != Ssao::Off)
        .then(|| fb.buffer("async constants", std::mem::size_of::<FrameData>() as u64));
    let data = inputs.data;
    let ui = inputs
        .ui
        .map(|ui| (ui::declare_buffers(fb, ui.capacity), ui));
    let ui_buffers = ui.as_ref().map(|(b, _)| *b);
    // The pass body below uploads the meshes; the `ui` pass records from its own copy.
    let ui_upload = ui.clone();
    let mut deformation = deform::declare_buffers(fb, inputs.deform);
    let animated = deformation.as_ref().map(|d| d.animated);
    let deform_upload = deformation
        .as_mut()
        .map(|d| (d.upload, std::mem::take(&mut d.bytes)));
    fb.pass("frame constants", PassKind::Transfer, |p| {
        p.copy_to(ubo).copy_to(light_buffer);
        if let Some((a, _)) = &deform_upload {
            p.copy_to(*a);
        }
        if let Some(a) = async_ubo {
            p.copy_to(a);
        }
        if let Some(b) = ui_buffers {
            p.copy_to(b.vertices).copy_to(b.indices);
        }
        move |pc| {
            if let Some((b, ui)) = &ui_upload {
                ui::upload(pc, *b, ui)?;
            }
            update_buffer(pc.gpu, pc.cmd, pc.buffer(ubo)?, bytemuck::bytes_of(&data));
            if let Some(a) = async_ubo {
                update_buffer(pc.gpu, pc.cmd, pc.buffer(a)?, bytemuck::bytes_of(&data));
            }
            update_buffer(
                pc.gpu,
                pc.cmd,
                pc.buffer(light_buffer)?,
                bytemuck::cast_slice(&lights),
            );
            if let Some((a, bytes)) = &deform_upload {
                update_buffer(pc.gpu, pc.cmd, pc.buffer(*a)?, bytes);
            }
            Ok(())
        }
    });
    if let Some(d) = &deformation {
        deform::declare(fb, d);
    }

    // The environment first: its passes need nothing of this frame, so they start at once
    // (on the async queue where there is one), when they run at all.
    let env = environment::declare(fb, environment::SkyInputs::of(&data), inputs.environment);
    let cascade = inputs.shadow_size.max(1);
    let cascades = inputs
        .features
        .cascades
        .clamp(1, crate::shadows::MAX_CASCADES as u32);
    let forward = features.path == RenderPath::Forward;
    let hdr = fb.image("hdr", HDR_FORMAT, Size::FULL);
    // The forward path declares no G-buffer: its three fields name the HDR target there,
    // which no pass of that path reads as one (the views of them are refused,
    // `Features::check`).
    let gbuffer = |fb: &mut FrameBuilder<'a>, name: &str, format: Format| match forward {
        true => hdr,
        false => fb.image(name, format, Size::FULL),
    };
    let albedo = gbuffer(fb, "gbuffer albedo", Format::R8G8B8A8_SRGB);
    let normal = gbuffer(fb, "gbuffer normal", Format::A2B10G10R10_UNORM_PACK32);
    let material = gbuffer(fb, "gbuffer material", Format::R8G8B8A8_UNORM);
    let emission = match !forward && features.lighting == Lighting::Compute {
        true => fb.image("gbuffer emission", HDR_FORMAT, Size::FULL),
        false => hdr,
    };
    let t = Targets {
        output,
        vertices,
        indices,
        animated,
        ubo,
        async_ubo,
        lights: light_buffer,
        atlas: fb.image(
            "shadow atlas",
            Format::D32_SFLOAT,
            Size::Fixed(cascade * cascades, cascade),
        ),
        albedo,
        normal,
        material,
        hdr,
        emission,
        depth: fb.image("depth", Format::D32_SFLOAT, Size::FULL),
        clusters: None,
        ssao: None,
        // TAA's motion vectors, when the post chain runs (a debug view of an image replaces
        // it; the exposure view draws over it).
        motion: (features.aa == Aa::Taa
            && (!forward || features.msaa <= 1)
            && matches!(features.debug_view, DebugView::None | DebugView::Exposure))
        .then(|| fb.image("motion", taa::MOTION_FORMAT, Size::FULL)),
        env,
    };
    let mut t = t;
    if features.clustering {
        t.clusters = Some(clustering::declare(fb, &t));
    }
    // What tone mapping reads: `hdr`, or the forward path's multisampled colour.
    let mut post_hdr = post::Hdr {
        image: t.hdr,
        samples: 1,
        bloom_source: None,
    };
    if forward {
        // Any SSAO reads the forward prepass's depth: the surfaces are shaded in the pass
        // that writes theirs.
        let samples = features.msaa.max(1);
        if features.ssao != Ssao::Off {
            let depth = forward::declare_prepass(fb, &t, samples, inputs.depth_resolve);
            t.ssao = Some(ssao::declare(fb, &t, depth).ssao);
        }
        geometry::declare_shadows(fb, &t, inputs.shadow_size, cascades);
        let f = forward::declare_targets(fb, &t, samples);
        let allowed = (features, inputs.tonemap_per_sample);
        post_hdr = forward::declare(fb, &t, f, inputs.transparent, allowed);
    } else {
        declare_deferred(
            fb,
            &mut t,
            features,
            (inputs.shadow_size, cascades),
            inputs.async_tail,
        );
        match features.lighting {
            Lighting::Raster => lighting::declare(fb, &t),
            Lighting::Compute => lighting::declare_compute(fb, &t),
        }
        geometry::declare_transparents(fb, &t, inputs.transparent, None);
    }
    let view = features.debug_view;
    let output_format = inputs.present.unwrap_or(OUTPUT_FORMAT);
    // Pre-rotation ([`rotate`]): the passes that write the output (the last post pass, the
    // debug views, the UI) write it turned themselves.
    let rotation = inputs.rotation;
    let debug = !matches!(view, DebugView::None | DebugView::Exposure)
        && debug::declare(
            fb,
            &t,
            view,
            (features.cascades, rotation),
            &inputs.data.cascade_view_proj,
        );
    // A debug view of an image replaces the post chain; the exposure view draws over it.
    let post = if debug {
        post::PostTargets::default()
    } else {
        post::declare(
            fb,
            &t,
            features,
            (post_hdr, output_format, rotation),
            inputs.taa_frames,
        )
    };
    if view == DebugView::Exposure {
        debug::declare_exposure(fb, &t, &post, rotation);
    }
    if let Some((buffers, ui)) = ui {
        ui::declare(fb, t.output, buffers, ui, rotation);
    }
    // The read-back copies what is presented: the physical image.
    let readback = inputs
        .readback
        .map(|bytes| post::declare_readback(fb, &t, bytes));
    Imports {
        output,
        vertices,
        indices,
        readback,
        deform: deformation.and_then(|d| d.statics),
        post,
    }
}
