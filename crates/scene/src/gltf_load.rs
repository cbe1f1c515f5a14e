//! glTF 2.0 loading. The `gltf` crate parses and validates the JSON (and the GLB container);
//! everything that touches binary data is done here with explicit checks, because the crate's
//! own readers trust offsets, strides and counts: buffers and images are resolved from data
//! URIs, the GLB `BIN` chunk or files beside the `.gltf`; accessors are read with every range
//! checked; indices, attribute counts and finiteness are verified; the node hierarchy is walked
//! with a guard against cycles, depth and instance explosions. A bad file becomes a
//! [`SceneError`] naming the object, never a panic.

mod anim;
mod deform;

use std::collections::HashMap;
use std::path::Path;

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use crate::animation::{Rig, Trs, Visit};
use crate::assets::Assets;
use crate::geometry::{generate_normals, generate_tangents};
use crate::gltf_uri::Source;
use crate::limits::Totals;
use crate::{
    AlphaMode, Camera, Instance, Light, LightKind, Material, Mesh, Scene, SceneError, Texture,
    Vertex, MAX_FILE_BYTES, MAX_INDICES, MAX_INSTANCES, MAX_TEXELS, MAX_TEXTURE_TEXELS,
    MAX_VERTICES,
};

/// Deepest node hierarchy accepted (a sane file is a few tens deep).
const MAX_DEPTH: usize = 256;
/// Extensions whose absence changes nothing we load, so a file requiring them still loads.
const HARMLESS_REQUIRED: &[&str] = &[
    "KHR_materials_emissive_strength",
    "KHR_lights_punctual",
    "KHR_texture_transform",
];
/// Required extensions that only change shading: the file still loads, drawn with its core
/// material, with a warning (geometry-changing ones such as Draco stay errors).
const SHADING_ONLY: &[&str] = &[
    "KHR_technique_webgl",
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_materials_unlit",
    "KHR_materials_clearcoat",
    "KHR_materials_sheen",
    "KHR_materials_specular",
    "KHR_materials_transmission",
    "KHR_materials_ior",
    "KHR_materials_volume",
];

/// Loads a `.gltf` or `.glb` file.
pub(crate) fn load(assets: &dyn Assets, path: &Path) -> Result<Scene, SceneError> {
    let bytes = crate::assets::read(assets, path, MAX_FILE_BYTES)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "gltf".into());
    Loader::new(assets, path, &bytes)?.build(name)
}

struct Loader<'a> {
    assets: &'a dyn Assets,
    path: &'a Path,
    doc: gltf::Document,
    buffers: Vec<Vec<u8>>,
    /// Image index → the first texture made from it, whose level 0 a second use (the same
    /// image as sRGB and linear) copies instead of decoding again.
    images: HashMap<usize, usize>,
    /// Level-0 texels of all textures made so far.
    texels: u64,
    /// Bytes this model may still read (its file, buffers and images share [`MAX_FILE_BYTES`]).
    bytes_left: u64,
    /// Morph target vertex deltas read so far.
    morph_deltas: usize,
}

fn invalid(path: &Path, object: impl Into<String>, message: impl Into<String>) -> SceneError {
    SceneError::Invalid {
        path: path.to_path_buf(),
        object: object.into(),
        message: message.into(),
    }
}

impl<'a> Loader<'a> {
    fn new(assets: &'a dyn Assets, path: &'a Path, bytes: &[u8]) -> Result<Self, SceneError> {
        let parse = |message: String| SceneError::Parse {
            path: path.to_path_buf(),
            message,
        };
        check_container(path, bytes)?;
        let gltf = match gltf::Gltf::from_slice_without_validation(bytes) {
            Ok(g) => g,
            Err(e) => {
                if let Some(version) = json_asset_version(bytes).filter(|v| !v.starts_with("2.")) {
                    return Err(SceneError::Unsupported {
                        path: path.to_path_buf(),
                        object: "asset.version".into(),
                        message: format!(
                            "glTF {version} is not supported; only glTF 2.0 is read (convert the file)"
                        ),
                    });
                }
                // glTF makes `scene.nodes` optional; the `gltf` crate requires it. Retry with
                // the missing arrays filled in before giving up.
                let patched = add_missing_scene_nodes(bytes)
                    .and_then(|b| gltf::Gltf::from_slice_without_validation(&b).ok());
                // A malformed KHR_texture_transform (not an object) is dropped, as an
                // extension this loader did not read would be, rather than failing the file.
                let stripped = || {
                    drop_malformed_texture_transforms(bytes)
                        .and_then(|b| gltf::Gltf::from_slice_without_validation(&b).ok())
                };
                match patched {
                    Some(g) => {
                        log::warn!(
                            "{}: a scene without `nodes`; read as an empty scene",
                            path.display()
                        );
                        g
                    }
                    None => match stripped() {
                        Some(g) => {
                            log::warn!(
                                "{}: a KHR_texture_transform that is not an object; ignored",
                                path.display()
                            );
                            g
                        }
                        None => return Err(parse(e.to_string())),
                    },
                }
            }
        };
        let blob = gltf.blob;
        let mut json = gltf.document.into_json();
        let mut required = Vec::new();
        for ext in std::mem::take(&mut json.extensions_required) {
            if HARMLESS_REQUIRED.contains(&ext.as_str()) {
                required.push(ext);
            } else if SHADING_ONLY.contains(&ext.as_str()) {
                // These only refine shading, and the core material stays a usable fallback:
                // drawing with it beats refusing the model.
                log::warn!(
                    "{}: requires {ext}, which is not implemented; drawn with the core glTF material",
                    path.display()
                );
            } else {
                // Unsupported required extensions are an error that says which, before
                // validation reports them as an anonymous schema failure.
                let what = if ext == "KHR_draco_mesh_compression" {
                    "Draco mesh compression (KHR_draco_mesh_compression) is not supported; \
                     export the model without compression"
                        .to_string()
                } else {
                    format!("required extension {ext} is not supported")
                };
                return Err(SceneError::Unsupported {
                    path: path.to_path_buf(),
                    object: "extensionsRequired".into(),
                    message: what,
                });
            }
        }
        json.extensions_required = required;
        if json
            .extensions_used
            .iter()
            .any(|e| e == "KHR_draco_mesh_compression")
        {
            log::warn!(
                "{}: uses Draco compression without requiring it; loading the uncompressed fallback",
                path.display()
            );
        }
        // A default scene index that names no scene is read as "no default scene": such a
        // file describes nothing to draw, which is a warning, not an error.
        if let Some(s) = json.scene {
            if s.value() >= json.scenes.len() {
                log::warn!(
                    "{}: the default scene {} does not exist ({} scenes); ignoring it",
                    path.display(),
                    s.value(),
                    json.scenes.len()
                );
                json.scene = None;
            }
        }
        // The `gltf` crate's validation indexes the POSITION accessor before checking the
        // index (and panics); check it first.
        for (mi, mesh) in json.meshes.iter().enumerate() {
            for (pi, prim) in mesh.primitives.iter().enumerate() {
                for (sem, acc) in &prim.attributes {
                    if acc.value() >= json.accessors.len() {
                        return Err(invalid(
                            path,
                            format!("mesh {mi} primitive {pi}"),
                            format!(
                                "attribute {sem:?} names accessor {}, the file has {}",
                                acc.value(),
                                json.accessors.len()
                            ),
                        ));
                    }
                }
            }
        }
        let mut errors = Vec::new();
        {
            use gltf::json::validation::Validate as _;
            json.validate(&json, gltf::json::Path::new, &mut |p, e| {
                errors.push((p(), e))
            });
        }
        // POSITION min/max are required by the spec but only describe the data, which is
        // read and checked here anyway (exporters often omit them). An accessor without a
        // bufferView and without sparse values is allowed by the spec (it reads as zeros);
        // the `gltf` crate's validation wrongly demands one. Every other failure stands.
        let (tolerated, rest): (Vec<_>, Vec<_>) = errors.into_iter().partition(|(p, e)| {
            let p = p.to_string();
            let missing = matches!(e, gltf::json::validation::Error::Missing);
            let bounds = p.contains("attributes[\"POSITION\"]")
                && (p.ends_with(".min") || p.ends_with(".max"));
            let view = p.starts_with("accessors[") && p.ends_with("].bufferView");
            missing && (bounds || view)
        });
        if !rest.is_empty() {
            let list: Vec<String> = rest.iter().map(|(p, e)| format!("{p}: {e}")).collect();
            return Err(parse(format!("schema violations: {}", list.join("; "))));
        }
        let bounds = tolerated
            .iter()
            .filter(|(p, _)| p.to_string().contains("POSITION"))
            .count();
        if bounds > 0 {
            log::warn!(
                "{}: {} POSITION accessors lack the min/max the spec requires; bounds computed from the data",
                path.display(),
                bounds / 2
            );
        }
        crate::gltf_values::check(&json, path)?;
        let doc = gltf::Document::from_json_without_validation(json);
        let mut loader = Loader {
            assets,
            path,
            doc,
            buffers: Vec::new(),
            images: HashMap::new(),
            texels: 0,
            bytes_left: MAX_FILE_BYTES.saturating_sub(bytes.len() as u64),
            morph_deltas: 0,
        };
        loader.buffers = loader.load_buffers(blob)?;
        Ok(loader)
    }

