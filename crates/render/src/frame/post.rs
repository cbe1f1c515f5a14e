//! The post-processing chain after the lit HDR colour: bloom, tone mapping, auto exposure,
//! the last post pass (FXAA, the resolution scale, the tile-friendly bloom) and the
//! read-back of the output.
//!
//! What each feature declares ([`declare`]):
//! - `Bloom::Hdr`: the chain ([`super::bloom`]) samples `hdr` after transparents and tone
//!   mapping adds it before the curve. A tiler's render pass ends before tone mapping: hdr
//!   is sampled, so it leaves tile memory.
//! - `Bloom::Tonemap`: the tone-mapping subpass also writes `bloom source` (a copy of the
//!   HDR colour, a second colour attachment) which leaves the render pass; the chain runs
//!   from it afterwards and the last post pass adds it after the curve. `hdr` stays in tile
//!   memory and G-buffer → lighting → transparents → tone map stay one render pass.
//! - `Exposure::Auto`: tone mapping (and the last post pass when it adds bloom) reads the
//!   previous frame's value of the `exposure` history buffer; [`super::exposure`] declares the histogram and adaptation
//!   after them. `Exposure::Fixed(e)`: a push constant, nothing declared.
//! - `Aa::Taa`: `taa` ([`super::taa`]) blends `ldr` with its reprojected history into this
//!   frame's history image (`R16G16B16A16_SFLOAT`, render size), which the last post pass
//!   (`compose`, no FXAA) samples in place of `ldr`.
//! - The last post pass (`fxaa`, or `compose` without FXAA) samples the tone-mapped `ldr`
//!   image (render size, `R8G8B8A8_SRGB`) and writes the output (output size). Tone mapping
//!   writes the output directly when there is nothing for it to do: no FXAA, scale 1 and no
//!   tile-friendly bloom.
//! - Per sample (the forward path at `msaa` > 1, [`super::forward::tonemaps_per_sample`]):
//!   tone mapping reads the multisampled `hdr ms` at each sample in the forward render pass
//!   and writes `ldr ms` (`output ms` when it writes the output), resolved on write-back into
//!   `ldr` (the output); `bloom source` is the resolve of `hdr ms` ([`Hdr::bloom_source`]).
//! - `PostPath::Compute` (not per sample, and an 8-bit RGBA/BGRA output): `tonemap`
//!   (`tonemap.comp`) samples `hdr` at the same texel and writes the linear `ldr`
//!   ([`COMPUTE_LDR_FORMAT`]); the last post pass (`post.comp`) writes `post out`
//!   ([`COMPUTE_OUT_FORMAT`], sRGB-encoded by the shader), and `post copy` copies it into
//!   the output. Without a last post pass tone mapping writes `post out` itself. The
//!   tile-friendly bloom's chain samples `hdr` directly (no `bloom source` copy). The math
//!   is the raster chain's (`tonemap.glsl`, `fxaa.glsl`); pictures agree within a rounding
//!   step (docs/frame.md, "The compute post chain").

use super::sets::draw_fullscreen;
use super::{Rotation, Targets, HDR_FORMAT, OUTPUT_FORMAT};
use crate::builder::{BufferRef, ImageRef, ImportFlags, Size};
use crate::features::{Aa, Bloom, Exposure, Features, PostPath};
use crate::gpu::descriptors::{declared_sets, dispatch, draw_screen, groups};
use crate::gpu::pass::FrameBuilder;
use crate::gpu::pipelines::PipelineKind;
use ash::vk;
use tessera_graph::Format;
use tessera_graph::PassKind;

/// What the post chain declared, for the debug views and the tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct PostTargets {
    /// The exposure history buffer (`Exposure::Auto`): `vec4(exposure,
    /// adapted luminance, frames adapted, last frame's mean luminance)`.
    pub exposure: Option<BufferRef>,
    /// The luminance histogram (`Exposure::Auto`): 64 `u32` bins.
    pub histogram: Option<BufferRef>,
    /// The bloom chain's result (half the render size, `R16G16B16A16_SFLOAT`).
    pub bloom: Option<ImageRef>,
    /// The tone-mapping pass's HDR copy (`Bloom::Tonemap`).
    pub bloom_source: Option<ImageRef>,
    /// The tone-mapped image at render size, when a last post pass follows.
    pub ldr: Option<ImageRef>,
    /// TAA's history image, this frame's content (`Aa::Taa`): what the last post pass
    /// samples in place of `ldr`.
    pub taa: Option<ImageRef>,
}

