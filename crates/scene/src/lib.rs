//! Tessera's scene loading: everything the renderer draws, gathered into one CPU-side
//! [`Scene`] that uploads as one vertex buffer, one index buffer, a material table, a list of
//! mip-mapped RGBA8 textures, instances with world transforms, lights and a camera.
//!
//! Two sources feed it: glTF 2.0 files (`.gltf`, `.glb`, through the `gltf` crate's parser
//! with this crate's own bounds-checked accessor reads) and TOML scene files (`.toml`, see
//! [`scene_file`]) that place procedural shapes, glTF models and moving lights. [`builtin`]
//! is the default courtyard scene, compiled into the crate so it needs no file.
//!
//! Files are read through [`assets::Assets`] ([`load_from`]): [`assets::Files`] on the
//! desktop, the APK's asset manager on Android, [`assets::Memory`] in tests.
//!
//! Loading never panics on input: every malformed file is a [`SceneError`] naming the file
//! and, where known, the glTF object or the scene-file key.
//!
//! Hostile input is bounded: files are read only if they are regular files, with their
//! size limit enforced while reading ([`tessera_fsio::read_limited`]); a glTF model reads
//! only data URIs and files inside its own folder; and every count is checked against the
//! caps ([`MAX_VERTICES`], [`MAX_TEXELS`], [`MAX_INSTANCES`], ...) before the memory it
//! implies is allocated, so peak memory stays within the bound stated in [`limits`]
//! (about 5 GiB with every cap reached), and assembling a scene is linear in
//! its output.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod animation;
pub mod assets;
pub mod deform;
pub mod deform_gpu;
mod error;
mod geometry;
mod gltf_load;
mod gltf_uri;
mod gltf_values;
pub mod limits;
pub mod procedural;
pub mod scene_file;
pub mod texture;

use std::path::Path;

use glam::{Mat4, Vec3};

pub use error::SceneError;
pub use geometry::{generate_normals, generate_tangents};
pub use limits::{
    MAX_ANIMATION_VALUES, MAX_DRAWN_TRIANGLES, MAX_FILE_BYTES, MAX_INDICES, MAX_INSTANCES,
    MAX_LIGHTS, MAX_MATERIALS, MAX_MORPH_DELTAS, MAX_NAME_BYTES, MAX_PRIMITIVES,
    MAX_SCENE_FILE_BYTES, MAX_TEXELS, MAX_TEXTURE_TEXELS, MAX_VERTICES,
};
pub use texture::{mip_chain, mip_count};

/// One vertex of the shared vertex buffer, laid out for direct upload (48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Object-space position.
    pub position: [f32; 3],
    /// Unit object-space normal.
    pub normal: [f32; 3],
    /// Unit tangent (xyz, orthogonal to the normal) and handedness (w = ±1): the bitangent is
    /// `cross(normal, tangent.xyz) * tangent.w`.
    pub tangent: [f32; 4],
    /// Texture coordinate set 0.
    pub uv: [f32; 2],
}

/// An axis-aligned bounding box. [`Aabb::EMPTY`] (min = +inf, max = -inf) is the identity of
/// [`Aabb::union`], so bounds accumulate without special cases.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box: contains nothing, unions to the other operand.
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// Whether the box contains no point (the scene or primitive had no geometry).
    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x || self.min.y > self.max.y || self.min.z > self.max.z
    }

    /// Grows the box to contain `p`.
    pub fn extend(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The smallest box containing both.
    pub fn union(self, other: Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Centre of the box (meaningless for an empty box).
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// The box around the eight transformed corners: conservative for any affine transform.
    pub fn transformed(&self, m: &Mat4) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        let mut out = Aabb::EMPTY;
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            );
            out.extend(m.transform_point3(c));
        }
        out
    }
}

/// A named group of primitives, drawn together by an [`Instance`].
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Name from the file, or a generated one (`mesh 3`, `sphere`).
    pub name: String,
    /// Triangle-list draws.
    pub primitives: Vec<Primitive>,
    /// Default morph target weights (glTF `mesh.weights`); empty without morph targets.
    pub weights: Vec<f32>,
}

