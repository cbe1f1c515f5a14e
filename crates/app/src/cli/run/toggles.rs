//! The live switches: the frame's features and the graph's optimisations, changed by a key,
//! and what the change did to the plan in a few words (the viewer's plan diff, condensed
//! for the UI and the log).

use super::actions::{Feature, Optimisation};
use tessera_graph::{CompileOptions, Plan};
use tessera_render::features::{Aa, Bloom, DebugView, Exposure, Features, Ssao};

/// What the frame is declared and compiled with; every key toggle changes one field.
#[derive(Clone, Debug, PartialEq)]
pub struct Switches {
    /// The frame's features.
    pub features: Features,
    /// The graph's optimisations.
    pub options: CompileOptions,
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// The switch of optimisation `o` in `options`.
pub fn flag(options: &mut CompileOptions, o: Optimisation) -> &mut bool {
    match o {
        Optimisation::Merge => &mut options.merge,
        Optimisation::Memoryless => &mut options.memoryless,
        Optimisation::Alias => &mut options.alias,
        Optimisation::Async => &mut options.async_compute,
        Optimisation::Reorder => &mut options.reorder,
        Optimisation::Overlap => &mut options.overlap_frames,
    }
}

/// Optimisation `o`'s name: its action's in the key table (`merge`, ...).
pub fn name(o: Optimisation) -> &'static str {
    super::actions::binding(super::actions::Action::Optimisation(o)).name
}

impl Switches {
    /// Flips one optimisation; says what it is now.
    pub fn optimisation(&mut self, o: Optimisation) -> String {
        let flag = flag(&mut self.options, o);
        *flag = !*flag;
        format!("{} {}", name(o), on_off(*flag))
    }

    /// Every optimisation on, or every one off when all are on already.
    pub fn all_optimisations(&mut self) -> String {
        if self.options == CompileOptions::ALL {
            self.options = CompileOptions::NONE;
            "every optimisation off".into()
        } else {
            self.options = CompileOptions::ALL;
            "every optimisation on".into()
        }
    }

    /// Flips or steps one feature; says what it is now.
    pub fn feature(&mut self, f: Feature) -> String {
        let fs = &mut self.features;
        match f {
            Feature::Shadows => {
                fs.shadows = !fs.shadows;
                format!("shadows {}", on_off(fs.shadows))
            }
            Feature::Ssao => {
                fs.ssao = match fs.ssao {
                    Ssao::Off => Ssao::GBuffer,
                    Ssao::GBuffer => Ssao::Prepass,
                    Ssao::Prepass => Ssao::Off,
                };
                format!("ssao {}", fs.ssao.name())
            }
            Feature::Bloom => {
                fs.bloom = match fs.bloom {
                    Bloom::Off => Bloom::Hdr,
                    Bloom::Hdr => Bloom::Tonemap,
                    Bloom::Tonemap => Bloom::Off,
                };
                format!("bloom {}", fs.bloom.name())
            }
            Feature::Exposure => {
                fs.exposure = match fs.exposure {
                    Exposure::Auto { compensation } => Exposure::Fixed(compensation),
                    Exposure::Fixed(v) => Exposure::Auto { compensation: v },
                };
                format!("exposure {}", fs.exposure.name())
            }
            Feature::Aa => {
                fs.aa = match fs.aa {
                    Aa::Off => Aa::Fxaa,
                    // TAA runs single-sampled only.
                    Aa::Fxaa if fs.msaa > 1 => Aa::Off,
                    Aa::Fxaa => Aa::Taa,
                    Aa::Taa => Aa::Off,
                };
                format!("aa {}", fs.aa.name())
            }
            Feature::Clustering => {
                fs.clustering = !fs.clustering;
                format!("clustering {}", on_off(fs.clustering))
            }
            Feature::DebugView => {
                fs.debug_view = next_view(fs);
                format!("debug view {}", fs.debug_view.name())
            }
        }
    }
}

/// The debug view after `v`, skipping the shadow cascades the frame does not have.
/// The view after `fs`'s that `fs` can show (a cascade it has; on the forward path, no
/// G-buffer view).
fn next_view(fs: &tessera_render::features::Features) -> DebugView {
    let names = DebugView::NAMES;
    let at = names
        .iter()
        .position(|&n| n == fs.debug_view.name())
        .unwrap_or(0);
    (1..=names.len())
        .map(|step| names[(at + step) % names.len()])
        .filter_map(DebugView::parse)
        .filter(|n| !matches!(n, DebugView::Shadow(c) if *c >= fs.cascades))
        .find(|&n| {
            let f = tessera_render::features::Features {
                debug_view: n,
                ..fs.clone()
            };
            f.check().is_ok()
        })
        .unwrap_or(DebugView::None)
}

