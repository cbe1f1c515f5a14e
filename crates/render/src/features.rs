//! The frame's features: what the renderer declares into the graph.
//!
//! Every switch here changes the *declared graph* (passes, resources, sizes), never a code
//! path behind the graph's back: the plan of a frame says everything it does. The values
//! come from `config/default.toml` (`crate::config`), with the `[mobile]` preset applied on
//! tile-based profiles.

/// Where SSAO reads depth from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ssao {
    /// No ambient occlusion.
    Off,
    /// From the G-buffer's full-resolution depth, computed at half resolution on the async
    /// queue while the shadow cascades draw. On a tiler the depth must leave tile memory and
    /// the G-buffer render pass ends before lighting.
    GBuffer,
    /// From a half-resolution depth prepass of its own, so the G-buffer depth never leaves
    /// tile memory and G-buffer → lighting → transparents → tone map stay one render pass
    /// (the tile-friendly variant).
    Prepass,
}

impl Ssao {
    /// The configuration name (one of `config::SSAO_VALUES`).
    pub fn name(self) -> &'static str {
        match self {
            Ssao::GBuffer => "gbuffer",
            Ssao::Prepass => "prepass",
            Ssao::Off => "off",
        }
    }
}

/// What bloom (and the exposure histogram) read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bloom {
    /// No bloom.
    Off,
    /// The HDR target, after transparents: HDR leaves tile memory and the render pass ends
    /// before tone mapping.
    Hdr,
    /// A copy of the HDR colour that the tone-mapping subpass writes as a second attachment:
    /// HDR stays in tile memory (the tile-friendly variant); bloom is added after tone mapping.
    Tonemap,
}

impl Bloom {
    /// The configuration name (one of `config::BLOOM_VALUES`).
    pub fn name(self) -> &'static str {
        match self {
            Bloom::Hdr => "hdr",
            Bloom::Tonemap => "tonemap",
            Bloom::Off => "off",
        }
    }
}

/// How exposure is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exposure {
    /// A fixed multiplier before tone mapping.
    Fixed(f32),
    /// A luminance histogram of each frame adapts the exposure of the next ones; the value
    /// (multiplied by `compensation`) persists in an imported buffer across frames.
    Auto {
        /// Multiplier on the adapted exposure.
        compensation: f32,
    },
}

impl Exposure {
    /// The configuration name of the mode: `auto` or `fixed`.
    pub fn name(self) -> &'static str {
        match self {
            Exposure::Auto { .. } => "auto",
            Exposure::Fixed(_) => "fixed",
        }
    }
}

/// Post-process anti-aliasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aa {
    /// None.
    Off,
    /// FXAA on the tone-mapped image.
    Fxaa,
    /// Temporal anti-aliasing on the tone-mapped image (`crate::frame::taa`): the projection
    /// is jittered by a Halton(2, 3) sequence, the G-buffer (or the forward opaque pass, at
    /// 1× only) writes motion vectors, and each
    /// frame is blended with the reprojected history of the previous ones.
    Taa,
}

impl Aa {
    /// The configuration name (one of `config::AA_VALUES`).
    pub fn name(self) -> &'static str {
        match self {
            Aa::Fxaa => "fxaa",
            Aa::Taa => "taa",
            Aa::Off => "off",
        }
    }
}

/// How the opaque surfaces are lit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderPath {
    /// A G-buffer, then a full-screen lighting pass (`crate::frame`). Single-sampled only.
    Deferred,
    /// Opaque surfaces shaded as they are drawn, with the same clustered lights
    /// (`crate::frame::forward`): no G-buffer, so MSAA costs one colour and one depth
    /// attachment, memoryless on a tiler and resolved on write-back.
    Forward,
}

impl RenderPath {
    /// The configuration name (one of `config::PATH_VALUES`).
    pub fn name(self) -> &'static str {
        match self {
            RenderPath::Deferred => "deferred",
            RenderPath::Forward => "forward",
        }
    }
}

/// Where the deferred path's lighting runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lighting {
    /// A full-screen fragment pass reading the G-buffer as input attachments: a subpass
    /// of the G-buffer's render pass, so on a tiler the G-buffer never leaves tile memory.
    Raster,
    /// A compute pass sampling the G-buffer and depth (`crate::frame::lighting`): on an
    /// immediate-mode GPU there is no tile memory to keep, and compute shades far faster
    /// than a full-screen triangle where little of the chip rasterises.
    Compute,
}

impl Lighting {
    /// The configuration name (one of `config::LIGHTING_VALUES`).
    pub fn name(self) -> &'static str {
        match self {
            Lighting::Raster => "raster",
            Lighting::Compute => "compute",
        }
    }
}

/// Where the full-screen post chain (tone mapping, FXAA, TAA's compose) runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostPath {
    /// Fragment shaders: tone mapping reads HDR as an input attachment, so on a tiler it
    /// merges into the lighting (or forward) render pass.
    Raster,
    /// Compute passes into storage images and a copy into the output (`crate::frame::post`):
    /// faster on immediate-mode GPUs, where fragment shading of a full-screen triangle costs
    /// more than a dispatch. The forward path's per-sample tone mapping stays raster.
    Compute,
}

