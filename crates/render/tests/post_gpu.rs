//! The post chain on lavapipe with validation and synchronization validation (zero messages
//! in every test): bloom, auto exposure across frames, FXAA, the resolution scale, the same
//! picture whatever the plan, and the chain's plans on desktop and on tilers.

mod common;

use common::{gpu, H, W};
use std::sync::Arc;
use tessera_graph::{Capabilities, CompileOptions, Graph, Plan};
use tessera_render::features::{Aa, Bloom, Exposure, Features, Lighting, PostPath};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};
use tessera_scene::Scene;
use tessera_vk::Gpu;

/// The core frame with 512-texel shadows on the raster post chain (`post_compute_gpu.rs`
/// compares the compute one with it), plus what `f` changes.
fn settings(f: impl FnOnce(&mut Features)) -> Settings {
    // The raster chain and raster lighting: what a tiler merges into one render pass.
    let mut features = Features {
        shadow_size: 512,
        post: PostPath::Raster,
        lighting: Lighting::Raster,
        ..Features::minimal()
    };
    features.shadows = true;
    f(&mut features);
    Settings {
        width: W,
        height: H,
        features,
        ..Settings::default()
    }
}

/// Renders `frames` frames and returns the pictures after the frames listed in `keep`
/// (1-based counts), the graph and the plan of the run; asserts no validation message.
fn run(
    gpu: &Arc<Gpu>,
    scene: Scene,
    s: Settings,
    frames: u64,
    keep: &[u64],
) -> (Vec<Picture>, Graph, Plan) {
    let before = gpu.messages.count();
    let mut r = Renderer::new(gpu.clone(), scene, s).expect("renderer");
    let mut pictures = Vec::new();
    for f in 0..frames {
        r.render(f as f32 / 60.0).expect("frame");
        if keep.contains(&(f + 1)) {
            pictures.push(r.picture().expect("read back").expect("a picture"));
        }
    }
    let graph = r.executor().graph().expect("a plan").clone();
    let plan = r.executor().plan().expect("a plan").clone();
    r.destroy();
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
    (pictures, graph, plan)
}

fn one(gpu: &Arc<Gpu>, s: Settings, frames: u64) -> (Picture, Graph, Plan) {
    let (mut p, g, plan) = run(gpu, tessera_scene::builtin(), s, frames, &[frames]);
    (p.remove(0), g, plan)
}

fn sum(p: &Picture) -> u64 {
    p.rgba.iter().map(|&b| u64::from(b)).sum()
}

fn mean_abs_diff(a: &Picture, b: &Picture) -> f64 {
    let d: u64 = a
        .rgba
        .iter()
        .zip(&b.rgba)
        .map(|(&x, &y)| u64::from(x.abs_diff(y)))
        .sum();
    d as f64 / a.rgba.len() as f64
}

/// Pixels (of `W`×`H`) where any channel differs by more than `by`.
fn pixels_off(a: &Picture, b: &Picture, by: u8) -> usize {
    a.rgba
        .chunks(4)
        .zip(b.rgba.chunks(4))
        .filter(|(x, y)| x.iter().zip(y.iter()).any(|(&p, &q)| p.abs_diff(q) > by))
        .count()
}

/// Bloom brightens the picture, most around its bright emitters and lights, in both
/// variants; off, no bloom pass is declared.
#[test]
fn bloom_brightens_around_bright_emitters() {
    let gpu = gpu();
    let (off, g_off, _) = one(&gpu, settings(|_| {}), 1);
    assert!(
        !g_off.passes.iter().any(|p| p.name.starts_with("bloom")),
        "bloom passes without bloom"
    );
    for variant in [Bloom::Hdr, Bloom::Tonemap] {
        let (on, _, _) = one(&gpu, settings(|f| f.bloom = variant), 1);
        let gain = sum(&on) as f64 / sum(&off) as f64 - 1.0;
        assert!(gain > 0.01, "{variant:?}: bloom added only {gain:.4}");
        // Brightened most next to the brightest pixels: the mean gain in a ring of 8 pixels
        // around the (nearly white) lamps and emitters beats the gain far from them.
        let (ring, far) = ring_and_far(&off, 8, 24);
        let gain_of = |idx: &[usize]| {
            idx.iter()
                .map(|&i| f64::from(luma(&on, i)) - f64::from(luma(&off, i)))
                .sum::<f64>()
                / idx.len().max(1) as f64
        };
        let (bright, dark) = (gain_of(&ring), gain_of(&far));
        assert!(!ring.is_empty() && !far.is_empty());
        assert!(
            bright > 2.0 * dark.max(0.0) + 1.0,
            "{variant:?}: bloom near the lights {bright:.2}, far from them {dark:.2}"
        );
        eprintln!(
            "{variant:?}: picture +{:.1}%, near the lights +{bright:.2}, far +{dark:.2}",
            gain * 100.0
        );
    }
}