/// The plan's headline figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// Passes run.
    pub passes: usize,
    /// `VkRenderPass`es.
    pub render_passes: usize,
    /// Subpasses over all render passes.
    pub subpasses: usize,
    /// Barriers.
    pub barriers: usize,
    /// Cross-queue semaphores.
    pub semaphores: usize,
    /// Transient bytes bound (aliased).
    pub aliased: u64,
    /// Transient bytes without aliasing.
    pub unaliased: u64,
    /// Memoryless bytes.
    pub memoryless: u64,
    /// Tile bandwidth model, planned (bytes per frame).
    pub bandwidth: u64,
    /// Tile bandwidth model, naive (bytes per frame).
    pub naive_bandwidth: u64,
}

impl Figures {
    /// The figures of `plan`.
    pub fn of(plan: &Plan) -> Figures {
        let b = &plan.bandwidth;
        Figures {
            passes: plan.order.len(),
            render_passes: plan.render_passes.len(),
            subpasses: plan.render_passes.iter().map(|r| r.subpasses.len()).sum(),
            barriers: plan.barriers.len(),
            semaphores: plan.syncs.len(),
            aliased: plan.memory.aliased_bytes,
            unaliased: plan.memory.unaliased_bytes,
            memoryless: plan.memory.memoryless_bytes,
            bandwidth: b.load_bytes + b.store_bytes,
            naive_bandwidth: b.naive_load_bytes + b.naive_store_bytes,
        }
    }
}

