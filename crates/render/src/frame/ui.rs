//! `ui`: an egui frame painted over the output through the graph, the frame's last raster
//! pass (before `readback`), declared when a UI is handed in ([`crate::Renderer::set_ui`]):
//! the UI the desktop app and Android draw.
//!
//! What goes in is plain data of one egui frame ([`UiFrame`]): the tessellated
//! [`egui::ClippedPrimitive`]s, the [`egui::TexturesDelta`] and `pixels_per_point`.
//!
//! - **Geometry.** Every mesh's vertices and indices are packed into one vertex and one
//!   index array ([`UiMeshes::pack`]); each mesh is one indexed draw with its first index and
//!   vertex offset, its clip rectangle (points → pixels, clamped to the output) as the
//!   scissor and its texture's descriptor set bound. The arrays live in two transient graph
//!   buffers (`ui vertices`, `ui indices`) written by the frame's `frame constants` transfer
//!   pass with `vkCmdUpdateBuffer`, like the camera and lights: the graph orders the writes
//!   before the `ui` pass's vertex and index reads, and nothing outside the graph needs
//!   syncing or keeping per frame in flight. The buffers' sizes must not follow the UI (a
//!   changed graph re-plans), so they are a capacity: the bytes rounded up to a power of two,
//!   at least [`MIN_CAPACITY`], and the renderer only ever grows it ([`capacity`]); a UI that
//!   grows past it re-plans once. A UI's data is small (a window of text is some thousand
//!   vertices, tens of KiB), which the inline updates suit; a UI of megabytes would want the
//!   staging ring instead.
//! - **Textures** (the font atlas, images) are egui's to manage and live across frames:
//!   renderer-owned images outside the graph, like the scene's textures
//!   ([`crate::gpu::ui::UiGpu`]), uploaded through the executor's staging ring with the next
//!   frame. User textures (`TextureId::User`) and paint callbacks are not drawn.
//! - **Colour.** egui's colours are sRGB-encoded, premultiplied alpha; the output is sRGB
//!   (`R8G8B8A8_SRGB`, or a `B8G8R8A8_SRGB` swapchain image), so the hardware blends in
//!   linear. As egui's own backends do for sRGB framebuffers, the vertex shader decodes the
//!   vertex colour to linear (alpha unchanged), the textures are `R8G8B8A8_SRGB` (sampled as
//!   linear), the fragment is colour × texel and the blend `ONE, ONE_MINUS_SRC_ALPHA`. Text
//!   blended in linear reads slightly thinner than egui's gamma-space reference; it is
//!   legible and the solid colours are exact.
//! - **Pipeline.** Its own (`ui.vert`, `ui.frag`, vertex input of [`UiVertex`], dynamic
//!   scissor), made per render pass and subpass by [`crate::gpu::ui::UiGpu`] from the
//!   build-time SPIR-V: the two shaders are not hot-reloaded yet.
//! - Positions stay in points: the vertex shader divides by the output's size in points
//!   (pushed), so `pixels_per_point` scales everything.

use super::Rotation;
use crate::builder::{BufferRef, ImageRef};
use crate::gpu::frame_data::update_buffer;
use crate::gpu::pass::{FrameBuilder, PassContext};
use crate::RenderError;
use ash::vk;
use bytemuck::{Pod, Zeroable};
use egui::epaint::Primitive;
use egui::{ClippedPrimitive, TextureId, TexturesDelta};
use tessera_graph::PassKind;

/// The smallest capacity of each of the two buffers (bytes).
pub const MIN_CAPACITY: u64 = 64 * 1024;

/// One egui frame's output, as handed to the renderer.
#[derive(Clone, Debug, Default)]
pub struct UiFrame {
    /// `ctx.tessellate(output.shapes, output.pixels_per_point)`.
    pub primitives: Vec<ClippedPrimitive>,
    /// `output.textures_delta`: applied before the frame is painted (`set`), after it
    /// (`free`).
    pub textures_delta: TexturesDelta,
    /// `output.pixels_per_point`.
    pub pixels_per_point: f32,
}