/// The HDR colour tone mapping reads.
#[derive(Clone, Copy, Debug)]
pub struct Hdr {
    /// The image (an input attachment).
    pub image: ImageRef,
    /// Its samples per pixel: > 1 tone maps each sample in the render pass that drew it.
    pub samples: u32,
    /// Per sample with `Bloom::Tonemap`: the bloom source, already resolved from `image`
    /// (a multisampled copy would not fit a tiler's colour budget next to HDR and LDR).
    pub bloom_source: Option<ImageRef>,
}

/// The exposure multiplier tone mapping applies: the fixed value, or the compensation on
/// the adapted one.
pub fn exposure_scale(e: Exposure) -> f32 {
    match e {
        Exposure::Fixed(e) => e,
        Exposure::Auto { compensation } => compensation,
    }
}

/// Whether the chain runs in compute: per sample, tone mapping runs inside the forward
/// render pass (raster either way); so does an output the chain's RGBA8 result cannot be
/// copied into (not 8-bit RGBA/BGRA).
fn runs_compute(features: &Features, samples: u32, output_format: Format) -> bool {
    features.post == PostPath::Compute && samples <= 1 && copyable(output_format)
}

/// Whether tone mapping writes the output itself (no AA, no scaling, no late bloom).
fn tonemaps_direct(fb: &FrameBuilder<'_>, features: &Features) -> bool {
    features.aa == Aa::Off && fb.render_size() == fb.output() && features.bloom != Bloom::Tonemap
}

/// `post out`: of the output's size, physical (sides swapped) when pre-rotated.
fn post_out(fb: &mut FrameBuilder<'_>, rotation: Rotation) -> ImageRef {
    let size = match rotation {
        Rotation::R0 => Size::Output,
        r => {
            let o = fb.output();
            let (w, h) = r.swap((o.width, o.height));
            Size::Fixed(w, h)
        }
    };
    fb.image("post out", COMPUTE_OUT_FORMAT, size)
}

/// Declares bloom, tone mapping, TAA, the last post pass and the exposure adaptation, as
/// `features` ask, from `hdr` into `t.output` (of `output_format`). `taa_frames`: TAA's
/// count of frames accumulated, which the renderer keeps across frames. `rotation`: the
/// pre-rotation ([`super::rotate`]) the pass writing the output applies.
pub fn declare<'a>(
    fb: &mut FrameBuilder<'a>,
    t: &Targets,
    features: &Features,
    (hdr, output_format, rotation): (Hdr, Format, Rotation),
    taa_frames: Option<&'a std::cell::Cell<u64>>,
) -> PostTargets {
    let ms = hdr.samples > 1;
    let compute = runs_compute(features, hdr.samples, output_format);
    let mut out = PostTargets::default();
    let scale = exposure_scale(features.exposure);
    if matches!(features.exposure, Exposure::Auto { .. }) {
        out.exposure = Some(super::exposure::declare_history(fb));
    }
    let early_bloom = (features.bloom == Bloom::Hdr).then(|| super::bloom::declare(fb, hdr.image));
    // In compute the tile-friendly bloom's chain samples `hdr` itself: no copy to write.
    if features.bloom == Bloom::Tonemap && !compute {
        out.bloom_source = Some(
            hdr.bloom_source
                .unwrap_or_else(|| fb.image("bloom source", HDR_FORMAT, Size::FULL)),
        );
    }
    // Pre-rotated, raster tone mapping does not write the output: it reads HDR at its own
    // pixel (an input attachment), so `compose` turns its picture into the output.
    let direct = tonemaps_direct(fb, features) && (compute || rotation == Rotation::R0);
    let target = match (direct, compute) {
        (true, false) => t.output,
        (true, true) => post_out(fb, rotation),
        (false, _) => {
            let format = if compute {
                COMPUTE_LDR_FORMAT
            } else {
                OUTPUT_FORMAT
            };
            let ldr = fb.image("ldr", format, Size::FULL);
            out.ldr = Some(ldr);
            ldr
        }
    };
    let target_ms = ms.then(|| match direct {
        true => fb.image_ms("output ms", output_format, Size::Output, hdr.samples),
        false => fb.image_ms("ldr ms", OUTPUT_FORMAT, Size::FULL, hdr.samples),
    });
    let tm = Tonemap {
        hdr: hdr.image,
        target,
        ms: target_ms,
        exposure: out.exposure,
        bloom: early_bloom,
        // Per sample the forward render pass resolved it already.
        bloom_source: out.bloom_source.filter(|_| !ms),
        scale,
        // Only into `post out` (compute, direct): the other targets are upright.
        rotation: match (direct, compute) {
            (true, true) => rotation,
            _ => Rotation::R0,
        },
    };
    if compute {
        declare_tonemap_compute(fb, tm, direct.then_some(output_format));
        if direct {
            declare_copy(fb, target, t.output);
        }
    } else {
        declare_tonemap(fb, tm);
    }
    let late_bloom = match compute && features.bloom == Bloom::Tonemap {
        true => Some(super::bloom::declare(fb, hdr.image)),
        false => out.bloom_source.map(|s| super::bloom::declare(fb, s)),
    };
    out.bloom = early_bloom.or(late_bloom);
    if let Some(ldr) = out.ldr {
        // TAA needs the G-buffer's motion vectors; without them (a debug view's frame) the
        // last post pass runs FXAA instead.
        out.taa = match (features.aa, t.motion) {
            (Aa::Taa, Some(motion)) => Some(super::taa::declare(
                fb,
                super::taa::TaaInputs {
                    ubo: t.ubo,
                    ldr,
                    motion,
                    depth: t.depth,
                    frames: taa_frames,
                },
            )),
            _ => None,
        };
        let f = Final {
            ldr: out.taa.unwrap_or(ldr),
            output: t.output,
            bloom: late_bloom,
            exposure: out.exposure,
            fxaa: features.aa == Aa::Fxaa || (features.aa == Aa::Taa && out.taa.is_none()),
            scale,
            rotation,
        };
        if compute {
            let post_out = post_out(fb, rotation);
            declare_final_compute(fb, f, post_out, output_format);
            declare_copy(fb, post_out, t.output);
        } else {
            declare_final(fb, f);
        }
    }
    if let Some(e) = out.exposure {
        let src = out.bloom_source.unwrap_or(t.hdr);
        out.histogram = Some(super::exposure::declare_adaptation(fb, src, e));
    }
    out
}