/// Bytes in MiB with one decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// What changed from `old` to `new`, one short item per changed figure (`render passes
/// 5 -> 7`), then the viewer's merge/split lines; empty when nothing did.
pub fn changes(old: &Plan, new: &Plan) -> Vec<String> {
    let (a, b) = (Figures::of(old), Figures::of(new));
    let mut out = Vec::new();
    let mut count = |what: &str, x: usize, y: usize| {
        if x != y {
            out.push(format!("{what} {x} -> {y}"));
        }
    };
    count("passes", a.passes, b.passes);
    count("render passes", a.render_passes, b.render_passes);
    count("subpasses", a.subpasses, b.subpasses);
    count("barriers", a.barriers, b.barriers);
    count("semaphores", a.semaphores, b.semaphores);
    let mut bytes = |what: &str, x: u64, y: u64| {
        if x != y {
            let (a, b) = (mib(x), mib(y));
            if a == b {
                // A change too small for MiB: in KiB.
                out.push(format!("{what} {} KiB -> {} KiB", x / 1024, y / 1024));
            } else {
                out.push(format!("{what} {a} -> {b}"));
            }
        }
    };
    bytes("transient", a.aliased, b.aliased);
    bytes("memoryless", a.memoryless, b.memoryless);
    bytes("tile traffic", a.bandwidth, b.bandwidth);
    let d = tessera_viewer::diff::diff(old, new);
    for (x, y) in &d.merged {
        out.push(format!("merged {x} + {y}"));
    }
    for (x, y) in &d.split {
        out.push(format!("split {x} | {y}"));
    }
    for q in &d.queues {
        out.push(format!("{} {} -> {}", q.pass, q.before, q.after));
    }
    if old.order != new.order && a.passes == b.passes {
        let moved = old
            .order
            .iter()
            .zip(&new.order)
            .filter(|(x, y)| x != y)
            .count();
        out.push(format!("pass order: {moved} passes move"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn switches() -> Switches {
        Switches {
            features: Features::default(),
            options: CompileOptions::ALL,
        }
    }

    #[test]
    fn each_optimisation_flips_its_own_flag_and_back() {
        for o in super::super::no_effect::ALL {
            let mut s = switches();
            let said = s.optimisation(o);
            assert!(said.ends_with(" off"), "{said}");
            assert_ne!(s.options, CompileOptions::ALL, "{o:?}");
            // Only one flag changed.
            let mut again = s.clone();
            again.options.minimize_syncs = false;
            assert_ne!(again.options, CompileOptions::NONE);
            assert!(s.optimisation(o).ends_with(" on"));
            assert_eq!(s.options, CompileOptions::ALL, "{o:?}");
        }
    }

    #[test]
    fn all_optimisations_goes_all_off_then_all_on() {
        let mut s = switches();
        s.all_optimisations();
        assert_eq!(s.options, CompileOptions::NONE);
        s.optimisation(Optimisation::Merge);
        s.all_optimisations();
        assert_eq!(s.options, CompileOptions::ALL);
    }

    #[test]
    fn features_cycle_through_every_value_and_return() {
        let mut s = switches();
        let start = s.features.clone();
        assert_eq!(s.feature(Feature::Ssao), "ssao prepass");
        assert_eq!(s.feature(Feature::Ssao), "ssao off");
        assert_eq!(s.feature(Feature::Ssao), "ssao gbuffer");
        assert_eq!(s.feature(Feature::Bloom), "bloom tonemap");
        assert_eq!(s.feature(Feature::Bloom), "bloom off");
        assert_eq!(s.feature(Feature::Bloom), "bloom hdr");
        assert_eq!(s.feature(Feature::Exposure), "exposure fixed");
        assert_eq!(s.features.exposure, Exposure::Fixed(1.0));
        s.feature(Feature::Exposure);
        assert_eq!(s.feature(Feature::Shadows), "shadows off");
        s.feature(Feature::Shadows);
        assert_eq!(s.feature(Feature::Aa), "aa off");
        assert_eq!(s.feature(Feature::Aa), "aa fxaa");
        assert_eq!(s.feature(Feature::Aa), "aa taa");
        assert_eq!(s.feature(Feature::Clustering), "clustering off");
        s.feature(Feature::Clustering);
        assert_eq!(s.features, start);
    }

    #[test]
    fn debug_views_step_through_the_cascades_the_frame_has() {
        let mut f = tessera_render::features::Features {
            cascades: 2,
            ..Default::default()
        };
        let mut seen = Vec::new();
        // Twelve names, two cascades missing, then around again.
        for _ in 0..11 {
            f.debug_view = next_view(&f);
            seen.push(f.debug_view.name());
        }
        assert_eq!(
            seen,
            [
                "albedo", "normal", "material", "depth", "ssao", "shadow0", "shadow1", "clusters",
                "exposure", "none", "albedo"
            ]
        );
    }

    #[test]
    fn on_the_forward_path_the_views_skip_the_gbuffer_and_the_msaa_depth() {
        use tessera_render::features::{Features, RenderPath};
        let mut f = Features {
            path: RenderPath::Forward,
            msaa: 4,
            aa: Aa::Fxaa,
            ..Features::default()
        };
        let mut seen = Vec::new();
        for _ in 0..8 {
            f.debug_view = next_view(&f);
            seen.push(f.debug_view.name());
        }
        assert_eq!(
            seen,
            ["ssao", "shadow0", "shadow1", "shadow2", "clusters", "exposure", "none", "ssao"]
        );
    }

    #[test]
    fn changes_name_what_a_toggle_did_to_the_real_frame() {
        let scene = tessera_scene::builtin();
        // The raster lighting and post chain, which a tiler merges.
        let mut settings = tessera_render::Settings {
            width: 320,
            height: 180,
            ..tessera_render::Settings::default()
        };
        settings.features.lighting = tessera_render::features::Lighting::Raster;
        settings.features.post = tessera_render::features::PostPath::Raster;
        let graph = tessera_render::frame_graph(&scene, &settings);
        let caps = tessera_graph::Capabilities::profile("mali").expect("profile");
        let plan = |o: CompileOptions| tessera_graph::compile(&graph, &caps, &o).expect("compiles");
        let all = plan(CompileOptions::ALL);
        assert!(changes(&all, &all).is_empty());
        let mut no_merge = CompileOptions::ALL;
        no_merge.merge = false;
        let split = changes(&all, &plan(no_merge));
        let (a, b) = (Figures::of(&all), Figures::of(&plan(no_merge)));
        assert!(b.render_passes > a.render_passes);
        assert!(
            split.contains(&format!(
                "render passes {} -> {}",
                a.render_passes, b.render_passes
            )),
            "{split:?}"
        );
        assert!(split.iter().any(|c| c.starts_with("split ")), "{split:?}");
        let mut no_alias = CompileOptions::ALL;
        no_alias.alias = false;
        let c = changes(&all, &plan(no_alias));
        assert!(c.iter().any(|c| c.starts_with("transient ")), "{c:?}");
    }
}