impl PostPath {
    /// The configuration name (one of `config::POST_VALUES`).
    pub fn name(self) -> &'static str {
        match self {
            PostPath::Raster => "raster",
            PostPath::Compute => "compute",
        }
    }
}

/// The MSAA sample counts the settings accept (the device may support fewer: the renderer
/// clamps, `crate::gpu::samples`).
pub const MSAA_VALUES: &[u32] = &[1, 2, 4, 8];

/// What the output shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DebugView {
    /// The lit, post-processed frame.
    None,
    /// G-buffer base colour.
    Albedo,
    /// G-buffer world normal.
    Normal,
    /// G-buffer metallic / roughness / occlusion.
    Material,
    /// Depth (linearised).
    Depth,
    /// The blurred ambient occlusion.
    Ssao,
    /// One cascade of the shadow atlas.
    Shadow(u32),
    /// Lights per cluster as a heat map.
    Clusters,
    /// The exposure buffer as a bar (and the histogram).
    Exposure,
}

impl DebugView {
    /// The names the configuration file and the CLI accept.
    pub const NAMES: &'static [&'static str] = &[
        "none", "albedo", "normal", "material", "depth", "ssao", "shadow0", "shadow1", "shadow2",
        "shadow3", "clusters", "exposure",
    ];

    /// The view called `name` (one of [`DebugView::NAMES`]).
    pub fn parse(name: &str) -> Option<DebugView> {
        Some(match name {
            "none" => DebugView::None,
            "albedo" => DebugView::Albedo,
            "normal" => DebugView::Normal,
            "material" => DebugView::Material,
            "depth" => DebugView::Depth,
            "ssao" => DebugView::Ssao,
            "clusters" => DebugView::Clusters,
            "exposure" => DebugView::Exposure,
            s => DebugView::Shadow(s.strip_prefix("shadow")?.parse().ok().filter(|&c| c < 4)?),
        })
    }

    /// The configuration name of the view.
    pub fn name(self) -> String {
        match self {
            DebugView::None => "none".into(),
            DebugView::Albedo => "albedo".into(),
            DebugView::Normal => "normal".into(),
            DebugView::Material => "material".into(),
            DebugView::Depth => "depth".into(),
            DebugView::Ssao => "ssao".into(),
            DebugView::Shadow(c) => format!("shadow{c}"),
            DebugView::Clusters => "clusters".into(),
            DebugView::Exposure => "exposure".into(),
        }
    }
}

/// Every feature of the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// The sun casts cascaded shadows.
    pub shadows: bool,
    /// Shadow cascades (1–4), side by side in one atlas.
    pub cascades: u32,
    /// Texels per side of each cascade.
    pub shadow_size: u32,
    /// Point lights drawn: the scene's first `lights` (the built-in scene has more).
    pub lights: u32,
    /// Point lights are binned into view-space clusters on the async queue; off, every
    /// pixel loops over every light.
    pub clustering: bool,
    /// Ambient occlusion.
    pub ssao: Ssao,
    /// Image-based ambient light from the sky (irradiance and prefiltered reflections,
    /// `frame::environment`); off, a hemisphere of the settings' ambient colour.
    pub ibl: bool,
    /// Bloom.
    pub bloom: Bloom,
    /// Exposure.
    pub exposure: Exposure,
    /// Anti-aliasing.
    pub aa: Aa,
    /// The frame renders at this fraction of the output's size (0.25–2); the last post
    /// pass scales to the output.
    pub resolution_scale: f32,
    /// What the output shows.
    pub debug_view: DebugView,
    /// Deferred or forward lighting.
    pub path: RenderPath,
    /// MSAA samples per pixel (one of [`MSAA_VALUES`]); above 1 only on the forward path.
    pub msaa: u32,
    /// Where the deferred path's lighting runs (the forward path lights as it draws).
    pub lighting: Lighting,
    /// Raster or compute post chain.
    pub post: PostPath,
}

impl Default for Features {
    /// Everything on, as `config/default.toml` has it on desktop.
    fn default() -> Self {
        Features {
            shadows: true,
            cascades: 3,
            shadow_size: 2048,
            lights: 256,
            clustering: true,
            ssao: Ssao::GBuffer,
            ibl: true,
            bloom: Bloom::Hdr,
            exposure: Exposure::Auto { compensation: 1.0 },
            aa: Aa::Taa,
            resolution_scale: 1.0,
            debug_view: DebugView::None,
            path: RenderPath::Deferred,
            msaa: 1,
            lighting: Lighting::Compute,
            post: PostPath::Compute,
        }
    }
}

impl Features {
    /// The core frame only: no shadows, clustering, SSAO, bloom, auto exposure or AA.
    pub fn minimal() -> Self {
        Features {
            shadows: false,
            clustering: false,
            ssao: Ssao::Off,
            bloom: Bloom::Off,
            exposure: Exposure::Fixed(1.0),
            aa: Aa::Off,
            ..Features::default()
        }
    }