/// The compute chain's tone-mapped image (linear, render size): a storage format every
/// Vulkan device supports, and TAA's history format.
pub const COMPUTE_LDR_FORMAT: Format = Format::R16G16B16A16_SFLOAT;
/// The compute chain's result (sRGB-encoded by the shader: sRGB formats are rarely storage
/// formats), copied into the output, with which it is copy-compatible (32-bit texels).
pub const COMPUTE_OUT_FORMAT: Format = Format::R8G8B8A8_UNORM;

/// Whether an output of `format` stores its channels as B, G, R: the compute chain swaps
/// them in the shader, as the copy moves bytes unconverted.
fn bgra(format: Format) -> bool {
    matches!(format, Format::B8G8R8A8_SRGB | Format::B8G8R8A8_UNORM)
}

/// Whether the compute chain's result ([`COMPUTE_OUT_FORMAT`]) copies into an output of
/// `format`: 8-bit RGBA or BGRA, UNORM or sRGB.
fn copyable(format: Format) -> bool {
    bgra(format) || matches!(format, Format::R8G8B8A8_SRGB | Format::R8G8B8A8_UNORM)
}

/// Whether an output of `format` is sRGB: the compute chain encodes for it, as an sRGB
/// attachment would on write (a UNORM output gets the values as they are).
fn srgb(format: Format) -> bool {
    matches!(format, Format::R8G8B8A8_SRGB | Format::B8G8R8A8_SRGB)
}

/// A shader's boolean push constant.
fn flag(on: bool) -> f32 {
    if on {
        1.0
    } else {
        0.0
    }
}

/// What tone mapping reads and writes.
#[derive(Clone, Copy, Debug)]
struct Tonemap {
    hdr: ImageRef,
    target: ImageRef,
    /// Per sample: the multisampled target written, resolved into `target`.
    ms: Option<ImageRef>,
    exposure: Option<BufferRef>,
    bloom: Option<ImageRef>,
    bloom_source: Option<ImageRef>,
    scale: f32,
    /// The pre-rotation `tonemap.comp` applies into `target` (R0 but for `post out`).
    rotation: Rotation,
}