    fn load_buffers(&mut self, mut blob: Option<Vec<u8>>) -> Result<Vec<Vec<u8>>, SceneError> {
        let mut out = Vec::new();
        // Owned, so reading (which counts the bytes read) can borrow `self` mutably.
        let buffers: Vec<(usize, usize, Option<String>)> = self
            .doc
            .buffers()
            .map(|b| {
                let uri = match b.source() {
                    gltf::buffer::Source::Bin => None,
                    gltf::buffer::Source::Uri(uri) => Some(uri.to_string()),
                };
                (b.index(), b.length(), uri)
            })
            .collect();
        for (index, length, uri) in buffers {
            let object = format!("buffer {index}");
            let data = match uri {
                None => blob.take().ok_or_else(|| {
                    invalid(
                        self.path,
                        &object,
                        "refers to the GLB binary chunk, which the file does not have",
                    )
                })?,
                Some(uri) => self.read_uri(&uri, &object)?,
            };
            if data.len() < length {
                return Err(invalid(
                    self.path,
                    &object,
                    format!("has {} bytes, byteLength says {length}", data.len()),
                ));
            }
            out.push(data);
        }
        Ok(out)
    }

    /// Reads a data URI or a file inside the model's folder ([`crate::gltf_uri`]); the
    /// model's files together stay within [`MAX_FILE_BYTES`].
    fn read_uri(&mut self, uri: &str, object: &str) -> Result<Vec<u8>, SceneError> {
        let (folder, file) = match crate::gltf_uri::resolve(self.path, uri) {
            Ok(Source::Data(bytes)) => return Ok(bytes),
            Ok(Source::File { folder, path }) => (folder, path),
            Err(message) => return Err(invalid(self.path, object, message)),
        };
        let bytes = crate::assets::read_inside(self.assets, &folder, &file, self.bytes_left)
            .map_err(|e| match e {
                SceneError::TooLarge { .. } => SceneError::TooLarge {
                    path: self.path.to_path_buf(),
                    object: object.into(),
                    message: format!(
                        "{} passes what is left of the model's limit of {MAX_FILE_BYTES} bytes \
                         for its file, buffers and images together",
                        file.display()
                    ),
                },
                // The error names the file; the model and object say who named it.
                e => invalid(self.path, object, e.to_string()),
            })?;
        self.bytes_left = self.bytes_left.saturating_sub(bytes.len() as u64);
        Ok(bytes)
    }