/// One indexed triangle-list draw: `index_count` indices from `first_index` of the shared
/// index buffer, each relative to `vertex_offset` in the shared vertex buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// First index in [`Scene::indices`].
    pub first_index: u32,
    /// Number of indices (a multiple of 3).
    pub index_count: u32,
    /// Added to every index to address [`Scene::vertices`] (`vkCmdDrawIndexed`'s vertexOffset).
    pub vertex_offset: i32,
    /// Number of vertices this primitive owns from `vertex_offset` on (every index is below it).
    pub vertex_count: u32,
    /// Index into [`Scene::materials`]; always valid.
    pub material: usize,
    /// Object-space bounds of the primitive's vertices (at rest).
    pub bounds: Aabb,
    /// Skin influences and morph targets, when the vertices deform (shared by copies).
    pub deform: Option<std::sync::Arc<deform::Deform>>,
}

/// How a material's alpha is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    Opaque,
    /// Fragments with alpha below `cutoff` are discarded.
    Mask {
        /// Alpha threshold.
        cutoff: f32,
    },
    /// Alpha-blended over what is behind (drawn sorted, after opaque geometry).
    Blend,
}

/// A metallic-roughness PBR material (the glTF core model). Texture fields index
/// [`Scene::textures`]; factors multiply the texture values as in glTF.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name from the file, or a generated one.
    pub name: String,
    /// Linear RGBA base colour factor.
    pub base_color: [f32; 4],
    /// Metallic factor, 0..=1.
    pub metallic: f32,
    /// Perceptual roughness factor, 0..=1.
    pub roughness: f32,
    /// Linear emitted radiance, already multiplied by `KHR_materials_emissive_strength`.
    pub emissive: [f32; 3],
    /// Scale of the normal map's xy.
    pub normal_scale: f32,
    /// How much the occlusion texture darkens, 0..=1.
    pub occlusion_strength: f32,
    /// sRGB texture: RGB multiplies `base_color`, A its alpha.
    pub base_color_texture: Option<usize>,
    /// Linear texture: G roughness, B metallic.
    pub metallic_roughness_texture: Option<usize>,
    /// Linear tangent-space normal map.
    pub normal_texture: Option<usize>,
    /// Linear texture: R occlusion.
    pub occlusion_texture: Option<usize>,
    /// sRGB texture multiplying `emissive`.
    pub emissive_texture: Option<usize>,
    /// How alpha is used.
    pub alpha_mode: AlphaMode,
    /// Whether back faces are drawn (with flipped normals).
    pub double_sided: bool,
    /// `KHR_texture_transform` of the material's textures as a 2×3 matrix, columns
    /// `[a, b, c, d, tx, ty]`: `uv' = (a u + c v + tx, b u + d v + ty)`. The glTF loader has
    /// applied it to the UVs of every primitive drawn with the material; kept to say so.
    pub uv_transform: Option<[f32; 6]>,
}

impl Default for Material {
    /// glTF's default material: white, fully metallic and rough, as the spec prescribes for
    /// primitives without a material.
    fn default() -> Self {
        Material {
            name: "default".into(),
            base_color: [1.0; 4],
            metallic: 1.0,
            roughness: 1.0,
            emissive: [0.0; 3],
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            base_color_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            occlusion_texture: None,
            emissive_texture: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            uv_transform: None,
        }
    }
}

/// An RGBA8 texture with its full mip chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Name from the file (image name or URI), or the procedural pattern's name.
    pub name: String,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Whether RGB is sRGB-encoded (upload as `R8G8B8A8_SRGB`); alpha is always linear.
    pub srgb: bool,
    /// Levels 0..=log2(max(width, height)), each `max(1, w >> i) * max(1, h >> i) * 4` bytes,
    /// box-filtered on the CPU (in linear space for sRGB textures).
    pub mips: Vec<Vec<u8>>,
}

/// A mesh placed in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Index into [`Scene::meshes`].
    pub mesh: usize,
    /// Object-to-world transform (the node hierarchy already flattened).
    pub transform: Mat4,
}

/// What kind of punctual light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LightKind {
    /// Infinitely far; lights along `direction`.
    Directional,
    /// Radiates from `position` in all directions.
    Point,
    /// Radiates from `position` in a cone around `direction`.
    Spot {
        /// Angle (radians) from the axis where the falloff starts.
        inner_cone: f32,
        /// Angle (radians) from the axis where the light reaches zero.
        outer_cone: f32,
    },
}