/// The sum of a pixel's RGB.
fn luma(p: &Picture, i: usize) -> u32 {
    p.rgba[i * 4..i * 4 + 3].iter().map(|&b| u32::from(b)).sum()
}

/// Pixels within `near` pixels of a nearly white one (not white themselves), and pixels
/// farther than `far` from every one.
fn ring_and_far(p: &Picture, near: i32, far: i32) -> (Vec<usize>, Vec<usize>) {
    let (w, h) = (p.width as i32, p.height as i32);
    let white: Vec<bool> = (0..(w * h) as usize).map(|i| luma(p, i) > 720).collect();
    let mut dist = vec![i32::MAX; white.len()];
    for y in 0..h {
        for x in 0..w {
            if !white[(y * w + x) as usize] {
                continue;
            }
            for dy in -far..=far {
                for dx in -far..=far {
                    let (xx, yy) = (x + dx, y + dy);
                    if xx < 0 || yy < 0 || xx >= w || yy >= h {
                        continue;
                    }
                    let d = &mut dist[(yy * w + xx) as usize];
                    *d = (*d).min(dx.abs().max(dy.abs()));
                }
            }
        }
    }
    let ring = (0..white.len())
        .filter(|&i| !white[i] && dist[i] <= near)
        .collect();
    let far = (0..white.len()).filter(|&i| dist[i] == i32::MAX).collect();
    (ring, far)
}

/// Bytes of `plan`'s placements of resources whose name starts with `prefix`, and whether
/// any of them shares bytes with another placement.
fn chain_memory(plan: &Plan, prefix: &str) -> (u64, bool) {
    let mut bytes = 0;
    let mut shared = false;
    for b in &plan.memory.blocks {
        for p in &b.placements {
            if !p.resource.as_str().starts_with(prefix) {
                continue;
            }
            bytes += p.size;
            shared |= b.placements.iter().any(|q| {
                q.resource != p.resource
                    && q.offset < p.offset + p.size
                    && p.offset < q.offset + q.size
            });
        }
    }
    (bytes, shared)
}

/// The chain has a threshold, five downsamples and five upsamples, each level its own
/// transient image at its own size, and the compiler aliases them.
#[test]
fn the_bloom_chain_has_5_plus_5_steps_and_is_aliased() {
    let gpu = gpu();
    let (_, graph, plan) = one(&gpu, settings(|f| f.bloom = Bloom::Hdr), 1);
    let names: Vec<&str> = graph.passes.iter().map(|p| p.name.as_str()).collect();
    let downs = names.iter().filter(|n| n.starts_with("bloom down")).count();
    let ups = names.iter().filter(|n| n.starts_with("bloom up")).count();
    assert!(names.contains(&"bloom threshold"), "{names:?}");
    assert!(
        downs >= 5 && ups >= 5,
        "{downs} downsamples, {ups} upsamples"
    );
    let size = |name: &str| {
        let id = graph.find_resource(name).expect(name);
        let d = graph.resource(id).image_desc().expect("an image");
        (d.width, d.height)
    };
    assert_eq!(size("bloom down 1"), (160, 90));
    assert_eq!(size("bloom down 6"), (5, 3));
    assert_eq!(size("bloom up 1"), (160, 90));
    let m = &plan.memory;
    assert!(
        m.aliased_bytes < m.unaliased_bytes,
        "no aliasing: {} of {}",
        m.aliased_bytes,
        m.unaliased_bytes
    );
    let (bytes, shared) = chain_memory(&plan, "bloom");
    assert!(bytes > 0 && shared, "the chain's levels share no memory");
    // Without aliasing, the same frame needs more.
    let caps = Capabilities::profile("desktop").expect("desktop");
    let mut o = CompileOptions::ALL;
    o.alias = false;
    let unaliased = tessera_graph::compile(&graph, &caps, &o).expect("compiles");
    assert!(unaliased.memory.aliased_bytes > m.aliased_bytes);
    let desktop = tessera_graph::compile(&graph, &caps, &CompileOptions::ALL).expect("compiles");
    eprintln!(
        "desktop plan: {} render passes, transient {} B aliased vs {} B unaliased",
        desktop.render_passes.len(),
        desktop.memory.aliased_bytes,
        desktop.memory.unaliased_bytes
    );
    eprintln!(
        "lavapipe plan: transient {} B aliased vs {} B unaliased; the bloom chain's {} B share memory",
        m.aliased_bytes, m.unaliased_bytes, bytes
    );
}