/// A vertex as the `ui` pass reads it (`ui.vert`): egui's `Vertex`, 20 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct UiVertex {
    /// Position in points.
    pub pos: [f32; 2],
    /// Texture coordinate.
    pub uv: [f32; 2],
    /// sRGBA, premultiplied (`R8G8B8A8_UNORM` in memory order).
    pub color: [u8; 4],
}

/// One mesh: an indexed draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UiDraw {
    /// The texture sampled.
    pub texture: TextureId,
    /// The scissor in pixels: x, y, width, height (non-empty, inside the output).
    pub scissor: [u32; 4],
    /// First index in the index array.
    pub first_index: u32,
    /// Indices.
    pub index_count: u32,
    /// Added to each index (the mesh's first vertex).
    pub vertex_offset: i32,
}

/// One egui frame's meshes packed for the `ui` pass.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UiMeshes {
    /// Every mesh's vertices, one after the other.
    pub vertices: Vec<UiVertex>,
    /// Every mesh's indices (relative to its own first vertex).
    pub indices: Vec<u32>,
    /// The draws, in egui's order (back to front).
    pub draws: Vec<UiDraw>,
    /// The output's size in points.
    pub screen_points: [f32; 2],
}

/// The capacity for `bytes` of data: a power of two, at least [`MIN_CAPACITY`].
pub fn capacity(bytes: u64) -> u64 {
    bytes.max(MIN_CAPACITY).next_power_of_two()
}

impl UiMeshes {
    /// Packs `primitives` for an output of `width` × `height` pixels at `pixels_per_point`.
    /// Empty meshes and clip rectangles are dropped; callbacks are not drawn.
    pub fn pack(
        primitives: &[ClippedPrimitive],
        pixels_per_point: f32,
        (width, height): (u32, u32),
    ) -> UiMeshes {
        let ppp = if pixels_per_point > 0.0 {
            pixels_per_point
        } else {
            1.0
        };
        let mut out = UiMeshes {
            screen_points: [width as f32 / ppp, height as f32 / ppp],
            ..UiMeshes::default()
        };
        for p in primitives {
            let Primitive::Mesh(mesh) = &p.primitive else {
                continue;
            };
            if mesh.indices.is_empty() || mesh.vertices.is_empty() {
                continue;
            }
            let to_px = |v: f32, max: u32| (v * ppp).round().clamp(0.0, max as f32) as u32;
            let (x0, y0) = (
                to_px(p.clip_rect.min.x, width),
                to_px(p.clip_rect.min.y, height),
            );
            let (x1, y1) = (
                to_px(p.clip_rect.max.x, width),
                to_px(p.clip_rect.max.y, height),
            );
            if x1 <= x0 || y1 <= y0 {
                continue;
            }
            out.draws.push(UiDraw {
                texture: mesh.texture_id,
                scissor: [x0, y0, x1 - x0, y1 - y0],
                first_index: out.indices.len() as u32,
                index_count: mesh.indices.len() as u32,
                vertex_offset: out.vertices.len() as i32,
            });
            out.indices.extend_from_slice(&mesh.indices);
            out.vertices.extend(mesh.vertices.iter().map(|v| UiVertex {
                pos: [v.pos.x, v.pos.y],
                uv: [v.uv.x, v.uv.y],
                color: v.color.to_array(),
            }));
        }
        out
    }

    /// Bytes of the vertex and the index arrays.
    pub fn bytes(&self) -> (u64, u64) {
        (
            std::mem::size_of_val(self.vertices.as_slice()) as u64,
            std::mem::size_of_val(self.indices.as_slice()) as u64,
        )
    }
}

/// What the frame declares the `ui` pass from: the meshes and the buffers' capacities (the
/// graph depends on the capacities only).
#[derive(Clone, Debug, Default)]
pub struct UiInputs {
    /// This frame's meshes.
    pub meshes: UiMeshes,
    /// Bytes of `ui vertices` and `ui indices` (each at least the meshes' bytes; see
    /// [`capacity`]).
    pub capacity: (u64, u64),
}