/// How a light moves over time: a circle around `center` in the horizontal plane plus an
/// optional vertical bob, so many lights animate from a few numbers and the CPU and GPU
/// agree on where each light is at time `t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// Centre of the circle.
    pub center: Vec3,
    /// Radius of the circle (0 = only bobbing).
    pub radius: f32,
    /// Angular speed around the circle in rad/s (negative = clockwise seen from above).
    pub speed: f32,
    /// Angle on the circle at t = 0, radians.
    pub phase: f32,
    /// Amplitude of the vertical bob.
    pub bob_amplitude: f32,
    /// Angular frequency of the bob in rad/s.
    pub bob_speed: f32,
}

impl Motion {
    /// Position at time `t` seconds: `center + (r cos a, bob, r sin a)` with `a = phase + speed t`.
    pub fn position_at(&self, t: f32) -> Vec3 {
        let a = self.phase + self.speed * t;
        let bob = self.bob_amplitude * (self.bob_speed * t + self.phase).sin();
        self.center + Vec3::new(self.radius * a.cos(), bob, self.radius * a.sin())
    }
}

/// A punctual light (glTF `KHR_lights_punctual` semantics: intensity in candela for point and
/// spot lights, lux for directional ones).
#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    /// Directional, point or spot.
    pub kind: LightKind,
    /// Linear RGB colour.
    pub color: [f32; 3],
    /// Intensity (see the type's docs for units).
    pub intensity: f32,
    /// World position at t = 0 (unused for directional lights).
    pub position: Vec3,
    /// Unit world direction the light shines towards (unused for point lights).
    pub direction: Vec3,
    /// Distance where the light's influence ends; `None` = infinite (inverse-square only).
    pub range: Option<f32>,
    /// How the light moves; `None` = static.
    pub motion: Option<Motion>,
}

impl Light {
    /// World position at time `t` seconds (`position` for a static light).
    pub fn position_at(&self, t: f32) -> Vec3 {
        match &self.motion {
            Some(m) => m.position_at(t),
            None => self.position,
        }
    }
}

/// A perspective camera in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position.
    pub position: Vec3,
    /// Point looked at.
    pub target: Vec3,
    /// Up direction (not necessarily orthogonal to the view direction).
    pub up: Vec3,
    /// Vertical field of view, radians.
    pub yfov: f32,
    /// Near plane distance.
    pub znear: f32,
    /// Far plane distance; `None` = infinite far plane.
    pub zfar: Option<f32>,
    /// Width / height the file asks for; `None` = the viewport's.
    pub aspect: Option<f32>,
}

impl Camera {
    /// Right-handed view matrix (world to camera).
    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.position, self.target, self.up)
    }
}

/// Everything the renderer draws, ready to upload.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Name (file stem, or the scene file's `name`).
    pub name: String,
    /// All meshes' vertices: one vertex buffer.
    pub vertices: Vec<Vertex>,
    /// All meshes' indices, each relative to its primitive's `vertex_offset`: one index buffer.
    pub indices: Vec<u32>,
    /// Meshes, referenced by instances.
    pub meshes: Vec<Mesh>,
    /// Materials; every primitive's `material` indexes this.
    pub materials: Vec<Material>,
    /// Textures referenced by materials.
    pub textures: Vec<Texture>,
    /// Placed meshes with world transforms.
    pub instances: Vec<Instance>,
    /// Punctual lights.
    pub lights: Vec<Light>,
    /// The camera the file asks for, if any.
    pub camera: Option<Camera>,
    /// World-space bounds of all instances (empty when nothing is drawn).
    pub bounds: Aabb,
    /// Animated glTF models: what poses their instances over time
    /// ([`Scene::instance_transforms_at`]); empty for a static scene.
    pub rigs: Vec<animation::Rig>,
}

impl Scene {
    /// An empty scene with a name.
    pub fn empty(name: impl Into<String>) -> Scene {
        Scene {
            name: name.into(),
            vertices: Vec::new(),
            indices: Vec::new(),
            meshes: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            instances: Vec::new(),
            lights: Vec::new(),
            camera: None,
            bounds: Aabb::EMPTY,
            rigs: Vec::new(),
        }
    }

    /// Whether any instance moves when animations play.
    pub fn is_animated(&self) -> bool {
        self.rigs.iter().any(|r| !r.animations.is_empty())
    }

    /// The longest animation's duration in seconds (0 for a static scene).
    pub fn animation_duration(&self) -> f32 {
        self.rigs.iter().map(|r| r.duration()).fold(0.0, f32::max)
    }