/// The tone-mapping variant. Per sample there is neither bloom added (`Bloom::Hdr`) nor a
/// bloom source written (the render pass resolves it).
fn tonemap_shader(auto: bool, add: bool, source: bool, per_sample: bool) -> &'static str {
    if per_sample {
        return match auto {
            false => "tonemap.frag#PER_SAMPLE",
            true => "tonemap.frag#AUTO_EXPOSURE#PER_SAMPLE",
        };
    }
    match (auto, add, source) {
        (false, false, false) => "tonemap.frag",
        (false, true, _) => "tonemap.frag#BLOOM_ADD",
        (false, false, true) => "tonemap.frag#BLOOM_SOURCE",
        (true, false, false) => "tonemap.frag#AUTO_EXPOSURE",
        (true, true, _) => "tonemap.frag#AUTO_EXPOSURE#BLOOM_ADD",
        (true, false, true) => "tonemap.frag#AUTO_EXPOSURE#BLOOM_SOURCE",
    }
}

/// `tonemap`: HDR (an input attachment) times the exposure, plus the early bloom, ACES fit,
/// into `target`; with the tile-friendly bloom also the HDR copy `bloom source`. Per sample
/// (`tm.ms`) it writes the multisampled target and resolves it into `target`.
fn declare_tonemap(fb: &mut FrameBuilder<'_>, tm: Tonemap) {
    fb.pass("tonemap", PassKind::Raster, |p| {
        p.input(tm.hdr);
        match tm.ms {
            Some(ms) => p.color(ms).resolve(tm.target, ms),
            None => p.color(tm.target),
        };
        if let Some(s) = tm.bloom_source {
            p.color(s);
        }
        if let Some(e) = tm.exposure {
            p.storage_read_previous(e);
        }
        if let Some(b) = tm.bloom {
            p.sampled(b);
        }
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let per_sample = tm.ms.is_some();
            if tm.exposure.is_none()
                && tm.bloom.is_none()
                && tm.bloom_source.is_none()
                && !per_sample
            {
                // The core frame's tone mapping, with its own pipeline and layout.
                let (pipeline, layout, input_layout) = {
                    let mut p = pc.pipelines()?.borrow_mut();
                    (
                        p.get(pc.gpu, PipelineKind::Tonemap, (rp, sp), pc.samples())?,
                        p.layouts.tonemap,
                        p.layouts.hdr_input,
                    )
                };
                let sets = declared_sets(pc, &[input_layout])?;
                draw_fullscreen(
                    pc,
                    (pipeline, layout),
                    extent,
                    &sets,
                    &tm.scale.to_le_bytes(),
                );
                return Ok(());
            }
            let shader = tonemap_shader(
                tm.exposure.is_some(),
                tm.bloom.is_some(),
                tm.bloom_source.is_some(),
                per_sample,
            );
            let colors = 1 + u32::from(tm.bloom_source.is_some());
            let valid = tm.exposure.is_some_and(|e| pc.buffer_history_valid(e));
            let push = [
                tm.scale,
                super::bloom::INTENSITY,
                1.0 / extent.width as f32,
                1.0 / extent.height as f32,
                super::exposure::valid_flag(valid),
                0.0,
                0.0,
                0.0,
            ];
            draw_screen(pc, shader, bytemuck::cast_slice(&push), colors)
        }
    });
}

/// The compute tone-mapping variant.
fn tonemap_compute_shader(auto: bool, add: bool, output: bool) -> &'static str {
    match (auto, add, output) {
        (false, false, false) => "tonemap.comp",
        (false, false, true) => "tonemap.comp#OUTPUT",
        (false, true, false) => "tonemap.comp#BLOOM_ADD",
        (false, true, true) => "tonemap.comp#BLOOM_ADD#OUTPUT",
        (true, false, false) => "tonemap.comp#AUTO_EXPOSURE",
        (true, false, true) => "tonemap.comp#AUTO_EXPOSURE#OUTPUT",
        (true, true, false) => "tonemap.comp#AUTO_EXPOSURE#BLOOM_ADD",
        (true, true, true) => "tonemap.comp#AUTO_EXPOSURE#BLOOM_ADD#OUTPUT",
    }
}