    fn build(mut self, name: String) -> Result<Scene, SceneError> {
        let mut scene = Scene::empty(name);
        let (vertices, indices) = self.geometry_totals()?;
        // Exactly the vertex buffer's size: growing by doubling could take twice the cap.
        scene.vertices.reserve_exact(vertices);
        scene.indices.reserve(indices);
        // Material 0 is glTF's default material; file material i is i + 1.
        scene.materials.push(Material::default());
        let mut texture_map = HashMap::new();
        // The document is cloned out of `self` (cheap next to the data) so its borrowed
        // views can coexist with the image cache's mutation.
        let doc = self.doc.clone();
        for m in doc.materials() {
            let mat = self.material(&m, &mut scene, &mut texture_map)?;
            scene.materials.push(mat);
        }
        for mesh in doc.meshes() {
            let m = self.mesh(&mesh, &mut scene)?;
            scene.meshes.push(m);
        }
        self.nodes(&mut scene)?;
        Totals::of(&scene)
            .check()
            .map_err(|message| SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object: "scene".into(),
                message,
            })?;
        scene.update_bounds();
        Ok(scene)
    }

    /// Vertices and indices all drawn primitives declare, checked against the caps before
    /// any accessor is read (a 1 KB file may declare millions of zero-filled vertices).
    fn geometry_totals(&self) -> Result<(usize, usize), SceneError> {
        let (mut vertices, mut indices) = (0usize, 0usize);
        for mesh in self.doc.meshes() {
            for prim in mesh.primitives() {
                let drawn = matches!(
                    prim.mode(),
                    Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
                );
                let Some(pos) = prim.get(&Semantic::Positions).filter(|_| drawn) else {
                    continue;
                };
                vertices = vertices.saturating_add(pos.count());
                // A strip or fan of n indices becomes up to 3n list indices.
                let n = prim.indices().map_or(pos.count(), |a| a.count());
                let n = if prim.mode() == Mode::Triangles {
                    n
                } else {
                    n.saturating_mul(3)
                };
                indices = indices.saturating_add(n);
                let over = if vertices > MAX_VERTICES {
                    Some(format!("{vertices} vertices, the limit is {MAX_VERTICES}"))
                } else if indices > MAX_INDICES {
                    Some(format!("{indices} indices, the limit is {MAX_INDICES}"))
                } else {
                    None
                };
                if let Some(message) = over {
                    return Err(SceneError::TooLarge {
                        path: self.path.to_path_buf(),
                        object: format!("mesh {} primitive {}", mesh.index(), prim.index()),
                        message: format!("the meshes declare at least {message}"),
                    });
                }
            }
        }
        Ok((vertices, indices))
    }

    fn material(
        &mut self,
        m: &gltf::Material,
        scene: &mut Scene,
        map: &mut HashMap<(usize, bool), usize>,
    ) -> Result<Material, SceneError> {
        let idx = m.index().unwrap_or(0);
        let object = format!("material {idx}");
        let pbr = m.pbr_metallic_roughness();
        let mut tex = |info: Option<(gltf::Texture, u32)>,
                       srgb: bool,
                       slot: &str|
         -> Result<Option<usize>, SceneError> {
            let Some((t, set)) = info else {
                return Ok(None);
            };
            if set != 0 {
                log::warn!(
                    "{}: {object} {slot} uses texcoord set {set}; only set 0 is loaded, so it is sampled with set 0",
                    self.path.display()
                );
            }
            let image = t.source().index();
            if let Some(&i) = map.get(&(image, srgb)) {
                return Ok(Some(i));
            }
            let (rgba, w, h) = match self.images.get(&image) {
                Some(&first) => {
                    let t = &scene.textures[first];
                    (t.mips[0].clone(), t.width, t.height)
                }
                None => self.image(image)?,
            };
            // Counted per texture: one image as sRGB and linear is two textures in memory.
            self.texels += w as u64 * h as u64;
            if self.texels > MAX_TEXELS {
                return Err(SceneError::TooLarge {
                    path: self.path.to_path_buf(),
                    object: format!("image {image}"),
                    message: format!(
                        "textures reach {} texels, the limit is {MAX_TEXELS}",
                        self.texels
                    ),
                });
            }
            let json = &self.doc.as_json().images[image];
            let name = json
                .name
                .as_deref()
                .or_else(|| json.uri.as_deref().filter(|u| !u.starts_with("data:")))
                .map_or_else(|| format!("image {image}"), short_name);
            scene
                .textures
                .push(Texture::from_rgba8(name, w, h, srgb, rgba));
            let index = scene.textures.len() - 1;
            map.insert((image, srgb), index);
            self.images.entry(image).or_insert(index);
            Ok(Some(index))
        };
        let base_color_texture = tex(
            pbr.base_color_texture()
                .map(|i| (i.texture(), i.tex_coord())),
            true,
            "baseColorTexture",
        )?;
        let metallic_roughness_texture = tex(
            pbr.metallic_roughness_texture()
                .map(|i| (i.texture(), i.tex_coord())),
            false,
            "metallicRoughnessTexture",
        )?;
        let normal = m.normal_texture();
        let normal_texture = tex(
            normal.as_ref().map(|i| (i.texture(), i.tex_coord())),
            false,
            "normalTexture",
        )?;
        let occlusion = m.occlusion_texture();
        let occlusion_texture = tex(
            occlusion.as_ref().map(|i| (i.texture(), i.tex_coord())),
            false,
            "occlusionTexture",
        )?;
        let emissive_texture = tex(
            m.emissive_texture().map(|i| (i.texture(), i.tex_coord())),
            true,
            "emissiveTexture",
        )?;
        let strength = m.emissive_strength().unwrap_or(1.0);
        let emissive = m.emissive_factor().map(|c| c * strength);
        let alpha_mode = match m.alpha_mode() {
            gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
            gltf::material::AlphaMode::Mask => AlphaMode::Mask {
                cutoff: m.alpha_cutoff().unwrap_or(0.5),
            },
            gltf::material::AlphaMode::Blend => AlphaMode::Blend,
        };
        let mat = Material {
            name: m.name().map_or_else(|| object.clone(), short_name),
            base_color: pbr.base_color_factor(),
            metallic: pbr.metallic_factor(),
            roughness: pbr.roughness_factor(),
            emissive,
            normal_scale: normal.as_ref().map_or(1.0, |n| n.scale()),
            occlusion_strength: occlusion.as_ref().map_or(1.0, |o| o.strength()),
            base_color_texture,
            metallic_roughness_texture,
            normal_texture,
            occlusion_texture,
            emissive_texture,
            alpha_mode,
            double_sided: m.double_sided(),
            uv_transform: self.uv_transform(m, &object),
        };
        let finite = mat
            .base_color
            .iter()
            .chain(&mat.emissive)
            .chain(mat.uv_transform.iter().flatten())
            .all(|f| f.is_finite())
            && [
                mat.metallic,
                mat.roughness,
                mat.normal_scale,
                mat.occlusion_strength,
            ]
            .iter()
            .all(|f| f.is_finite());
        if !finite {
            return Err(invalid(self.path, object, "has a non-finite factor"));
        }
        Ok(mat)
    }

    /// The material's `KHR_texture_transform` as a 2×3 matrix: the base colour texture's,
    /// else the metallic-roughness or emissive texture's (one UV set is drawn, so one
    /// transform per material; a different one on another texture is a warning).
    fn uv_transform(&self, m: &gltf::Material, object: &str) -> Option<[f32; 6]> {
        let pbr = m.pbr_metallic_roughness();
        let infos = [
            pbr.base_color_texture(),
            pbr.metallic_roughness_texture(),
            m.emissive_texture(),
        ];
        let transforms: Vec<[f32; 6]> = infos
            .iter()
            .flatten()
            .filter_map(|i| {
                let t = i.texture_transform()?;
                if t.tex_coord().is_some_and(|c| c != 0) {
                    log::warn!(
                        "{}: {object}: a texture transform picks texcoord set {}; only set 0 is loaded",
                        self.path.display(),
                        t.tex_coord().unwrap_or(0)
                    );
                }
                Some(texture_transform_matrix(t.offset(), t.rotation(), t.scale()))
            })
            .collect();
        let first = *transforms.first()?;
        if transforms.iter().any(|t| *t != first) {
            log::warn!(
                "{}: {object}: its textures have different KHR_texture_transforms; all use the first",
                self.path.display()
            );
        }
        // A texture without a transform beside one with it would be drawn transformed too.
        Some(first)
    }

    /// Decodes image `index` to RGBA8. The header's dimensions are checked against the
    /// texel caps before anything is decoded, so a small file claiming a huge image costs
    /// nothing; decoder messages are not passed on, since they may quote the file's bytes.
    fn image(&mut self, index: usize) -> Result<(Vec<u8>, u32, u32), SceneError> {
        let object = format!("image {index}");
        // Read from the JSON rather than `Image::source`, which unwraps a missing URI or
        // mimeType.
        let Some(image) = self.doc.as_json().images.get(index) else {
            return Err(invalid(self.path, object, "does not exist"));
        };
        let mime = image.mime_type.as_ref().map(|m| m.0.clone());
        let (view, uri) = (image.buffer_view, image.uri.clone());
        let bytes = match (view, uri) {
            (Some(v), _) => {
                let view = self.doc.views().nth(v.value()).ok_or_else(|| {
                    invalid(
                        self.path,
                        &object,
                        format!("buffer view {} does not exist", v.value()),
                    )
                })?;
                self.view_bytes(&view, &object)?.to_vec()
            }
            (None, Some(uri)) => self.read_uri(&uri, &object)?,
            (None, None) => {
                return Err(invalid(
                    self.path,
                    object,
                    "has neither a uri nor a bufferView",
                ))
            }
        };
        let format = match mime.as_deref() {
            Some("image/png") => image::ImageFormat::Png,
            Some("image/jpeg") => image::ImageFormat::Jpeg,
            _ => image::guess_format(&bytes)
                .map_err(|_| invalid(self.path, &object, "is neither PNG nor JPEG data"))?,
        };
        let reader = || {
            let mut r = image::ImageReader::new(std::io::Cursor::new(&bytes[..]));
            r.set_format(format);
            r
        };
        let undecodable = |e: image::ImageError| match e {
            image::ImageError::Unsupported(e) => {
                invalid(self.path, &object, format!("cannot be decoded: {e}"))
            }
            _ => invalid(
                self.path,
                &object,
                format!("cannot be decoded: corrupt or truncated {format:?} data"),
            ),
        };
        let (w, h) = reader().into_dimensions().map_err(undecodable)?;
        let texels = w as u64 * h as u64;
        if texels > MAX_TEXTURE_TEXELS || self.texels.saturating_add(texels) > MAX_TEXELS {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object,
                message: format!(
                    "{w}×{h} texels; the limit is {MAX_TEXTURE_TEXELS} per texture and \
                     {MAX_TEXELS} for all textures together ({} used)",
                    self.texels
                ),
            });
        }
        let mut reader = reader();
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(w);
        limits.max_image_height = Some(h);
        // 16-bit RGBA is the widest decoded pixel; a little more for the decoder's own state.
        limits.max_alloc = Some(texels * 8 + (16 << 20));
        reader.limits(limits);
        let decoded = reader.decode().map_err(undecodable)?;
        // No copy when the image is RGBA8 already.
        let rgba = decoded.into_rgba8();
        let (w, h) = rgba.dimensions();
        Ok((rgba.into_raw(), w, h))
    }

    /// The bytes of a buffer view, range-checked against its buffer.
    fn view_bytes(&self, view: &gltf::buffer::View, object: &str) -> Result<&[u8], SceneError> {
        let buffer = self.buffers.get(view.buffer().index()).ok_or_else(|| {
            invalid(
                self.path,
                object,
                format!("buffer {} does not exist", view.buffer().index()),
            )
        })?;
        view.offset()
            .checked_add(view.length())
            .and_then(|end| buffer.get(view.offset()..end))
            .ok_or_else(|| {
                invalid(
                    self.path,
                    object,
                    format!(
                        "buffer view {} (offset {}, length {}) exceeds buffer {} ({} bytes)",
                        view.index(),
                        view.offset(),
                        view.length(),
                        view.buffer().index(),
                        buffer.len()
                    ),
                )
            })
    }

    /// Reads an accessor's elements as f32 components (integers converted as normalized or
    /// plain values), with sparse substitution. Returns `count * dims` values.
    fn read_f32(&self, acc: &gltf::Accessor, object: &str) -> Result<Vec<f32>, SceneError> {
        let normalized = acc.normalized();
        self.read_generic(acc, object, |b, ty| component_f32(b, ty, normalized))
    }

    /// Reads a scalar unsigned-integer accessor (indices).
    fn read_u32(&self, acc: &gltf::Accessor, object: &str) -> Result<Vec<u32>, SceneError> {
        self.read_generic(acc, object, |b, ty| match ty {
            DataType::U8 => b[0] as u32,
            DataType::U16 => u16::from_le_bytes([b[0], b[1]]) as u32,
            DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            // Callers check the type; anything else reads as 0.
            _ => 0,
        })
    }

    fn read_generic<T: Copy + Default>(
        &self,
        acc: &gltf::Accessor,
        object: &str,
        conv: impl Fn(&[u8], DataType) -> T,
    ) -> Result<Vec<T>, SceneError> {
        let object = format!("{object} (accessor {})", acc.index());
        let count = acc.count();
        let dims = acc.dimensions().multiplicity();
        let ty = acc.data_type();
        let csize = ty.size();
        let elem = dims * csize;
        let total = count
            .checked_mul(dims)
            .filter(|&n| n <= MAX_INDICES.max(MAX_VERTICES * 4));
        let Some(total) = total else {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object,
                message: format!("{count} elements"),
            });
        };
        if matches!(
            acc.dimensions(),
            Dimensions::Mat2 | Dimensions::Mat3 | Dimensions::Mat4
        ) {
            return Err(invalid(
                self.path,
                object,
                "matrix accessors are not vertex data",
            ));
        }
        let mut out = vec![T::default(); total];
        if let Some(view) = acc.view() {
            let data = self.view_bytes(&view, &object)?;
            let stride = view.stride().unwrap_or(elem);
            if stride < elem {
                return Err(invalid(
                    self.path,
                    object,
                    format!("byteStride {stride} is smaller than the element ({elem} bytes)"),
                ));
            }
            check_range(acc.offset(), stride, count, elem, data.len())
                .map_err(|m| invalid(self.path, &object, m))?;
            for i in 0..count {
                let base = acc.offset() + i * stride;
                for c in 0..dims {
                    let o = base + c * csize;
                    out[i * dims + c] = conv(&data[o..o + csize], ty);
                }
            }
        }
        if let Some(sparse) = acc.sparse() {
            let n = sparse.count();
            let iv = sparse.indices();
            let ity = match iv.index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let idata = self.view_bytes(&iv.view(), &object)?;
            check_range(iv.offset(), ity.size(), n, ity.size(), idata.len())
                .map_err(|m| invalid(self.path, &object, format!("sparse indices: {m}")))?;
            let vv = sparse.values();
            let vdata = self.view_bytes(&vv.view(), &object)?;
            check_range(vv.offset(), elem, n, elem, vdata.len())
                .map_err(|m| invalid(self.path, &object, format!("sparse values: {m}")))?;
            for k in 0..n {
                let o = iv.offset() + k * ity.size();
                let target = match ity {
                    DataType::U8 => idata[o] as usize,
                    DataType::U16 => u16::from_le_bytes([idata[o], idata[o + 1]]) as usize,
                    _ => u32::from_le_bytes([idata[o], idata[o + 1], idata[o + 2], idata[o + 3]])
                        as usize,
                };
                if target >= count {
                    // The value itself is not shown: it is a byte of a buffer file.
                    return Err(invalid(
                        self.path,
                        object,
                        format!(
                            "sparse index {k} is out of range: it must be below the {count} elements"
                        ),
                    ));
                }
                for c in 0..dims {
                    let o = vv.offset() + k * elem + c * csize;
                    out[target * dims + c] = conv(&vdata[o..o + csize], ty);
                }
            }
        }
        Ok(out)
    }

    fn mesh(&mut self, mesh: &gltf::Mesh, scene: &mut Scene) -> Result<Mesh, SceneError> {
        let name = mesh
            .name()
            .map_or_else(|| format!("mesh {}", mesh.index()), short_name);
        let mut out = Mesh {
            name,
            primitives: Vec::new(),
            weights: mesh.weights().map(<[f32]>::to_vec).unwrap_or_default(),
        };
        for prim in mesh.primitives() {
            let object = format!("mesh {} primitive {}", mesh.index(), prim.index());
            if let Some(p) = self.primitive(&prim, &object, scene)? {
                out.primitives.push(p);
            }
        }
        Ok(out)
    }

    fn attribute(
        &self,
        prim: &gltf::Primitive,
        sem: Semantic,
        object: &str,
        dims: usize,
        count: usize,
    ) -> Result<Option<Vec<f32>>, SceneError> {
        let Some(acc) = prim.get(&sem) else {
            return Ok(None);
        };
        let what = format!("{object}: {sem:?}");
        let ok_type = match sem {
            Semantic::TexCoords(_) => {
                matches!(acc.data_type(), DataType::F32)
                    || (acc.normalized() && matches!(acc.data_type(), DataType::U8 | DataType::U16))
            }
            _ => matches!(acc.data_type(), DataType::F32),
        };
        if acc.dimensions().multiplicity() != dims || !ok_type {
            return Err(invalid(
                self.path,
                what,
                format!(
                    "accessor {} is {:?} of {:?}{}, which this attribute cannot be",
                    acc.index(),
                    acc.dimensions(),
                    acc.data_type(),
                    if acc.normalized() {
                        " (normalized)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if acc.count() != count {
            return Err(invalid(
                self.path,
                what,
                format!("has {} elements but POSITION has {count}", acc.count()),
            ));
        }
        let data = self.read_f32(&acc, &what)?;
        Ok(Some(data))
    }

    fn primitive(
        &mut self,
        prim: &gltf::Primitive,
        object: &str,
        scene: &mut Scene,
    ) -> Result<Option<crate::Primitive>, SceneError> {
        let mode = prim.mode();
        if matches!(
            mode,
            Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
        ) {
            log::warn!(
                "{}: {object}: {mode:?} primitives are not drawn; skipped",
                self.path.display()
            );
            return Ok(None);
        }
        let Some(pos_acc) = prim.get(&Semantic::Positions) else {
            log::warn!(
                "{}: {object}: has no POSITION; skipped",
                self.path.display()
            );
            return Ok(None);
        };
        let count = pos_acc.count();
        if scene.vertices.len().saturating_add(count) > MAX_VERTICES {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object: object.into(),
                message: format!(
                    "the scene reaches {} vertices, the limit is {MAX_VERTICES}",
                    scene.vertices.len().saturating_add(count)
                ),
            });
        }
        let positions = self
            .attribute(prim, Semantic::Positions, object, 3, count)?
            .unwrap_or_default();
        if let Some(i) = positions.iter().position(|c| !c.is_finite()) {
            return Err(invalid(
                self.path,
                object,
                format!("POSITION {} is not finite", i / 3),
            ));
        }
        let positions: Vec<[f32; 3]> = positions
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();

        // Indices: read or 0..count, then converted to a triangle list.
        let raw: Vec<u32> = match prim.indices() {
            Some(acc) => {
                if acc.dimensions() != Dimensions::Scalar
                    || !matches!(
                        acc.data_type(),
                        DataType::U8 | DataType::U16 | DataType::U32
                    )
                {
                    return Err(invalid(
                        self.path,
                        object,
                        format!(
                            "indices accessor {} is {:?} of {:?}, not scalar unsigned integers",
                            acc.index(),
                            acc.dimensions(),
                            acc.data_type()
                        ),
                    ));
                }
                if scene.indices.len().saturating_add(acc.count()) > MAX_INDICES {
                    return Err(SceneError::TooLarge {
                        path: self.path.to_path_buf(),
                        object: object.into(),
                        message: format!("the scene reaches more than {MAX_INDICES} indices"),
                    });
                }
                self.read_u32(&acc, &format!("{object}: indices"))?
            }
            None => (0..count as u32).collect(),
        };
        if let Some(at) = raw.iter().position(|&i| i as usize >= count) {
            // The value itself is not shown: it is a byte of a buffer file, and echoing it
            // would let a model read out any file it can name.
            let of = prim.indices().map_or("the implicit indices".into(), |a| {
                format!("indices accessor {}", a.index())
            });
            return Err(invalid(
                self.path,
                object,
                format!(
                    "element {at} of {of} is out of range: every index must be below the {count} vertices"
                ),
            ));
        }
        let indices = to_triangle_list(mode, &raw);
        if mode == Mode::Triangles && raw.len() % 3 != 0 {
            log::warn!(
                "{}: {object}: {} indices is not a multiple of 3; the last {} ignored",
                self.path.display(),
                raw.len(),
                raw.len() % 3
            );
        }
        if scene.indices.len().saturating_add(indices.len()) > MAX_INDICES {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object: object.into(),
                message: format!("the scene reaches more than {MAX_INDICES} indices"),
            });
        }

        let normals = match self.attribute(prim, Semantic::Normals, object, 3, count)? {
            Some(n) => {
                if let Some(i) = n.iter().position(|c| !c.is_finite()) {
                    return Err(invalid(
                        self.path,
                        object,
                        format!("NORMAL {} is not finite", i / 3),
                    ));
                }
                let mut normals: Vec<[f32; 3]> =
                    n.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
                let smooth = generate_normals(&positions, &indices);
                let mut fixed = 0;
                for (n, s) in normals.iter_mut().zip(&smooth) {
                    let v = Vec3::from(*n);
                    let len = v.length();
                    // Zero (or overflowing) normals have no direction to keep: regenerate.
                    match v.try_normalize().filter(|_| len > 1e-6) {
                        None => {
                            *n = *s;
                            fixed += 1;
                        }
                        Some(u) if (len - 1.0).abs() > 1e-3 => {
                            *n = u.to_array();
                            fixed += 1;
                        }
                        Some(_) => {}
                    }
                }
                if fixed > 0 {
                    log::warn!("{}: {object}: {fixed} of {count} normals were not unit length; renormalised (zero ones regenerated)", self.path.display());
                }
                normals
            }
            None => {
                log::info!(
                    "{}: {object}: no normals; generated smooth normals",
                    self.path.display()
                );
                generate_normals(&positions, &indices)
            }
        };
        let uvs: Vec<[f32; 2]> =
            match self.attribute(prim, Semantic::TexCoords(0), object, 2, count)? {
                Some(uv) => {
                    if let Some(i) = uv.iter().position(|c| !c.is_finite()) {
                        return Err(invalid(
                            self.path,
                            object,
                            format!("TEXCOORD_0 {} is not finite", i / 2),
                        ));
                    }
                    uv.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
                }
                None => vec![[0.0; 2]; count],
            };
        let material = match prim.material().index() {
            Some(i) if i + 1 < scene.materials.len() => i + 1,
            Some(i) => {
                return Err(invalid(
                    self.path,
                    object,
                    format!("material {i} does not exist"),
                ))
            }
            None => 0,
        };
        // KHR_texture_transform, baked into this primitive's own copy of the UVs (before the
        // tangents, which follow the UVs).
        let uvs = match scene.materials[material].uv_transform {
            Some(m) => uvs
                .iter()
                .map(|&[u, v]| [m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]])
                .collect(),
            None => uvs,
        };
        let tangents = match self.attribute(prim, Semantic::Tangents, object, 4, count)? {
            Some(t) if t.iter().all(|c| c.is_finite()) => {
                let mut tangents: Vec<[f32; 4]> = t
                    .chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect();
                // Keep the file's tangents but make them unit and orthogonal to the (possibly
                // repaired) normals; fall back to a perpendicular where they are degenerate.
                for (t, n) in tangents.iter_mut().zip(&normals) {
                    let n = Vec3::from(*n);
                    let v = Vec3::new(t[0], t[1], t[2]);
                    let v = (v - n * n.dot(v))
                        .try_normalize()
                        .unwrap_or_else(|| crate::geometry::any_perpendicular(n));
                    *t = [v.x, v.y, v.z, if t[3] < 0.0 { -1.0 } else { 1.0 }];
                }
                tangents
            }
            Some(_) => {
                log::warn!(
                    "{}: {object}: TANGENT has non-finite values; regenerated",
                    self.path.display()
                );
                generate_tangents(&positions, &normals, &uvs, &indices)
            }
            None => generate_tangents(&positions, &normals, &uvs, &indices),
        };
        let deform = self.primitive_deform(prim, object, count)?;
        let vertices: Vec<Vertex> = (0..count)
            .map(|i| Vertex {
                position: positions[i],
                normal: normals[i],
                tangent: tangents[i],
                uv: uvs[i],
            })
            .collect();
        let mut p = scene.push_primitive(&vertices, &indices, material);
        p.deform = deform.map(std::sync::Arc::new);
        Ok(Some(p))
    }

    /// Flattens the node hierarchy of the default (or first) scene, or of all root nodes when
    /// the file has no scene, into instances, lights and the first camera.
    fn nodes(&self, scene: &mut Scene) -> Result<(), SceneError> {
        let roots: Vec<gltf::Node> = match self
            .doc
            .default_scene()
            .or_else(|| self.doc.scenes().next())
        {
            Some(s) => s.nodes().collect(),
            None => {
                let mut is_child = vec![false; self.doc.nodes().len()];
                for n in self.doc.nodes() {
                    for c in n.children() {
                        is_child[c.index()] = true;
                    }
                }
                self.doc.nodes().filter(|n| !is_child[n.index()]).collect()
            }
        };
        if roots.is_empty() {
            log::warn!(
                "{}: no nodes to draw; the scene is empty",
                self.path.display()
            );
            return Ok(());
        }
        let mut on_path = vec![false; self.doc.nodes().len()];
        let mut walk = Walk::default();
        for root in roots {
            self.walk(
                &root,
                (Mat4::IDENTITY, None),
                0,
                &mut on_path,
                &mut walk,
                scene,
            )?;
        }
        if self.doc.animations().len() > 0 {
            let animations = self.animations()?;
            if !animations.is_empty() {
                let nodes = self
                    .doc
                    .nodes()
                    .map(|n| {
                        let (t, r, s) = n.transform().decomposed();
                        let rotation = glam::Quat::from_array(r);
                        Trs {
                            translation: Vec3::from(t),
                            rotation: if rotation.is_finite() && rotation.length() > 0.0 {
                                rotation.normalize()
                            } else {
                                glam::Quat::IDENTITY
                            },
                            scale: Vec3::from(s),
                        }
                    })
                    .collect();
                let skins = self.skins()?;
                let mut parents = vec![None; self.doc.nodes().len()];
                for n in self.doc.nodes() {
                    for c in n.children() {
                        parents[c.index()].get_or_insert(n.index());
                    }
                }
                let weights: Vec<Vec<f32>> = self
                    .doc
                    .nodes()
                    .map(|n| {
                        n.weights()
                            .or_else(|| n.mesh().and_then(|m| m.weights()))
                            .map(<[f32]>::to_vec)
                            .unwrap_or_default()
                    })
                    .collect();
                self.check_joints(scene, &walk, &skins)?;
                scene.rigs.push(Rig {
                    nodes,
                    visits: walk.visits,
                    instances: walk.instances,
                    animations: animations.into(),
                    placement: Mat4::IDENTITY,
                    parents: parents.into(),
                    weights: weights.into(),
                    skins: skins.into(),
                    visit_skins: walk.skins,
                });
            }
        }
        Ok(())
    }

    /// Every skinned primitive's joint indices name joints of the skin its node uses.
    fn check_joints(
        &self,
        scene: &Scene,
        walk: &Walk,
        skins: &[crate::deform::Skin],
    ) -> Result<(), SceneError> {
        for &(instance, visit) in &walk.instances {
            let Some(skin) = walk.skins.get(visit).copied().flatten() else {
                continue;
            };
            let joints = skins.get(skin).map_or(0, |s| s.joints.len());
            let mesh = &scene.meshes[scene.instances[instance].mesh];
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let Some(d) = &p.deform else { continue };
                if let Some(j) = d
                    .joints
                    .iter()
                    .flatten()
                    .find(|&&j| usize::from(j) >= joints)
                {
                    return Err(invalid(
                        self.path,
                        format!("{} primitive {pi}", mesh.name),
                        format!("JOINTS_0 names joint {j}; skin {skin} has {joints}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn walk(
        &self,
        node: &gltf::Node,
        parent: (Mat4, Option<usize>),
        depth: usize,
        on_path: &mut [bool],
        walk: &mut Walk,
        scene: &mut Scene,
    ) -> Result<(), SceneError> {
        let (parent, parent_visit) = parent;
        let object = format!("node {}", node.index());
        if on_path[node.index()] {
            return Err(invalid(
                self.path,
                object,
                "the node hierarchy has a cycle: the node is its own ancestor",
            ));
        }
        if depth > MAX_DEPTH {
            return Err(invalid(
                self.path,
                object,
                format!("the node hierarchy is deeper than {MAX_DEPTH}"),
            ));
        }
        let visit = walk.visits.len();
        walk.visits.push(Visit {
            node: node.index(),
            parent: parent_visit,
        });
        // From the JSON: `Node::skin` unwraps the index.
        let skin = self.doc.as_json().nodes[node.index()]
            .skin
            .map(|s| s.value());
        if let Some(s) = skin.filter(|&s| s >= self.doc.skins().len()) {
            return Err(invalid(
                self.path,
                object,
                format!("skin {s} does not exist"),
            ));
        }
        walk.skins.push(skin.filter(|_| node.mesh().is_some()));
        if walk.visits.len() > MAX_INSTANCES {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object,
                message: format!("the node hierarchy expands to more than {MAX_INSTANCES} nodes"),
            });
        }
        let local = Mat4::from_cols_array_2d(&node.transform().matrix());
        if !local.is_finite() {
            return Err(invalid(self.path, object, "has a non-finite transform"));
        }
        let world = parent * local;
        if let Some(mesh) = node.mesh() {
            walk.instances.push((scene.instances.len(), visit));
            scene.instances.push(Instance {
                mesh: mesh.index(),
                transform: world,
            });
        }
        if let Some(cam) = node.camera() {
            match cam.projection() {
                gltf::camera::Projection::Perspective(p) if scene.camera.is_none() => {
                    let position = world.transform_point3(Vec3::ZERO);
                    let forward = world
                        .transform_vector3(Vec3::NEG_Z)
                        .normalize_or(Vec3::NEG_Z);
                    let up = world.transform_vector3(Vec3::Y).normalize_or(Vec3::Y);
                    scene.camera = Some(Camera {
                        position,
                        target: position + forward,
                        up,
                        yfov: p.yfov(),
                        znear: p.znear(),
                        zfar: p.zfar(),
                        aspect: p.aspect_ratio(),
                    });
                }
                gltf::camera::Projection::Perspective(_) => {}
                gltf::camera::Projection::Orthographic(_) => {
                    log::warn!(
                        "{}: {object}: orthographic camera {} ignored",
                        self.path.display(),
                        cam.index()
                    );
                }
            }
        }
        // The light index is checked here: `Node::light` unwraps it.
        let light_index = self.doc.as_json().nodes[node.index()]
            .extensions
            .as_ref()
            .and_then(|e| e.khr_lights_punctual.as_ref())
            .map(|k| k.light.value());
        let light = match light_index {
            Some(i) => Some(
                self.doc
                    .lights()
                    .and_then(|mut l| l.nth(i))
                    .ok_or_else(|| {
                        invalid(
                            self.path,
                            &object,
                            format!("KHR_lights_punctual light {i} does not exist"),
                        )
                    })?,
            ),
            None => None,
        };
        if let Some(light) = light {
            let kind = match light.kind() {
                gltf::khr_lights_punctual::Kind::Directional => LightKind::Directional,
                gltf::khr_lights_punctual::Kind::Point => LightKind::Point,
                gltf::khr_lights_punctual::Kind::Spot {
                    inner_cone_angle,
                    outer_cone_angle,
                } => LightKind::Spot {
                    inner_cone: inner_cone_angle,
                    outer_cone: outer_cone_angle,
                },
            };
            scene.lights.push(Light {
                kind,
                color: light.color(),
                intensity: light.intensity(),
                position: world.transform_point3(Vec3::ZERO),
                direction: world
                    .transform_vector3(Vec3::NEG_Z)
                    .normalize_or(Vec3::NEG_Z),
                range: light.range(),
                motion: None,
            });
        }
        on_path[node.index()] = true;
        for child in node.children() {
            self.walk(
                &child,
                (world, Some(visit)),
                depth + 1,
                on_path,
                walk,
                scene,
            )?;
        }
        on_path[node.index()] = false;
        Ok(())
    }
}

/// What the hierarchy walk records for animation: every visit, and the instance each mesh
/// visit made.
#[derive(Default)]
struct Walk {
    visits: Vec<Visit>,
    instances: Vec<(usize, usize)>,
    /// Each visit's skin.
    skins: Vec<Option<usize>>,
}

/// `KHR_texture_transform`'s `T * R * S` as a 2×3 matrix `[a, b, c, d, tx, ty]` (columns):
/// `uv' = (a u + c v + tx, b u + d v + ty)`, rotating counter-clockwise in UV space as the
/// extension defines (its `R` row is `(cos, sin)`, then `(-sin, cos)`).
pub(crate) fn texture_transform_matrix(
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
) -> [f32; 6] {
    let (s, c) = rotation.sin_cos();
    [
        c * scale[0],
        -s * scale[0],
        s * scale[1],
        c * scale[1],
        offset[0],
        offset[1],
    ]
}

/// Checks that `count` elements of `elem` bytes every `stride` from `offset` fit in `len`.
fn check_range(
    offset: usize,
    stride: usize,
    count: usize,
    elem: usize,
    len: usize,
) -> Result<(), String> {
    if count == 0 {
        return Ok(());
    }
    let end = (count - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add(offset))
        .and_then(|x| x.checked_add(elem));
    match end {
        Some(end) if end <= len => Ok(()),
        _ => Err(format!(
            "{count} elements of {elem} bytes at offset {offset} with stride {stride} exceed its buffer view ({len} bytes)"
        )),
    }
}

fn component_f32(b: &[u8], ty: DataType, normalized: bool) -> f32 {
    match (ty, normalized) {
        (DataType::F32, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        (DataType::U8, true) => b[0] as f32 / 255.0,
        (DataType::U8, false) => b[0] as f32,
        (DataType::I8, true) => (b[0] as i8 as f32 / 127.0).max(-1.0),
        (DataType::I8, false) => b[0] as i8 as f32,
        (DataType::U16, true) => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
        (DataType::U16, false) => u16::from_le_bytes([b[0], b[1]]) as f32,
        (DataType::I16, true) => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
        (DataType::I16, false) => i16::from_le_bytes([b[0], b[1]]) as f32,
        (DataType::U32, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
    }
}

/// A name from the file, cut to [`crate::MAX_NAME_BYTES`] (at a character boundary): names
/// are copied with every placed copy of a model, so their length must not multiply.
fn short_name(name: &str) -> String {
    let mut end = name.len().min(crate::MAX_NAME_BYTES);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_string()
}

/// Converts strips and fans to lists (alternating the strip's winding back to consistent);
/// lists lose a trailing partial triangle.
fn to_triangle_list(mode: Mode, idx: &[u32]) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => (2..idx.len())
            .flat_map(|i| {
                if i % 2 == 0 {
                    [idx[i - 2], idx[i - 1], idx[i]]
                } else {
                    [idx[i - 1], idx[i - 2], idx[i]]
                }
            })
            .collect(),
        Mode::TriangleFan => (2..idx.len())
            .flat_map(|i| [idx[0], idx[i - 1], idx[i]])
            .collect(),
        _ => idx[..idx.len() / 3 * 3].to_vec(),
    }
}

/// JSON glTF text with `"nodes": []` added to every scene lacking it; `None` for GLB, for
/// text that is not JSON and when nothing was missing.
fn add_missing_scene_nodes(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.starts_with(b"glTF") {
        return None;
    }
    let mut v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let scenes = v.get_mut("scenes")?.as_array_mut()?;
    let mut changed = false;
    for s in scenes {
        if let Some(obj) = s.as_object_mut() {
            if !obj.contains_key("nodes") {
                obj.insert("nodes".into(), serde_json::Value::Array(Vec::new()));
                changed = true;
            }
        }
    }
    if changed {
        serde_json::to_vec(&v).ok()
    } else {
        None
    }
}

/// JSON glTF text with every `KHR_texture_transform` that is not an object removed; `None`
/// for GLB, for text that is not JSON and when there was none.
fn drop_malformed_texture_transforms(bytes: &[u8]) -> Option<Vec<u8>> {
    fn strip(v: &mut serde_json::Value, depth: usize) -> bool {
        // glTF nests a texture info a few levels deep; deeper JSON is not glTF's.
        if depth > 32 {
            return false;
        }
        let mut changed = false;
        match v {
            serde_json::Value::Object(map) => {
                if map
                    .get("KHR_texture_transform")
                    .is_some_and(|t| !t.is_object())
                {
                    map.remove("KHR_texture_transform");
                    changed = true;
                }
                for child in map.values_mut() {
                    changed |= strip(child, depth + 1);
                }
            }
            serde_json::Value::Array(items) => {
                for child in items {
                    changed |= strip(child, depth + 1);
                }
            }
            _ => {}
        }
        changed
    }
    if bytes.starts_with(b"glTF") {
        return None;
    }
    let mut v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    if strip(&mut v, 0) {
        serde_json::to_vec(&v).ok()
    } else {
        None
    }
}

/// The container before the `gltf` crate reads it: a `.glb` must start with the binary
/// magic, its version must be 2, and its length fields must fit (the crate subtracts
/// without checking).
fn check_container(path: &Path, bytes: &[u8]) -> Result<(), SceneError> {
    let parse = |message: String| SceneError::Parse {
        path: path.to_path_buf(),
        message,
    };
    let is_glb_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if !bytes.starts_with(b"glTF") {
        if is_glb_name && !bytes.trim_ascii_start().starts_with(b"{") {
            return Err(parse(
                "not a glTF binary: bad magic (a .glb file starts with 'glTF')".into(),
            ));
        }
        return Ok(());
    }
    if bytes.len() < 12 {
        return Err(parse(format!(
            "GLB file truncated: {} bytes, the header alone is 12",
            bytes.len()
        )));
    }
    let word = |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let version = word(4);
    if version != 2 {
        return Err(SceneError::Unsupported {
            path: path.to_path_buf(),
            object: "GLB header".into(),
            message: if version == 1 {
                "glTF 1.0 is not supported; only glTF 2.0 is read (convert the file)".into()
            } else {
                format!("GLB version {version} is not supported; only glTF 2.0 is read")
            },
        });
    }
    if bytes.len() < 20 {
        return Err(parse(format!(
            "GLB file truncated: {} bytes, the header alone is 20",
            bytes.len()
        )));
    }
    let total = word(8) as usize;
    if total < 12 || total > bytes.len() {
        return Err(parse(format!(
            "GLB header says {total} bytes, the file has {}",
            bytes.len()
        )));
    }
    Ok(())
}

/// `asset.version` of a JSON glTF that the parser refused, to tell a glTF 1.0 file from a
/// broken one; `None` when there is none to read.
fn json_asset_version(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Root {
        asset: Asset,
    }
    #[derive(serde::Deserialize)]
    struct Asset {
        version: String,
    }
    serde_json::from_slice::<Root>(bytes)
        .ok()
        .map(|r| r.asset.version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_fans() {
        assert_eq!(
            to_triangle_list(Mode::TriangleStrip, &[0, 1, 2, 3]),
            [0, 1, 2, 2, 1, 3]
        );
        assert_eq!(
            to_triangle_list(Mode::TriangleFan, &[0, 1, 2, 3]),
            [0, 1, 2, 0, 2, 3]
        );
        assert_eq!(to_triangle_list(Mode::Triangles, &[0, 1, 2, 3]), [0, 1, 2]);
        assert!(to_triangle_list(Mode::TriangleStrip, &[0, 1]).is_empty());
    }

    #[test]
    fn texture_transforms_offset_rotate_and_scale_as_the_extension_says() {
        let apply = |m: [f32; 6], [u, v]: [f32; 2]| {
            [m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]]
        };
        let close =
            |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6;
        // Identity.
        assert!(close(
            apply(
                texture_transform_matrix([0.0; 2], 0.0, [1.0; 2]),
                [0.3, 0.7]
            ),
            [0.3, 0.7]
        ));
        // Offset then scale: scale applies first (T * R * S).
        let m = texture_transform_matrix([0.5, 0.25], 0.0, [2.0, 3.0]);
        assert!(close(apply(m, [1.0, 1.0]), [2.5, 3.25]));
        // A quarter turn: (1, 0) goes to (0, -1) (the extension's rotation matrix).
        let m = texture_transform_matrix([0.0; 2], std::f32::consts::FRAC_PI_2, [1.0; 2]);
        assert!(
            close(apply(m, [1.0, 0.0]), [0.0, -1.0]),
            "{:?}",
            apply(m, [1.0, 0.0])
        );
        assert!(close(apply(m, [0.0, 1.0]), [1.0, 0.0]));
    }

    #[test]
    fn range_checks() {
        assert!(check_range(0, 12, 2, 12, 24).is_ok());
        assert!(check_range(4, 12, 2, 12, 24).is_err());
        assert!(check_range(0, usize::MAX, 3, 12, 24).is_err());
        assert!(check_range(0, 12, 0, 12, 0).is_ok());
    }
}