/// The two transient buffers of the `ui` pass.
#[derive(Clone, Copy, Debug)]
pub struct UiBuffers {
    /// `ui vertices`.
    pub vertices: BufferRef,
    /// `ui indices`.
    pub indices: BufferRef,
}

/// Declares `ui vertices` and `ui indices` at `capacity` bytes.
pub fn declare_buffers(fb: &mut FrameBuilder<'_>, capacity: (u64, u64)) -> UiBuffers {
    UiBuffers {
        vertices: fb.buffer("ui vertices", capacity.0.max(MIN_CAPACITY)),
        indices: fb.buffer("ui indices", capacity.1.max(MIN_CAPACITY)),
    }
}

/// Records the meshes into the buffers (in a transfer pass that declared `copy_to` of
/// both). Data past a buffer's capacity is not written (the draws past it are skipped).
pub fn upload(
    pc: &PassContext<'_, '_, '_>,
    buffers: UiBuffers,
    ui: &UiInputs,
) -> Result<(), RenderError> {
    let vertices: &[u8] = bytemuck::cast_slice(&ui.meshes.vertices);
    let indices: &[u8] = bytemuck::cast_slice(&ui.meshes.indices);
    let v = &vertices[..vertices.len().min(ui.capacity.0 as usize)];
    let i = &indices[..indices.len().min(ui.capacity.1 as usize)];
    if !v.is_empty() {
        update_buffer(pc.gpu, pc.cmd, pc.buffer(buffers.vertices)?, v);
    }
    if !i.is_empty() {
        update_buffer(pc.gpu, pc.cmd, pc.buffer(buffers.indices)?, i);
    }
    Ok(())
}