fn darker(mut scene: Scene, by: f32) -> Scene {
    for l in &mut scene.lights {
        l.intensity *= by;
    }
    scene
}

/// Auto exposure converges (frames 10 and 11 nearly equal, while frame 1 still adapts) and
/// lifts a dark scene above what exposure 1 shows.
#[test]
fn auto_exposure_converges_and_lifts_a_dark_scene() {
    let gpu = gpu();
    let dark = |s: &mut Settings| s.ambient = s.ambient.map(|a| a * 0.1);
    let mut fixed = settings(|_| {});
    dark(&mut fixed);
    let (f, _, _) = run(&gpu, darker(tessera_scene::builtin(), 0.1), fixed, 1, &[1]);
    let f = &f[0];
    let mut auto = settings(|f| f.exposure = Exposure::Auto { compensation: 1.0 });
    dark(&mut auto);
    let (p, graph, _) = run(
        &gpu,
        darker(tessera_scene::builtin(), 0.1),
        auto,
        11,
        &[1, 10, 11],
    );
    for name in [
        "exposure histogram clear",
        "luminance histogram",
        "exposure adaptation",
    ] {
        assert!(graph.find_pass(name).is_some(), "no '{name}'");
    }
    // The adapted value lives from frame to frame in a graph history buffer (one buffer:
    // tone mapping reads it before the adaptation updates it).
    assert_eq!(
        graph
            .resource(graph.find_resource("exposure").unwrap())
            .origin,
        tessera_graph::Origin::History(tessera_graph::HistoryRole::Single)
    );
    let (first, tenth, eleventh) = (&p[0], &p[1], &p[2]);
    let step = mean_abs_diff(tenth, eleventh);
    let adapting = mean_abs_diff(first, tenth);
    assert!(step < 0.5, "frame 10 to 11 still changes by {step:.3}");
    assert!(
        adapting > 4.0 * step.max(0.1),
        "frame 1 to 10 changed only {adapting:.3}"
    );
    assert!(
        sum(tenth) as f64 > 1.3 * sum(f) as f64,
        "auto exposure left the dark scene as dark as exposure 1: {} vs {}",
        sum(tenth),
        sum(f)
    );
    eprintln!(
        "dark scene: frame 1→10 {adapting:.3}, 10→11 {step:.4}; brightness ×{:.2} of exposure 1",
        sum(tenth) as f64 / sum(f) as f64
    );
}