    /// The `[mobile]` preset's defaults: the tile-friendly variant of every feature that
    /// would break the G-buffer → lighting → transparents → tone-map render pass, FXAA
    /// for TAA (its motion target and full-size history cost a tiler bandwidth it lacks),
    /// and the forward path at 4× MSAA (its multisampled colour and depth stay in tile memory
    /// and are resolved on write-back: anti-aliased edges for the bandwidth of 1×); a deferred
    /// frame there lights in a raster subpass.
    /// and are resolved on write-back: anti-aliased edges for the bandwidth of 1×), and the
    /// raster post chain (tone mapping merged into that render pass, HDR never leaving tiles).
    pub fn tile_friendly(mut self) -> Self {
        self.post = PostPath::Raster;
        if self.path == RenderPath::Deferred && self.msaa == 1 {
            self.path = RenderPath::Forward;
            self.msaa = 4;
        }
        if self.aa == Aa::Taa {
            self.aa = Aa::Fxaa;
        }
        if self.ssao == Ssao::GBuffer {
            self.ssao = Ssao::Prepass;
        }
        if self.bloom == Bloom::Hdr {
            self.bloom = Bloom::Tonemap;
        }
        // A deferred frame on a tiler lights from tile memory, in the G-buffer's render pass.
        self.lighting = Lighting::Raster;
        self
    }
}

impl Features {
    /// The one reason these features cannot be rendered, if any: a combination of values
    /// each valid alone (every caller reports it as its one error).
    pub fn check(&self) -> Result<(), String> {
        if !MSAA_VALUES.contains(&self.msaa) {
            return Err(format!("msaa = {}: expected one of 1, 2, 4, 8", self.msaa));
        }
        if self.path == RenderPath::Deferred && self.msaa > 1 {
            return Err(format!(
                "msaa = {} needs path = \"forward\": the deferred path renders single-sampled \
                 (a {}x G-buffer is {}x the tile memory and lighting runs per sample)",
                self.msaa, self.msaa, self.msaa
            ));
        }
        if self.msaa > 1 && self.aa == Aa::Taa {
            return Err(format!(
                "aa = \"taa\" needs msaa = 1: TAA reprojects single-sampled motion vectors and \
                 blends over the edges {}x MSAA resolves (use aa = \"fxaa\" or \"off\" with MSAA)",
                self.msaa
            ));
        }
        if self.path == RenderPath::Forward && self.msaa > 1 && self.debug_view == DebugView::Depth
        {
            return Err(
                "debug_view = \"depth\" on the forward path needs msaa = 1: its depth is \
                 multisampled and stays in tile memory"
                    .into(),
            );
        }
        if self.path == RenderPath::Forward {
            if let Some(v) = self.debug_view.needs_gbuffer() {
                return Err(format!(
                    "debug_view = \"{v}\" shows the G-buffer, which the forward path has no \
                     (views there: none, depth, ssao, shadow0-3, clusters, exposure)"
                ));
            }
        }
        Ok(())
    }
}

impl DebugView {
    /// The view's name when it shows a G-buffer image (albedo, normal, material).
    pub fn needs_gbuffer(self) -> Option<String> {
        matches!(
            self,
            DebugView::Albedo | DebugView::Normal | DebugView::Material
        )
        .then(|| self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_view_names_round_trip() {
        for &n in DebugView::NAMES {
            assert_eq!(DebugView::parse(n).expect(n).name(), n);
        }
        assert_eq!(DebugView::parse("shadow4"), None);
        assert_eq!(DebugView::parse("bogus"), None);
    }

    #[test]
    fn the_tile_friendly_preset_keeps_what_is_off() {
        let f = Features::minimal().tile_friendly();
        assert_eq!((f.ssao, f.bloom), (Ssao::Off, Bloom::Off));
        let f = Features::default().tile_friendly();
        assert_eq!((f.ssao, f.bloom), (Ssao::Prepass, Bloom::Tonemap));
        assert_eq!((Features::default().aa, f.aa), (Aa::Taa, Aa::Fxaa));
        assert_eq!((f.path, f.msaa), (RenderPath::Forward, 4));
        assert_eq!(
            (Features::default().post, f.post),
            (PostPath::Compute, PostPath::Raster)
        );
        assert_eq!(f.check(), Ok(()));
    }

    #[test]
    fn refused_combinations_say_why() {
        let deferred = Features {
            msaa: 4,
            ..Features::default()
        };
        assert!(deferred
            .check()
            .unwrap_err()
            .contains("needs path = \"forward\""));
        let taa = Features {
            path: RenderPath::Forward,
            msaa: 4,
            ..Features::default()
        };
        assert!(taa
            .check()
            .unwrap_err()
            .contains("aa = \"taa\" needs msaa = 1"));
        // TAA on forward at 1x writes its motion vectors in the forward opaque pass.
        let taa_1x = Features {
            msaa: 1,
            ..taa.clone()
        };
        assert_eq!(taa_1x.check(), Ok(()));
        let view = Features {
            aa: Aa::Fxaa,
            debug_view: DebugView::Albedo,
            ..taa
        };
        assert!(view.check().unwrap_err().contains("albedo"));
        assert!(Features::default().check().is_ok());
    }
}