    /// The draws whose vertices deform when animations play, in the order
    /// [`Scene::deformed_vertices_at`] writes them: `(instance, primitive index in its
    /// mesh, vertex count)`.
    pub fn deformed_draws(&self) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        for rig in &self.rigs {
            for &(instance, visit) in &rig.instances {
                let Some(mesh) = self
                    .instances
                    .get(instance)
                    .and_then(|i| self.meshes.get(i.mesh))
                else {
                    continue;
                };
                let skinned = rig.skin_of(visit).is_some();
                for (pi, p) in mesh.primitives.iter().enumerate() {
                    if let Some(d) = &p.deform {
                        if !d.targets.is_empty() || (skinned && !d.joints.is_empty()) {
                            out.push((instance, pi, p.vertex_count));
                        }
                    }
                }
            }
        }
        out
    }

    /// The deformed vertices of every [`Scene::deformed_draws`] entry with the animations at
    /// `t` seconds, one draw after the other (object space of each instance).
    pub fn deformed_vertices_at(&self, t: f32) -> Vec<Vertex> {
        let mut out = Vec::new();
        for rig in &self.rigs {
            let pose = rig.pose_at(t);
            for &(instance, visit) in &rig.instances {
                let Some(mesh) = self
                    .instances
                    .get(instance)
                    .and_then(|i| self.meshes.get(i.mesh))
                else {
                    continue;
                };
                let joints = rig.joint_matrices(&pose, visit);
                let node = rig.visits.get(visit).map_or(0, |v| v.node);
                let weights = pose
                    .weights
                    .get(node)
                    .filter(|w| !w.is_empty())
                    .map_or(mesh.weights.as_slice(), Vec::as_slice);
                for p in &mesh.primitives {
                    let Some(d) = &p.deform else {
                        continue;
                    };
                    if d.targets.is_empty() && (joints.is_none() || d.joints.is_empty()) {
                        continue;
                    }
                    let start = p.vertex_offset.max(0) as usize;
                    let base = self
                        .vertices
                        .get(start..start + p.vertex_count as usize)
                        .unwrap_or(&[]);
                    d.apply(base, weights, joints.as_deref(), &mut out);
                }
            }
        }
        out
    }

    /// Every instance's world transform with the animations at `t` seconds (each looping
    /// over its duration), in [`Scene::instances`] order; static instances keep theirs.
    pub fn instance_transforms_at(&self, t: f32) -> Vec<Mat4> {
        let mut out: Vec<Mat4> = self.instances.iter().map(|i| i.transform).collect();
        for rig in &self.rigs {
            let world = rig.visits_at(t);
            for &(instance, visit) in &rig.instances {
                if let (Some(o), Some(w)) = (out.get_mut(instance), world.get(visit)) {
                    *o = *w;
                }
            }
        }
        out
    }

    /// Every light's world position at time `t` seconds, in [`Scene::lights`] order.
    pub fn light_positions_at(&self, t: f32) -> Vec<Vec3> {
        self.lights.iter().map(|l| l.position_at(t)).collect()
    }

    /// The lights as they are at time `t`: `position` moved, `motion` kept.
    pub fn lights_at(&self, t: f32) -> Vec<Light> {
        self.lights
            .iter()
            .map(|l| Light {
                position: l.position_at(t),
                ..l.clone()
            })
            .collect()
    }

    /// Number of triangles drawn by all instances.
    pub fn triangle_count(&self) -> usize {
        self.instances
            .iter()
            .map(|i| {
                self.meshes[i.mesh]
                    .primitives
                    .iter()
                    .map(|p| p.index_count as usize / 3)
                    .sum::<usize>()
            })
            .sum()
    }

    /// World-space bounds of one instance.
    pub fn instance_bounds(&self, instance: &Instance) -> Aabb {
        self.meshes[instance.mesh]
            .primitives
            .iter()
            .fold(Aabb::EMPTY, |b, p| {
                b.union(p.bounds.transformed(&instance.transform))
            })
    }

    /// Recomputes [`Scene::bounds`] from the instances.
    pub fn update_bounds(&mut self) {
        self.bounds = self
            .instances
            .iter()
            .fold(Aabb::EMPTY, |b, i| b.union(self.instance_bounds(i)));
    }

    /// Appends geometry as a new primitive (indices relative to the new vertices) and returns
    /// it; the caller adds it to a mesh. Bounds are computed here.
    pub fn push_primitive(
        &mut self,
        vertices: &[Vertex],
        indices: &[u32],
        material: usize,
    ) -> Primitive {
        let mut bounds = Aabb::EMPTY;
        for v in vertices {
            bounds.extend(Vec3::from(v.position));
        }
        let p = Primitive {
            first_index: self.indices.len() as u32,
            index_count: indices.len() as u32,
            vertex_offset: self.vertices.len() as i32,
            vertex_count: vertices.len() as u32,
            material,
            bounds,
            deform: None,
        };
        self.vertices.extend_from_slice(vertices);
        self.indices.extend_from_slice(indices);
        p
    }

    /// Merges `other` into this scene with its instances and lights placed by `transform`
    /// (meshes, materials and textures are appended and re-indexed; the camera is dropped).
    pub fn append(&mut self, other: Scene, transform: Mat4) {
        let (vbase, ibase) = (self.vertices.len() as i32, self.indices.len() as u32);
        let (mbase, matbase, tbase) =
            (self.meshes.len(), self.materials.len(), self.textures.len());
        let ibase_instances = self.instances.len();
        self.vertices.extend(other.vertices);
        self.indices.extend(other.indices);
        self.meshes.extend(other.meshes.into_iter().map(|mut m| {
            for p in &mut m.primitives {
                p.vertex_offset += vbase;
                p.first_index += ibase;
                p.material += matbase;
            }
            m
        }));
        let shift = |t: Option<usize>| t.map(|t| t + tbase);
        self.materials
            .extend(other.materials.into_iter().map(|m| Material {
                base_color_texture: shift(m.base_color_texture),
                metallic_roughness_texture: shift(m.metallic_roughness_texture),
                normal_texture: shift(m.normal_texture),
                occlusion_texture: shift(m.occlusion_texture),
                emissive_texture: shift(m.emissive_texture),
                ..m
            }));
        self.textures.extend(other.textures);
        self.instances
            .extend(other.instances.into_iter().map(|i| Instance {
                mesh: i.mesh + mbase,
                transform: transform * i.transform,
            }));
        self.lights.extend(other.lights.into_iter().map(|l| {
            Light {
                position: transform.transform_point3(l.position),
                direction: transform
                    .transform_vector3(l.direction)
                    .normalize_or(l.direction),
                motion: l.motion.map(|m| Motion {
                    center: transform.transform_point3(m.center),
                    ..m
                }),
                ..l
            }
        }));
        self.rigs.extend(other.rigs.into_iter().map(|r| {
            animation::Rig {
                instances: r
                    .instances
                    .iter()
                    .map(|&(i, v)| (i + ibase_instances, v))
                    .collect(),
                placement: transform * r.placement,
                ..r
            }
        }));
        // Only the new instances' bounds: recomputing all of them would make a scene of n
        // appended copies cost n² (the result is the same union).
        let added = self.instances[ibase_instances..]
            .iter()
            .fold(Aabb::EMPTY, |b, i| b.union(self.instance_bounds(i)));
        self.bounds = self.bounds.union(added);
    }
}

/// Loads a scene file from disk by extension: `.gltf` / `.glb` as glTF 2.0, `.toml` as a
/// scene file. [`load_from`] with [`assets::Files`].
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    load_from(&assets::Files::new(), path)
}

/// Loads a scene file by extension, reading it and every file it references (buffers,
/// images, models) from `assets`. References are resolved beside the referring file and
/// normalised ([`assets::normalize`]).
pub fn load_from(assets: &dyn assets::Assets, path: &Path) -> Result<Scene, SceneError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("gltf") | Some("glb") => gltf_load::load(assets, path),
        Some("toml") => scene_file::load(assets, path),
        _ => Err(SceneError::UnknownFormat {
            path: path.to_path_buf(),
        }),
    }
}

/// The default courtyard scene (`assets/scenes/courtyard.toml`, compiled in): procedural
/// geometry and textures only, so it needs no download and no working directory.
pub fn builtin() -> Scene {
    match scene_file::builtin() {
        Ok(scene) => scene,
        // The embedded file is tested to load; this arm exists only so a broken edit of
        // the asset cannot turn into a panic in the renderer.
        Err(e) => {
            log::error!("the built-in scene does not load: {e}");
            Scene::empty("courtyard (failed)")
        }
    }
}