/// FXAA changes a few edge pixels a little and leaves flat areas alone.
#[test]
fn fxaa_changes_edge_pixels_only_slightly() {
    let gpu = gpu();
    let (off, _, _) = one(&gpu, settings(|_| {}), 1);
    let (on, graph, _) = one(&gpu, settings(|f| f.aa = Aa::Fxaa), 1);
    assert!(graph.find_pass("fxaa").is_some());
    let changed = pixels_off(&off, &on, 2);
    let n = (W * H) as usize;
    assert!(changed > n / 500, "FXAA changed only {changed} pixels");
    assert!(changed < n / 4, "FXAA changed {changed} of {n} pixels");
    let big = pixels_off(&off, &on, 32);
    assert!(big < n / 20, "FXAA changed {big} pixels by more than 32");
    let mean = mean_abs_diff(&off, &on);
    assert!(
        mean < 2.0,
        "FXAA changed the picture by {mean:.3} on average"
    );
    // Only edges: every changed pixel has a local contrast (its 3x3 neighbourhood's range).
    let w = W as usize;
    let flat_changed = (0..n)
        .filter(|&i| {
            let (x, y) = (i % w, i / w);
            let d = (0..3).any(|c| off.rgba[i * 4 + c].abs_diff(on.rgba[i * 4 + c]) > 2);
            if !d || x == 0 || y == 0 || x + 1 == w || y + 1 == H as usize {
                return false;
            }
            let around = [i - w - 1, i - w + 1, i + w - 1, i + w + 1, i];
            let l: Vec<u32> = around.iter().map(|&j| luma(&off, j)).collect();
            l.iter().max().unwrap() - l.iter().min().unwrap() < 12
        })
        .count();
    assert!(
        flat_changed * 100 < changed,
        "FXAA changed {flat_changed} pixels in flat areas (of {changed})"
    );
    eprintln!("FXAA: {changed} of {n} pixels changed by more than 2, mean {mean:.3}");
}

/// At scale 0.5 the frame renders at half size (the plan's images) and the last pass scales
/// to the full-size output.
#[test]
fn half_resolution_scale_renders_small_and_outputs_full_size() {
    let gpu = gpu();
    let (full, _, _) = one(&gpu, settings(|_| {}), 1);
    let (half, graph, _) = one(&gpu, settings(|f| f.resolution_scale = 0.5), 1);
    assert_eq!((half.width, half.height), (W, H));
    let size = |name: &str| {
        let id = graph.find_resource(name).expect(name);
        let d = graph.resource(id).image_desc().expect("an image");
        (d.width, d.height)
    };
    for name in ["hdr", "depth", "gbuffer albedo", "ldr"] {
        assert_eq!(size(name), (W / 2, H / 2), "{name}");
    }
    assert_eq!(size("output"), (W, H));
    assert!(graph.find_pass("compose").is_some());
    let mean = mean_abs_diff(&full, &half);
    assert!(mean > 0.0 && mean < 12.0, "half scale differs by {mean:.3}");
}

/// Same picture whatever the plan: every optimisation off gives the image all on gives at
/// frame 10 (auto exposure adapted across frames), with and without the emulated async
/// queue, in both bloom variants.
#[test]
fn optimisations_never_change_the_post_chain() {
    let gpu = gpu();
    let variants: [fn(&mut Features); 2] = [
        |f| {
            f.bloom = Bloom::Hdr;
            f.exposure = Exposure::Auto { compensation: 1.0 };
            f.aa = Aa::Fxaa;
        },
        |f| {
            f.bloom = Bloom::Tonemap;
            f.exposure = Exposure::Auto { compensation: 1.2 };
            f.aa = Aa::Off;
            f.resolution_scale = 0.75;
        },
    ];
    for (k, v) in variants
        .into_iter()
        .flat_map(|v| [(PostPath::Raster, v), (PostPath::Compute, v)])
        .enumerate()
    {
        let (post, v) = v;
        let mut base = None;
        for (options, emulate) in [
            (CompileOptions::ALL, false),
            (CompileOptions::NONE, false),
            (CompileOptions::ALL, true),
            (CompileOptions::NONE, true),
        ] {
            let mut s = settings(v);
            s.features.post = post;
            s.options = options;
            s.emulate_async = emulate;
            let (p, _, plan) = one(&gpu, s, 10);
            // On lavapipe (one queue family) only the emulated queue runs async work; a
            // device with a compute-only family (the H200) runs it on that family.
            if (emulate || gpu.compute.is_some()) && options == CompileOptions::ALL {
                assert!(
                    plan.queues
                        .async_compute
                        .iter()
                        .any(|p| p.as_str() == "luminance histogram"),
                    "the histogram is not on the async queue: {:?}",
                    plan.queues.async_compute
                );
            }
            match &base {
                None => base = Some(p),
                Some(b) => assert!(
                    p == *b,
                    "variant {k} ({post:?}), {options:?}, emulated async {emulate}: {:?}",
                    p.difference(b)
                ),
            }
        }
    }
}

