//! The scene on the GPU (device lifetime): one vertex and one index buffer for every mesh,
//! the textures with their mip chains, one descriptor set per material, and the draw lists.
//! Everything is uploaded through the executor's staging ring.

use super::pipelines::Layouts;
use crate::RenderError;
use ash::vk;
use glam::{Mat4, Vec3};
use tessera_scene::{AlphaMode, Scene};
use tessera_vk::executor::Executor;
use tessera_vk::resources::{OwnedBuffer, OwnedImage};
use tessera_vk::Gpu;

/// Most vertices deformed (morph targets, skins) per frame: 48 MiB written by the `deform`
/// pass per frame (80 MiB of rest vertices and influences kept on the device); also the most
/// vec4s of joint matrices and morph weights uploaded per frame (16 MiB).
pub const MAX_DEFORMED_VERTICES: i64 = 1 << 20;

/// The deformation's device-resident data (`tessera_scene::deform_gpu::DeformLayout`),
/// uploaded with the scene, which the `deform` pass reads every frame.
#[derive(Debug)]
pub struct DeformGpu {
    /// `deform vertices`: each deformed vertex's rest vertex and skin influences.
    pub vertices: OwnedBuffer,
    /// `deform draws`: each deformed draw's offsets.
    pub draws: OwnedBuffer,
    /// `morph deltas`: position and normal deltas, target after target.
    pub deltas: OwnedBuffer,
    /// Deformed vertices.
    pub count: u32,
}

impl DeformGpu {
    /// The bytes of its three buffers, in the `deform` pass's binding order.
    pub fn bytes(&self) -> [u64; 3] {
        [self.vertices.size, self.draws.size, self.deltas.size]
    }

    /// Its buffers, in the `deform` pass's binding order.
    pub fn buffers(&self) -> [vk::Buffer; 3] {
        [self.vertices.buffer, self.draws.buffer, self.deltas.buffer]
    }
}

/// One primitive of one instance.
#[derive(Clone, Copy, Debug)]
pub struct Draw {
    /// First index in the index buffer.
    pub first_index: u32,
    /// Indices.
    pub index_count: u32,
    /// Added to each index.
    pub vertex_offset: i32,
    /// Material index.
    pub material: usize,
    /// World transform.
    pub transform: Mat4,
    /// Last frame's world transform (motion vectors of animated instances; `transform` for
    /// a static one).
    pub prev_transform: Mat4,
    /// Index into `Scene::instances`: what poses it when animations play.
    pub instance: usize,
    /// Object-space centre of its bounds.
    pub local_centre: Vec3,
    /// Where its vertices start in `animated vertices` when it deforms (morph targets, a
    /// skin) and the frame has them.
    pub deformed: Option<i32>,
    /// World-space centre of its bounds (back-to-front sorting of transparents).
    pub centre: Vec3,
}

/// Per-material constants pushed with each draw (`Draw` in `material.glsl`).
#[derive(Clone, Copy, Debug)]
pub struct MaterialConstants {
    /// Base colour factor (linear).
    pub base_color: [f32; 4],
    /// Emissive factor.
    pub emissive: [f32; 4],
    /// Metallic, roughness, normal scale, occlusion strength.
    pub params: [f32; 4],
    /// x: alpha-mask cutoff (-1: no mask).
    pub alpha: [f32; 4],
    /// No back-face culling.
    pub double_sided: bool,
    /// Drawn in the transparent pass.
    pub blend: bool,
}

/// The uploaded scene.
#[derive(Debug)]
pub struct SceneGpu {
    /// All vertices.
    pub vertices: OwnedBuffer,
    /// All indices (u32).
    pub indices: OwnedBuffer,
    textures: Vec<OwnedImage>,
    defaults: Vec<OwnedImage>,
    sampler: vk::Sampler,
    pool: vk::DescriptorPool,
    /// One descriptor set per material (its five textures).
    pub material_sets: Vec<vk::DescriptorSet>,
    /// Per-material constants.
    pub materials: Vec<MaterialConstants>,
    /// Opaque and masked draws.
    pub opaque: Vec<Draw>,
    /// Transparent draws (sorted per frame, back to front).
    pub transparent: Vec<Draw>,
    /// Vertices all deforming draws take in `animated vertices`.
    deformed_vertices: i64,
    /// What the `deform` pass reads, when any draw deforms.
    pub deform: Option<DeformGpu>,
}

