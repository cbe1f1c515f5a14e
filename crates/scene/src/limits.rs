//! The caps every loaded scene stays within, and the one check that enforces them before
//! anything is copied.
//!
//! The caps exist so that a small hostile file (a 133-byte scene repeating a model, a 1 KB
//! glTF declaring millions of vertices, a PNG header claiming 16384²) is an error naming
//! the cap instead of gigabytes of memory or minutes of work. Every count is checked
//! against its cap *before* the memory it implies is allocated: accessor counts before
//! reading, image dimensions from the header before decoding, a scene file's model copies
//! and repeats before the first copy.
//!
//! # Peak memory
//!
//! Loading one scene needs at most, all caps together:
//!
//! - **the output** ([`Scene`]): 48 B × [`MAX_VERTICES`] + 4 B × [`MAX_INDICES`] (960 MiB)
//!   plus textures with mips, 4 B × 4/3 × [`MAX_TEXELS`] (683 MiB), plus 72 B ×
//!   [`MAX_INSTANCES`], 80 B × [`MAX_LIGHTS`], about 400 B × [`MAX_MATERIALS`] and 300 B ×
//!   [`MAX_PRIMITIVES`] (names cut at [`MAX_NAME_BYTES`]), together under 500 MiB; a scene
//!   file keeps each distinct model it places once more beside its copies, so at most the
//!   output again;
//! - **the input being read**: one glTF file with its buffers and images, all together at
//!   most [`MAX_FILE_BYTES`] (1 GiB), or one scene file of at most
//!   [`MAX_SCENE_FILE_BYTES`];
//! - **working memory** of the primitive or image being decoded: about 200 B per vertex of
//!   the largest primitive, and 16 B per texel of the largest image (decoded pixels, their
//!   RGBA8 copy and its mip chain).
//!
//! So a scene never takes more than about 5 GiB to load, whatever the input, and an input
//! near no cap takes memory in proportion to its content.

use crate::Scene;

/// Most vertices one scene may hold: a cap far above anything the renderer draws in real time,
/// so a file that declares absurd counts is an error rather than an allocation failure.
pub const MAX_VERTICES: usize = 1 << 24;
/// Keyframe floats (times and values) of one model's animations together: 64 MiB.
pub const MAX_ANIMATION_VALUES: usize = 1 << 24;
/// Morph target vertex deltas (targets × vertices) of one model: 4M, 96 MiB of deltas.
pub const MAX_MORPH_DELTAS: usize = 1 << 22;
/// Most indices one scene may hold (see [`MAX_VERTICES`]).
pub const MAX_INDICES: usize = 3 << 24;
/// Most texels of one texture (level 0): 4096 × 4096, 64 MiB of RGBA8.
pub const MAX_TEXTURE_TEXELS: u64 = 1 << 24;
/// Most texels (level 0, all textures together) one scene may hold: 512 MiB of RGBA8.
pub const MAX_TEXELS: u64 = 1 << 27;
/// Most instances (placed meshes) one scene may hold, after repeats and node reuse.
pub const MAX_INSTANCES: usize = 1 << 20;
/// Most triangles all instances together may draw (instances × their meshes' triangles):
/// sharing geometry makes instances cheap in memory but not to draw.
pub const MAX_DRAWN_TRIANGLES: u64 = 1 << 26;
/// Most punctual lights one scene may hold.
pub const MAX_LIGHTS: usize = 1 << 16;
/// Most materials one scene may hold (identical scene-file materials are shared).
pub const MAX_MATERIALS: usize = 1 << 18;
/// Most primitives (draw records) all meshes together may hold.
pub const MAX_PRIMITIVES: usize = 1 << 20;
/// Longest name kept from a glTF file (longer ones are cut): names are copied with every
/// placed copy of a model.
pub const MAX_NAME_BYTES: usize = 256;
/// Most bytes one glTF model reads: its own file, its buffers and its image files together.
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// Largest scene (`.toml`) file read: far above any hand-written scene.
pub const MAX_SCENE_FILE_BYTES: u64 = 16 << 20;

/// What a scene holds, counted against the caps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Totals {
    pub vertices: u64,
    pub indices: u64,
    pub texels: u64,
    pub instances: u64,
    pub lights: u64,
    pub materials: u64,
    pub primitives: u64,
    pub drawn_triangles: u64,
}

impl Totals {
    /// Counts `scene` (linear in its size: call it once per distinct scene, not per copy).
    pub fn of(scene: &Scene) -> Totals {
        Totals {
            vertices: scene.vertices.len() as u64,
            indices: scene.indices.len() as u64,
            texels: scene
                .textures
                .iter()
                .map(|t| t.width as u64 * t.height as u64)
                .sum(),
            instances: scene.instances.len() as u64,
            lights: scene.lights.len() as u64,
            materials: scene.materials.len() as u64,
            primitives: scene.meshes.iter().map(|m| m.primitives.len() as u64).sum(),
            drawn_triangles: scene.triangle_count() as u64,
        }
    }

    /// `self` plus `copies` × `more`, or the first cap it would pass, as "N vertices, the
    /// limit is M".
    pub fn plus(&self, more: &Totals, copies: u64) -> Result<Totals, String> {
        let add = |a: u64, b: u64| b.saturating_mul(copies).saturating_add(a);
        let sum = Totals {
            vertices: add(self.vertices, more.vertices),
            indices: add(self.indices, more.indices),
            texels: add(self.texels, more.texels),
            instances: add(self.instances, more.instances),
            lights: add(self.lights, more.lights),
            materials: add(self.materials, more.materials),
            primitives: add(self.primitives, more.primitives),
            drawn_triangles: add(self.drawn_triangles, more.drawn_triangles),
        };
        sum.check()?;
        Ok(sum)
    }

    /// The first cap these totals pass, as "N vertices, the limit is M".
    pub fn check(&self) -> Result<(), String> {
        let caps = [
            (self.vertices, MAX_VERTICES as u64, "vertices"),
            (self.indices, MAX_INDICES as u64, "indices"),
            (self.texels, MAX_TEXELS, "texels of textures"),
            (self.instances, MAX_INSTANCES as u64, "instances"),
            (self.lights, MAX_LIGHTS as u64, "lights"),
            (self.materials, MAX_MATERIALS as u64, "materials"),
            (self.primitives, MAX_PRIMITIVES as u64, "primitives"),
            (self.drawn_triangles, MAX_DRAWN_TRIANGLES, "drawn triangles"),
        ];
        for (n, cap, what) in caps {
            if n > cap {
                return Err(format!(
                    "the scene would hold {n} {what}, the limit is {cap}"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_counted_before_they_are_made() {
        let one = Totals {
            vertices: 1 << 20,
            ..Totals::default()
        };
        assert!(Totals::default().plus(&one, 16).is_ok());
        let e = Totals::default().plus(&one, 17).unwrap_err();
        assert!(
            e.contains("17825792 vertices, the limit is 16777216"),
            "{e}"
        );
        // Saturating, never wrapping.
        assert!(one.plus(&one, u64::MAX).is_err());
    }
}