/// On a tiler, bloom from HDR ends the render pass before tone mapping (hdr is sampled),
/// and the plan says so; the tile-friendly variant keeps G-buffer → lighting → transparents
/// → tone map one render pass with hdr memoryless, and its bloom source leaves tile memory.
#[test]
fn on_tilers_tile_friendly_bloom_keeps_one_render_pass() {
    let gpu = gpu();
    let auto = Exposure::Auto { compensation: 1.0 };
    let (_, hdr_graph, _) = one(
        &gpu,
        settings(|f| {
            f.bloom = Bloom::Hdr;
            f.exposure = auto;
            f.aa = Aa::Fxaa;
        }),
        1,
    );
    let (_, tile_graph, _) = one(
        &gpu,
        settings(|f| {
            f.bloom = Bloom::Tonemap;
            f.exposure = auto;
            f.aa = Aa::Fxaa;
        }),
        1,
    );
    for profile in ["mali", "adreno"] {
        let caps = Capabilities::profile(profile).expect("profile");
        let plan =
            tessera_graph::compile(&hdr_graph, &caps, &CompileOptions::ALL).expect("compiles");
        let rp_of = |plan: &Plan, pass: &str| {
            plan.render_passes
                .iter()
                .find(|rp| rp.subpasses.iter().any(|s| s.as_str() == pass))
                .map(|rp| {
                    rp.subpasses
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                })
                .expect(pass)
        };
        assert_eq!(
            rp_of(&plan, "gbuffer"),
            vec!["gbuffer", "lighting", "transparents"],
            "{profile}: bloom from hdr"
        );
        let b = plan
            .breaks
            .iter()
            .find(|b| b.after.as_str() == "transparents" && b.before.as_str() == "tonemap")
            .unwrap_or_else(|| panic!("{profile}: no break before tonemap: {:?}", plan.breaks));
        assert!(
            b.reason.contains(
                "compute pass 'bloom threshold' runs between them and reads 'hdr' (sampled)"
            ) && b.reason.contains("leaves tile memory"),
            "{profile}: the break does not say that the bloom samples hdr: {}",
            b.reason
        );
        let memoryless = tessera_vk::resources::memoryless_set(&hdr_graph, &plan);
        let hdr = hdr_graph.find_resource("hdr").expect("hdr").index();
        assert!(!memoryless[hdr], "{profile}: hdr is sampled yet memoryless");
        eprintln!(
            "{profile}, bloom from hdr: break transparents → tonemap: {}",
            b.reason
        );
        let plan =
            tessera_graph::compile(&tile_graph, &caps, &CompileOptions::ALL).expect("compiles");
        assert_eq!(
            rp_of(&plan, "gbuffer"),
            vec!["gbuffer", "lighting", "transparents", "tonemap"],
            "{profile}: tile-friendly bloom"
        );
        let memoryless = tessera_vk::resources::memoryless_set(&tile_graph, &plan);
        let id = |n: &str| tile_graph.find_resource(n).expect(n).index();
        assert!(memoryless[id("hdr")], "{profile}: hdr left tile memory");
        assert!(
            !memoryless[id("bloom source")],
            "{profile}: the bloom source stayed in tile memory"
        );
        eprintln!(
            "{profile}, tile-friendly: memoryless {} B, transient {} B aliased vs {} B unaliased, breaks {:?}",
            plan.memory.memoryless_bytes,
            plan.memory.aliased_bytes,
            plan.memory.unaliased_bytes,
            plan.breaks.iter().map(|b| format!("{}→{}: {}", b.after, b.before, b.reason)).collect::<Vec<_>>()
        );
    }
}