/// [`SceneGpu::pose`] of one draw list.
fn pose_draws(draws: &mut [Draw], transforms: &[Mat4], moving: bool) {
    for d in draws {
        let Some(&t) = transforms.get(d.instance) else {
            continue;
        };
        d.prev_transform = if moving { d.transform } else { t };
        d.transform = t;
        d.centre = t.transform_point3(d.local_centre);
    }
}

fn texture_format(srgb: bool) -> vk::Format {
    if srgb {
        vk::Format::R8G8B8A8_SRGB
    } else {
        vk::Format::R8G8B8A8_UNORM
    }
}

fn upload_texture(
    gpu: &Gpu,
    exec: &mut Executor,
    name: &str,
    srgb: bool,
    width: u32,
    height: u32,
    mips: &[Vec<u8>],
) -> Result<OwnedImage, RenderError> {
    let extent = vk::Extent2D { width, height };
    let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
    let image = OwnedImage::new(
        gpu,
        texture_format(srgb),
        extent,
        mips.len() as u32,
        usage,
        name,
    )?;
    let levels: Vec<&[u8]> = mips.iter().map(Vec::as_slice).collect();
    if let Err(e) = exec.upload_image(image.image, image.format, extent, &levels) {
        let mut image = image;
        image.destroy(gpu);
        return Err(e.into());
    }
    Ok(image)
}

impl SceneGpu {
    /// Uploads `scene` (geometry, textures, materials) through `exec`'s staging ring.
    pub fn new(
        gpu: &Gpu,
        exec: &mut Executor,
        layouts: &Layouts,
        scene: &Scene,
    ) -> Result<SceneGpu, RenderError> {
        let vertex_bytes = std::mem::size_of_val(scene.vertices.as_slice()) as u64;
        let index_bytes = std::mem::size_of_val(scene.indices.as_slice()) as u64;
        let to = vk::BufferUsageFlags::TRANSFER_DST;
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER | to;
        let vertices = OwnedBuffer::new(gpu, vertex_bytes, usage, false, "scene vertices")?;
        let usage = vk::BufferUsageFlags::INDEX_BUFFER | to;
        let indices = match OwnedBuffer::new(gpu, index_bytes, usage, false, "scene indices") {
            Ok(b) => b,
            Err(e) => {
                let mut vertices = vertices;
                vertices.destroy(gpu);
                return Err(e.into());
            }
        };
        let mut out = SceneGpu {
            vertices,
            indices,
            textures: Vec::new(),
            defaults: Vec::new(),
            sampler: vk::Sampler::null(),
            pool: vk::DescriptorPool::null(),
            material_sets: Vec::new(),
            materials: Vec::new(),
            opaque: Vec::new(),
            transparent: Vec::new(),
            deformed_vertices: 0,
            deform: None,
        };
        match out.fill(gpu, exec, layouts, scene) {
            Ok(()) => Ok(out),
            Err(e) => {
                out.destroy(gpu);
                Err(e)
            }
        }
    }