/// `tonemap` in compute (`tonemap.comp`): HDR (sampled at the same texel) times the
/// exposure, plus the early bloom, ACES fit, into the linear `ldr` storage image; with
/// `output` (the output's format: nothing follows tone mapping) sRGB-encoded into `post
/// out`, which [`declare_copy`] copies into the output.
fn declare_tonemap_compute(fb: &mut FrameBuilder<'_>, tm: Tonemap, output: Option<Format>) {
    fb.pass("tonemap", PassKind::Compute, |p| {
        p.sampled_with(tm.hdr, crate::builder::Filter::Nearest);
        if let Some(e) = tm.exposure {
            p.storage_read_previous(e);
        }
        if let Some(b) = tm.bloom {
            p.sampled(b);
        }
        p.image_store(tm.target);
        move |pc| {
            let extent = pc.image(tm.target)?.extent;
            let shader =
                tonemap_compute_shader(tm.exposure.is_some(), tm.bloom.is_some(), output.is_some());
            let valid = tm.exposure.is_some_and(|e| pc.buffer_history_valid(e));
            // The target's extent is the physical one when pre-rotated; the picture's is
            // the logical (render) size.
            let (w, h) = tm.rotation.swap((extent.width, extent.height));
            let push = [
                tm.scale,
                super::bloom::INTENSITY,
                1.0 / w as f32,
                1.0 / h as f32,
                super::exposure::valid_flag(valid),
                flag(output.is_some_and(bgra)),
                flag(output.is_some_and(srgb)),
                0.0,
                w as f32,
                h as f32,
                tm.rotation.turns() as f32,
            ];
            dispatch(pc, shader, bytemuck::cast_slice(&push), groups(extent, 8))
        }
    });
}

/// What the last post pass reads and writes.
#[derive(Clone, Copy, Debug)]
struct Final {
    ldr: ImageRef,
    output: ImageRef,
    bloom: Option<ImageRef>,
    exposure: Option<BufferRef>,
    fxaa: bool,
    scale: f32,
    /// The pre-rotation the pass applies.
    rotation: Rotation,
}

impl Final {
    /// The pass's name: `fxaa`, or `compose` without FXAA.
    fn name(self) -> &'static str {
        if self.fxaa {
            "fxaa"
        } else {
            "compose"
        }
    }

    /// What both variants of the pass read: `ldr`, and the tile-friendly bloom with the
    /// previous exposure.
    fn declare_reads(self, p: &mut crate::builder::PassDecl) {
        p.sampled(self.ldr);
        if let Some(b) = self.bloom {
            p.sampled(b);
            if let Some(e) = self.exposure {
                p.storage_read_previous(e);
            }
        }
    }

    /// The push constants `post.frag` and `post.comp` share, for a target of `extent`.
    fn push(
        self,
        pc: &crate::gpu::pass::PassContext<'_, '_, '_>,
        extent: vk::Extent2D,
    ) -> Result<[f32; 8], crate::RenderError> {
        let ldr = pc.image(self.ldr)?;
        let valid = self.exposure.is_some_and(|e| pc.buffer_history_valid(e));
        Ok([
            1.0 / extent.width as f32,
            1.0 / extent.height as f32,
            1.0 / ldr.extent.width as f32,
            1.0 / ldr.extent.height as f32,
            if self.fxaa { 1.0 } else { 0.0 },
            super::bloom::INTENSITY,
            self.scale,
            super::exposure::valid_flag(valid),
        ])
    }
}

/// `fxaa` (or `compose` without FXAA): the tone-mapped image scaled to the output, with
/// FXAA, plus the tile-friendly bloom.
fn declare_final(fb: &mut FrameBuilder<'_>, f: Final) {
    fb.pass(f.name(), PassKind::Raster, |p| {
        f.declare_reads(p);
        p.color(f.output);
        move |pc| {
            let (_, _, extent) = pc.subpass()?;
            let shader = match (f.bloom, f.exposure) {
                (None, _) => "post.frag",
                (Some(_), None) => "post.frag#BLOOM",
                (Some(_), Some(_)) => "post.frag#BLOOM#AUTO_EXPOSURE",
            };
            // The render area is the physical extent; the picture's is the logical one.
            let (w, h) = f.rotation.swap((extent.width, extent.height));
            let logical = vk::Extent2D {
                width: w,
                height: h,
            };
            let base = f.push(pc, logical)?;
            let mut push = [0.0f32; 12];
            push[..8].copy_from_slice(&base);
            push[8] = w as f32;
            push[9] = h as f32;
            push[10] = f.rotation.turns() as f32;
            draw_screen(pc, shader, bytemuck::cast_slice(&push), 1)
        }
    });
}