/// Declares the `ui` pass: reads the two buffers as vertices and indices, blends over
/// `output` (loaded), pre-rotated by `rotation` (`ui.vert` turns the positions, the
/// scissors turn here; R0 where `output` is upright).
pub fn declare(
    fb: &mut FrameBuilder<'_>,
    output: ImageRef,
    buffers: UiBuffers,
    ui: UiInputs,
    rotation: Rotation,
) {
    fb.pass("ui", PassKind::Raster, |p| {
        p.vertices(buffers.vertices)
            .indices(buffers.indices)
            .blend(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let Some(ui_gpu) = pc.shared()?.ui else {
                return Err(RenderError::Frame(
                    "the ui pass records without the renderer's ui objects".into(),
                ));
            };
            let mut ui_gpu = ui_gpu.borrow_mut();
            let pipeline = ui_gpu.pipeline(pc.gpu, (rp, sp))?;
            let (vb, ib) = (pc.buffer(buffers.vertices)?, pc.buffer(buffers.indices)?);
            let d = &pc.gpu.device;
            let viewport = vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: extent.width as f32,
                height: extent.height as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            let [w, h] = ui.meshes.screen_points;
            let push: [f32; 4] = [w.max(1e-3), h.max(1e-3), rotation.turns() as f32, 0.0];
            // The scissors are in upright pixels: clamp to the logical extent, then turn.
            let logical = rotation.swap((extent.width, extent.height));
            let layout = ui_gpu.layout();
            // SAFETY: recording in the subpass the pipeline was made for; the buffers are
            // the pass's declared vertex and index buffers; the push fits the layout.
            unsafe {
                d.cmd_bind_pipeline(pc.cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
                d.cmd_set_viewport(pc.cmd, 0, &[viewport]);
                d.cmd_bind_vertex_buffers(pc.cmd, 0, &[vb], &[0]);
                d.cmd_bind_index_buffer(pc.cmd, ib, 0, vk::IndexType::UINT32);
                d.cmd_push_constants(
                    pc.cmd,
                    layout,
                    vk::ShaderStageFlags::VERTEX,
                    0,
                    bytemuck::bytes_of(&push),
                );
            }
            let vertex_room = ui.capacity.0 / std::mem::size_of::<UiVertex>() as u64;
            let index_room = ui.capacity.1 / 4;
            for draw in &ui.meshes.draws {
                let Some(set) = ui_gpu.set_of(draw.texture) else {
                    continue;
                };
                let last_index = u64::from(draw.first_index) + u64::from(draw.index_count);
                if last_index > index_room || draw.vertex_offset as u64 >= vertex_room {
                    continue;
                }
                let [x, y, width, height] = draw.scissor;
                let x = x.min(logical.0);
                let y = y.min(logical.1);
                let upright = [x, y, width.min(logical.0 - x), height.min(logical.1 - y)];
                let [x, y, width, height] = rotation.rect(logical, upright);
                let scissor = vk::Rect2D {
                    offset: vk::Offset2D {
                        x: x as i32,
                        y: y as i32,
                    },
                    extent: vk::Extent2D { width, height },
                };
                if scissor.extent.width == 0 || scissor.extent.height == 0 {
                    continue;
                }
                // SAFETY: recording in the subpass with the pipeline bound; `set` has its
                // layout's set 0 and stays alive until the frame is done (textures are
                // retired frames later); the draw lies in the buffers.
                unsafe {
                    d.cmd_set_scissor(pc.cmd, 0, &[scissor]);
                    d.cmd_bind_descriptor_sets(
                        pc.cmd,
                        vk::PipelineBindPoint::GRAPHICS,
                        layout,
                        0,
                        &[set],
                        &[],
                    );
                    d.cmd_draw_indexed(
                        pc.cmd,
                        draw.index_count,
                        1,
                        draw.first_index,
                        draw.vertex_offset,
                        0,
                    );
                }
            }
            Ok(())
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::epaint::{Mesh, Vertex};
    use egui::{pos2, Color32, Rect};

    fn mesh(n: usize, texture: TextureId) -> Mesh {
        let mut m = Mesh::with_texture(texture);
        for i in 0..n {
            m.vertices.push(Vertex {
                pos: pos2(i as f32, 1.0),
                uv: pos2(0.5, 0.5),
                color: Color32::from_rgba_premultiplied(10, 20, 30, 40),
            });
        }
        m.indices = (0..n as u32).collect();
        m
    }

    fn prim(clip: Rect, m: Mesh) -> ClippedPrimitive {
        ClippedPrimitive {
            clip_rect: clip,
            primitive: Primitive::Mesh(m),
        }
    }

    #[test]
    fn meshes_are_packed_with_offsets_and_pixel_scissors() {
        let clip = Rect::from_min_max(pos2(10.0, 5.0), pos2(50.5, 200.0));
        let prims = [
            prim(clip, mesh(3, TextureId::default())),
            prim(Rect::EVERYTHING, mesh(6, TextureId::Managed(7))),
            // Empty clip: dropped.
            prim(Rect::NOTHING, mesh(3, TextureId::default())),
        ];
        let m = UiMeshes::pack(&prims, 2.0, (320, 180));
        assert_eq!(m.screen_points, [160.0, 90.0]);
        assert_eq!(m.vertices.len(), 9);
        assert_eq!(m.indices.len(), 9);
        assert_eq!(m.draws.len(), 2);
        assert_eq!(m.draws[0].scissor, [20, 10, 81, 170]);
        assert_eq!(m.draws[1].scissor, [0, 0, 320, 180]);
        assert_eq!((m.draws[1].first_index, m.draws[1].vertex_offset), (3, 3));
        assert_eq!(m.draws[1].texture, TextureId::Managed(7));
        assert_eq!(m.vertices[0].color, [10, 20, 30, 40]);
        assert_eq!(std::mem::size_of::<UiVertex>(), 20);
        assert_eq!(m.bytes(), (9 * 20, 9 * 4));
    }

    #[test]
    fn capacities_are_powers_of_two_with_a_floor() {
        assert_eq!(capacity(0), MIN_CAPACITY);
        assert_eq!(capacity(MIN_CAPACITY + 1), 2 * MIN_CAPACITY);
        assert_eq!(capacity(300_000), 512 * 1024);
    }
}