    fn fill(
        &mut self,
        gpu: &Gpu,
        exec: &mut Executor,
        layouts: &Layouts,
        scene: &Scene,
    ) -> Result<(), RenderError> {
        if !scene.vertices.is_empty() {
            exec.upload_buffer(
                self.vertices.buffer,
                0,
                bytemuck::cast_slice(&scene.vertices),
            )?;
        }
        if !scene.indices.is_empty() {
            exec.upload_buffer(self.indices.buffer, 0, bytemuck::cast_slice(&scene.indices))?;
        }
        for t in &scene.textures {
            let image = upload_texture(gpu, exec, &t.name, t.srgb, t.width, t.height, &t.mips)?;
            self.textures.push(image);
        }
        // 1×1 stand-ins for absent textures: white (sRGB and linear), a flat normal.
        for (name, srgb, texel) in [
            ("default white (sRGB)", true, [255u8, 255, 255, 255]),
            ("default white", false, [255, 255, 255, 255]),
            ("default normal", false, [128, 128, 255, 255]),
        ] {
            let image = upload_texture(gpu, exec, name, srgb, 1, 1, &[texel.to_vec()])?;
            self.defaults.push(image);
        }
        let sampler_info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
            .address_mode_u(vk::SamplerAddressMode::REPEAT)
            .address_mode_v(vk::SamplerAddressMode::REPEAT)
            .address_mode_w(vk::SamplerAddressMode::REPEAT)
            .max_lod(vk::LOD_CLAMP_NONE);
        // SAFETY: a complete create info; destroyed in `destroy`.
        self.sampler = unsafe { gpu.device.create_sampler(&sampler_info, None) }?;
        let materials = scene.materials.len().max(1) as u32;
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: 5 * materials,
        }];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(materials)
            .pool_sizes(&sizes);
        // SAFETY: a complete create info; destroyed in `destroy`.
        self.pool = unsafe { gpu.device.create_descriptor_pool(&pool_info, None) }?;
        let set_layouts = vec![layouts.material; scene.materials.len()];
        if !set_layouts.is_empty() {
            let alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(self.pool)
                .set_layouts(&set_layouts);
            // SAFETY: the pool was sized for one set per material.
            self.material_sets = unsafe { gpu.device.allocate_descriptor_sets(&alloc) }?;
        }
        for (m, &set) in scene.materials.iter().zip(&self.material_sets) {
            let view = |t: Option<usize>, default: usize| {
                t.and_then(|i| self.textures.get(i))
                    .map_or(self.defaults[default].view, |im| im.view)
            };
            let views = [
                view(m.base_color_texture, 0),
                view(m.metallic_roughness_texture, 1),
                view(m.normal_texture, 2),
                view(m.occlusion_texture, 1),
                view(m.emissive_texture, 0),
            ];
            let infos: Vec<[vk::DescriptorImageInfo; 1]> = views
                .iter()
                .map(|&v| {
                    [vk::DescriptorImageInfo {
                        sampler: self.sampler,
                        image_view: v,
                        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    }]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = infos
                .iter()
                .enumerate()
                .map(|(b, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(b as u32)
                        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                        .image_info(info)
                })
                .collect();
            // SAFETY: the set, views and sampler are live; the set is not in use yet.
            unsafe { gpu.device.update_descriptor_sets(&writes, &[]) };
            let (cutoff, blend) = match m.alpha_mode {
                AlphaMode::Opaque => (-1.0, false),
                AlphaMode::Mask { cutoff } => (cutoff, false),
                AlphaMode::Blend => (-1.0, true),
            };
            self.materials.push(MaterialConstants {
                base_color: m.base_color,
                emissive: [m.emissive[0], m.emissive[1], m.emissive[2], 0.0],
                params: [
                    m.metallic,
                    m.roughness,
                    m.normal_scale,
                    m.occlusion_strength,
                ],
                alpha: [cutoff, 0.0, 0.0, 0.0],
                double_sided: m.double_sided,
                blend,
            });
        }
        // Where each deforming draw's vertices go in `animated vertices`, in the order the
        // scene writes them.
        let mut deformed = std::collections::HashMap::new();
        let mut at = 0i64;
        for (instance, primitive, count) in scene.deformed_draws() {
            deformed.insert((instance, primitive), at);
            at += i64::from(count);
        }
        if at > MAX_DEFORMED_VERTICES {
            // Past the cap they stay at rest.
            log::warn!(
                "{at} vertices deform, more than the {MAX_DEFORMED_VERTICES} deformed per frame: \
                 morph targets and skins are drawn at rest"
            );
            deformed.clear();
            at = 0;
        }
        if at > 0 {
            let layout = scene.deform_layout();
            if layout.frame_vec4s as i64 > MAX_DEFORMED_VERTICES {
                log::warn!(
                    "{} vec4s of joint matrices and morph weights per frame, more than the \
                     {MAX_DEFORMED_VERTICES} uploaded per frame: morph targets and skins are \
                     drawn at rest",
                    layout.frame_vec4s
                );
                deformed.clear();
                at = 0;
            } else {
                self.deform = Some(upload_deform(gpu, exec, &layout)?);
            }
        }
        self.deformed_vertices = at;
        for (instance, inst) in scene.instances.iter().enumerate() {
            let Some(mesh) = scene.meshes.get(inst.mesh) else {
                continue;
            };
            for (pi, p) in mesh.primitives.iter().enumerate() {
                if p.index_count == 0 || p.material >= self.materials.len() {
                    continue;
                }
                let local_centre = (p.bounds.min + p.bounds.max) * 0.5;
                let d = Draw {
                    first_index: p.first_index,
                    index_count: p.index_count,
                    vertex_offset: p.vertex_offset,
                    material: p.material,
                    transform: inst.transform,
                    prev_transform: inst.transform,
                    instance,
                    local_centre,
                    deformed: deformed
                        .get(&(instance, pi))
                        .and_then(|&o| i32::try_from(o).ok()),
                    centre: inst.transform.transform_point3(local_centre),
                };
                if self.materials[p.material].blend {
                    self.transparent.push(d);
                } else {
                    self.opaque.push(d);
                }
            }
        }
        Ok(())
    }

    /// Poses the draws: `transforms` (by instance, `Scene::instance_transforms_at`) become
    /// their transforms, and the ones they had their previous transforms (`None`: the
    /// previous ones are the new ones, a first frame without motion).
    pub fn pose(&mut self, transforms: &[Mat4], moving: bool) {
        pose_draws(&mut self.opaque, transforms, moving);
        pose_draws(&mut self.transparent, transforms, moving);
    }

    /// Whether any draw deforms (the frame then uploads `animated vertices`).
    pub fn deforms(&self) -> bool {
        self.deformed_vertices > 0
    }

    /// Frees everything (the GPU no longer uses the scene).
    pub fn destroy(&mut self, gpu: &Gpu) {
        if let Some(mut d) = self.deform.take() {
            d.vertices.destroy(gpu);
            d.draws.destroy(gpu);
            d.deltas.destroy(gpu);
        }
        self.vertices.destroy(gpu);
        self.indices.destroy(gpu);
        for t in self.textures.iter_mut().chain(self.defaults.iter_mut()) {
            t.destroy(gpu);
        }
        // SAFETY: the GPU no longer uses the scene (caller's contract); null handles are
        // ignored by Vulkan.
        unsafe {
            gpu.device.destroy_descriptor_pool(self.pool, None);
            gpu.device.destroy_sampler(self.sampler, None);
        }
        self.pool = vk::DescriptorPool::null();
        self.sampler = vk::Sampler::null();
    }
}