/// The last post pass in compute (`post.comp`, named as [`declare_final`]'s): the same
/// math from the linear `ldr` (or TAA's history) into `post out`, sRGB-encoded, channels in
/// the order of `output_format`.
fn declare_final_compute(
    fb: &mut FrameBuilder<'_>,
    f: Final,
    post_out: ImageRef,
    output_format: Format,
) {
    fb.pass(f.name(), PassKind::Compute, |p| {
        f.declare_reads(p);
        p.image_store(post_out);
        move |pc| {
            let extent = pc.image(post_out)?.extent;
            let shader = match (f.bloom, f.exposure) {
                (None, _) => "post.comp",
                (Some(_), None) => "post.comp#BLOOM",
                (Some(_), Some(_)) => "post.comp#BLOOM#AUTO_EXPOSURE",
            };
            // `post.frag`'s constants (for the logical extent), then the output's channel
            // order and encoding, then the pre-rotation's (as `post.frag`'s).
            let (w, h) = f.rotation.swap((extent.width, extent.height));
            let logical = vk::Extent2D {
                width: w,
                height: h,
            };
            let mut push = [0.0f32; 13];
            push[..8].copy_from_slice(&f.push(pc, logical)?);
            push[8] = flag(bgra(output_format));
            push[9] = flag(srgb(output_format));
            push[10] = w as f32;
            push[11] = h as f32;
            push[12] = f.rotation.turns() as f32;
            dispatch(pc, shader, bytemuck::cast_slice(&push), groups(extent, 8))
        }
    });
}

/// `post copy`: the compute chain's result (`post out`, RGBA8 UNORM holding sRGB-encoded
/// values) copied into the output (`R8G8B8A8_SRGB`, or a `B8G8R8A8_SRGB` swapchain image,
/// whose channel order the shader wrote): both 32-bit formats, so a plain copy, bytes
/// unconverted.
fn declare_copy(fb: &mut FrameBuilder<'_>, from: ImageRef, output: ImageRef) {
    fb.pass("post copy", PassKind::Transfer, |p| {
        p.copy_from(from).copy_into(output);
        move |pc| {
            let (src, dst) = (pc.image(from)?, pc.image(output)?);
            let layers = vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            };
            let region = vk::ImageCopy {
                src_subresource: layers,
                src_offset: vk::Offset3D::default(),
                dst_subresource: layers,
                dst_offset: vk::Offset3D::default(),
                extent: vk::Extent3D {
                    width: src.extent.width.min(dst.extent.width),
                    height: src.extent.height.min(dst.extent.height),
                    depth: 1,
                },
            };
            // SAFETY: recording outside a render pass; the plan put `from` in
            // TRANSFER_SRC_OPTIMAL and the output in TRANSFER_DST_OPTIMAL after the writes.
            unsafe {
                pc.gpu.device.cmd_copy_image(
                    pc.cmd,
                    src.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    dst.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[region],
                );
            }
            Ok(())
        }
    });
}

/// `readback`: copies the output into the imported host-visible buffer `readback` of
/// `bytes`, which it returns.
pub fn declare_readback(fb: &mut FrameBuilder<'_>, t: &Targets, bytes: u64) -> BufferRef {
    let t = *t;
    let buffer = fb.import_buffer("readback", bytes, ImportFlags::default());
    fb.pass("readback", PassKind::Transfer, |p| {
        p.copy_from(t.output).copy_to(buffer);
        move |pc| {
            let im = pc.image(t.output)?;
            let dst = pc.buffer(buffer)?;
            let region = vk::BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: 0,
                buffer_image_height: 0,
                image_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                },
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: im.extent.width,
                    height: im.extent.height,
                    depth: 1,
                },
            };
            // The host reads the buffer after the frame's fence: make the copy visible
            // to it (host access is outside the graph's model).
            let to_host = [vk::BufferMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::HOST)
                .dst_access_mask(vk::AccessFlags2::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(dst)
                .offset(0)
                .size(vk::WHOLE_SIZE)];
            // SAFETY: recording outside a render pass; the plan put the image in
            // TRANSFER_SRC_OPTIMAL and ordered the copy after the tone mapping.
            unsafe {
                pc.gpu.device.cmd_copy_image_to_buffer(
                    pc.cmd,
                    im.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    dst,
                    &[region],
                );
                pc.gpu.device.cmd_pipeline_barrier2(
                    pc.cmd,
                    &vk::DependencyInfo::default().buffer_memory_barriers(&to_host),
                );
            }
            Ok(())
        }
    });
    buffer
}