/// Uploads the deformation's static data into three storage buffers (none empty).
fn upload_deform(
    gpu: &Gpu,
    exec: &mut Executor,
    layout: &tessera_scene::deform_gpu::DeformLayout,
) -> Result<DeformGpu, RenderError> {
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
    let data: [&[u8]; 3] = [
        bytemuck::cast_slice(&layout.vertices),
        bytemuck::cast_slice(&layout.draws),
        bytemuck::cast_slice(&layout.deltas),
    ];
    let names = ["deform vertices", "deform draws", "morph deltas"];
    let mut made: Vec<OwnedBuffer> = Vec::with_capacity(3);
    for (bytes, name) in data.iter().zip(names) {
        let size = (bytes.len() as u64).max(16);
        let made_now = OwnedBuffer::new(gpu, size, usage, false, name)
            .map_err(RenderError::from)
            .and_then(|b| {
                if bytes.is_empty() {
                    return Ok(b);
                }
                match exec.upload_buffer(b.buffer, 0, bytes) {
                    Ok(()) => Ok(b),
                    Err(e) => {
                        let mut b = b;
                        b.destroy(gpu);
                        Err(e.into())
                    }
                }
            });
        match made_now {
            Ok(b) => made.push(b),
            Err(e) => {
                for b in &mut made {
                    b.destroy(gpu);
                }
                return Err(e);
            }
        }
    }
    let [vertices, draws, deltas]: [OwnedBuffer; 3] = made
        .try_into()
        .map_err(|_| RenderError::Frame("the deformation's three buffers".into()))?;
    Ok(DeformGpu {
        vertices,
        draws,
        deltas,
        count: layout.vertices.len() as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(instance: usize) -> Draw {
        Draw {
            first_index: 0,
            index_count: 3,
            vertex_offset: 0,
            material: 0,
            transform: Mat4::IDENTITY,
            prev_transform: Mat4::IDENTITY,
            instance,
            local_centre: Vec3::ONE,
            deformed: None,
            centre: Vec3::ONE,
        }
    }

    /// A moving frame keeps the transform drawn last as the previous one (TAA's motion);
    /// a first frame has none, so its previous transform is its own (no motion).
    #[test]
    fn posing_keeps_last_frames_transform_for_the_motion_vectors() {
        let mut draws = vec![draw(0), draw(1)];
        let a = Mat4::from_translation(Vec3::X);
        let b = Mat4::from_translation(Vec3::Y);
        pose_draws(&mut draws, &[a, Mat4::IDENTITY], false);
        assert_eq!((draws[0].transform, draws[0].prev_transform), (a, a));
        assert_eq!(draws[0].centre, Vec3::new(2.0, 1.0, 1.0));
        pose_draws(&mut draws, &[b, Mat4::IDENTITY], true);
        assert_eq!((draws[0].transform, draws[0].prev_transform), (b, a));
        // The static instance's draw never moves.
        assert_eq!(draws[1].transform, Mat4::IDENTITY);
        assert_eq!(draws[1].prev_transform, Mat4::IDENTITY);
        // An instance the transforms do not cover is left alone.
        let mut lone = vec![draw(5)];
        pose_draws(&mut lone, &[a], true);
        assert_eq!(lone[0].transform, Mat4::IDENTITY);
    }
}
