//! GPU tests of the executor on the first Vulkan 1.3 device (lavapipe in CI) with
//! validation and synchronization validation: the example frames and seeded random graphs,
//! each in three modes (every optimisation on; `--no-optimize`; every optimisation on with
//! the async-compute queue emulated on the graphics queue, so one-queue devices run the
//! cross-queue parts of async plans), must give zero validation messages and zero
//! mismatches against the CPU model; the UAV-overlap regression runs 1,000 frames with exact
//! counts every frame, and removing its storage barrier must make synchronization
//! validation report the hazard; dropping the semaphore wait that orders a compute-queue
//! write before its graphics-queue reader must be reported too.
//!
//! The example frames are read from `TESSERA_ASSETS` when set (binaries copied to another
//! machine), else from the repository the test was built in.

use tessera_graph::access::Access;
// The graph crate's count of attachments read before their last subpass (one definition for
// both crates' coverage tests).
#[path = "../../graph/tests/common/coverage.rs"]
mod coverage;
use std::sync::Arc;
use tessera_graph::graph::{Import, Origin};
use tessera_graph::{frame_file, CompileOptions, Format, Graph, ImageDesc, QueueKind, ResolveMode};
use tessera_synth::{run_on, ExecConfig, ExecReport};
use tessera_vk::executor::{ExecOptions, TestHooks};
use tessera_vk::{Gpu, GpuOptions};

fn gpu() -> Arc<Gpu> {
    Arc::new(
        Gpu::new(&GpuOptions {
            validation: true,
            surface: None,
            ..Default::default()
        })
        .expect("a Vulkan 1.3 device with validation layers"),
    )
}

fn check(name: &str, r: &ExecReport) {
    assert_eq!(
        (r.validation_messages, r.mismatches),
        (0, 0),
        "{name}: messages {:#?}, mismatches {:#?}",
        r.messages,
        r.mismatch_notes
    );
    assert!(
        r.frames_checked > 0 && r.compared_values > 0,
        "{name}: nothing was compared"
    );
    assert!(r.uncompared.is_empty(), "{name}: {:#?}", r.uncompared);
}

/// The graph in words, for failure messages.
fn describe(g: &Graph) -> String {
    let mut s = String::new();
    for r in &g.resources {
        s += &format!(
            "resource {} {:?} imported={} output={}\n",
            r.name,
            r.kind,
            r.is_imported(),
            r.output
        );
    }
    for p in &g.passes {
        s += &format!("pass {} {:?} {:?}:", p.name, p.kind, p.queue);
        for u in &p.uses {
            s += &format!(
                " {}={}{}",
                g.resource(u.resource).name,
                u.access,
                if u.clear { "(clear)" } else { "" }
            );
        }
        s += "\n";
    }
    s
}

/// The three modes every frame runs in: (label, compile options, emulated async queue).
const MODES: [(&str, CompileOptions, bool); 3] = [
    ("optimized", CompileOptions::ALL, false),
    ("no-optimize", CompileOptions::NONE, false),
    ("emulated-async", CompileOptions::ALL, true),
];

/// What the runs of one mode covered.
#[derive(Debug, Default)]
struct Coverage {
    runs: u32,
    async_runs: u32,
    transfer_runs: u32,
    aliased_runs: u32,
    /// Runs whose frames overlapped: an async tail beside the next frame's graphics head.
    overlap_runs: u32,
}

/// Runs `g` in every mode, checks each run and returns the reports by mode.
fn all_modes(gpu: &Arc<Gpu>, name: &str, g: &Graph, frames: u64) -> Vec<ExecReport> {
    let mut out = Vec::new();
    for (label, options, emulate_async) in MODES {
        let config = ExecConfig {
            frames,
            options,
            exec: ExecOptions {
                emulate_async,
                ..Default::default()
            },
            ..Default::default()
        };
        let r = run_on(gpu, g, &config).unwrap_or_else(|e| panic!("{name} ({label}): {e}"));
        if r.validation_messages > 0 || r.mismatches > 0 {
            eprintln!("{}", describe(g));
        }
        check(&format!("{name} ({label})"), &r);
        out.push(r);
    }
    out
}

/// True for an example frame with history resources (`assets/graphs/taa.json`), after
/// checking that `exec` refuses it with its reason: the synthetic model predicts a frame's
/// values from that frame alone, so it does not run content kept across frames.
/// Whether `exec` refuses `g` (as it must) for content kept across frames: a history or a
/// persistent resource, which its one-frame model cannot predict.
fn refused_kept_content(gpu: &Arc<Gpu>, path: &std::path::Path, g: &Graph) -> bool {
    let kind = if g.resources.iter().any(|r| r.is_history()) {
        "is a history resource"
    } else if g.resources.iter().any(|r| r.is_kept_across_plans()) {
        "is a persistent resource"
    } else {
        return false;
    };
    let err = run_on(gpu, g, &ExecConfig::default())
        .err()
        .unwrap_or_else(|| panic!("{}: exec ran a frame whose resource {kind}", path.display()));
    assert!(err.to_string().contains(kind), "{}: {err}", path.display());
    true
}

fn tally(cov: &mut [Coverage], reports: &[ExecReport]) {
    for (c, r) in cov.iter_mut().zip(reports) {
        c.runs += 1;
        c.async_runs += u32::from(r.async_passes > 0);
        c.transfer_runs += u32::from(r.queue_transfers > 0);
        c.aliased_runs += u32::from(r.aliased);
        c.overlap_runs += u32::from(
            r.plan
                .frame_overlap
                .as_ref()
                .is_some_and(|o| !o.tail.is_empty() && !o.head.is_empty()),
        );
    }
}

fn assets() -> std::path::PathBuf {
    match std::env::var_os("TESSERA_ASSETS") {
        Some(p) => p.into(),
        None => concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets").into(),
    }
}

#[test]
fn example_frames_run_clean() {
    let gpu = gpu();
    let dir = assets().join("graphs");
    let mut names = Vec::new();
    let mut cov: Vec<Coverage> = MODES.iter().map(|_| Coverage::default()).collect();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for p in paths {
        let (g, _) = frame_file::load(&p).unwrap();
        if refused_kept_content(&gpu, &p, &g) {
            continue;
        }
        let reports = all_modes(&gpu, &p.display().to_string(), &g, 3);
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if stem.starts_with("async_scenario") {
            assert!(
                reports[2].async_passes > 0,
                "{stem}: the emulated queue ran no async pass"
            );
        }
        if stem == "tile_deferred_depth_input" {
            // Merged, the depth store waits for lighting's input-attachment read (the
            // dependency the frame was added for): the run above is its test on the device.
            let rp = &reports[0].plan.render_passes;
            assert!(
                rp.iter().any(|rp| rp.subpasses.len() == 5
                    && rp
                        .dependencies
                        .iter()
                        .any(|d| (d.src_subpass, d.dst_subpass) == (2, 3))),
                "{stem}: the optimised plan has no five-subpass render pass with 2 -> 3: {rp:?}"
            );
        }
        if stem == "async_inside_render_pass" {
            assert!(
                async_pass_inside_a_render_pass(&reports[2].plan),
                "{stem}: the emulated plan puts no async pass between subpasses"
            );
        }
        tally(&mut cov, &reports);
        names.push(stem);
    }
    for needed in [
        "async_scenario1",
        "async_scenario2",
        "async_scenario3",
        "async_inside_render_pass",
        "postprocess",
        "deferred",
        "tile_deferred_depth_input",
    ] {
        assert!(
            names.iter().any(|n| n == needed),
            "{needed} was not run: {names:?}"
        );
    }
    // The emulated mode runs ownership hand-overs (as plain barriers on one family).
    assert!(cov[2].transfer_runs > 0, "{cov:?}");
    // --no-optimize runs nothing on the async queue.
    assert_eq!(cov[1].async_runs, 0, "{cov:?}");
}

/// Whether some async-compute pass sits, in the plan's order, between the first and last
/// subpass of a render pass (it runs on the other queue while the render pass records).
fn async_pass_inside_a_render_pass(plan: &tessera_graph::Plan) -> bool {
    let at = plan.positions();
    plan.render_passes.iter().any(|rp| {
        let (Some(&first), Some(&last)) = (
            rp.subpasses.first().and_then(|n| at.get(n.as_str())),
            rp.subpasses.last().and_then(|n| at.get(n.as_str())),
        ) else {
            return false;
        };
        plan.order[first..=last]
            .iter()
            .any(|n| plan.queues.async_compute.contains(n))
    })
}

/// xorshift64*: a tiny seeded generator so failures reproduce from the seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

const COLOR: &[Format] = &[
    Format::R8G8B8A8_UNORM,
    Format::R16G16B16A16_SFLOAT,
    Format::R32_UINT,
];
/// Colour formats of multisampled images (resolvable).
const MSAA_COLOR: &[Format] = &[Format::R8G8B8A8_UNORM, Format::R16G16B16A16_SFLOAT];
const EXTENTS: &[(u32, u32)] = &[(32, 32), (16, 8)];

/// An image of a random graph: id, format, extent and samples.
type Image = (tessera_graph::ResourceId, Format, (u32, u32), u32);

/// A use being drawn: resource, access, clear.
type Drawn = (tessera_graph::ResourceId, Access, bool);

/// Adds raster pass `name` with `uses` and an optional resolve (target, source).
fn add_raster(
    g: &mut Graph,
    name: String,
    uses: &[Drawn],
    resolve: Option<(tessera_graph::ResourceId, tessera_graph::ResourceId)>,
) {
    let mut pb = g.raster(name);
    for &(id, a, c) in uses {
        pb = if c { pb.clears(id, a) } else { pb.uses(id, a) };
    }
    if let Some((target, from)) = resolve {
        pb = pb.resolves(target, from);
    }
    pb.id();
}

/// A single-sampled image of `src`'s format and extent not in `uses`, to resolve `src` into.
fn resolve_target(
    images: &[Image],
    src: &Image,
    uses: &[Drawn],
) -> Option<tessera_graph::ResourceId> {
    images
        .iter()
        .find(|i| i.3 == 1 && i.1 == src.1 && i.2 == src.2 && !uses.iter().any(|u| u.0 == i.0))
        .map(|i| i.0)
}

/// A random valid frame: images of two extents and two sample counts (some depth), buffers,
/// raster passes whose attachments share one extent and sample count (multisampled colour
/// sometimes resolved), compute and transfer passes, reads only of written resources, some
/// async-compute passes, some imported resources. Some raster passes come as a chain of three
/// on one framebuffer that reads an attachment (input attachment, depth test, blending) in
/// the middle pass and uses it last in the third, so that, merged, the attachment's store
/// must wait for that read; the chained attachment is a result or not (`STORE` or
/// `DONT_CARE`). Every other written resource is a result, so little is culled.
fn random_graph(seed: u64) -> Graph {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut g = Graph::new(format!("random{seed}"));
    let mut images: Vec<Image> = Vec::new();
    for i in 0..(3 + r.below(5)) {
        let (w, h) = EXTENTS[r.below(EXTENTS.len() as u64) as usize];
        let depth = i > 0 && r.chance(20);
        let samples = if i > 0 && r.chance(20) { 4 } else { 1 };
        let f = if depth {
            Format::D32_SFLOAT
        } else if samples > 1 {
            MSAA_COLOR[r.below(MSAA_COLOR.len() as u64) as usize]
        } else {
            COLOR[r.below(COLOR.len() as u64) as usize]
        };
        let id = g.image(format!("img{i}"), ImageDesc::new(f, w, h).samples(samples));
        if samples == 1 && r.chance(15) {
            g.resource_mut(id).origin = Origin::IMPORTED;
        }
        images.push((id, f, (w, h), samples));
        if samples > 1 && !depth && r.chance(60) {
            // A multisampled framebuffer: a second colour image of the format, a resolve
            // target, sometimes a depth image.
            let second = g.image(format!("img{i}b"), ImageDesc::new(f, w, h).samples(4));
            images.push((second, f, (w, h), 4));
            let target = g.image(format!("img{i}r"), ImageDesc::new(f, w, h));
            images.push((target, f, (w, h), 1));
            if r.chance(50) {
                let d = Format::D32_SFLOAT;
                let id = g.image(format!("img{i}d"), ImageDesc::new(d, w, h).samples(4));
                images.push((id, d, (w, h), 4));
            }
        }
    }
    let mut buffers = Vec::new();
    for i in 0..(1 + r.below(2)) {
        let id = g.buffer(format!("buf{i}"), [64, 256, 1024][r.below(3) as usize]);
        if r.chance(20) {
            g.resource_mut(id).origin = Origin::IMPORTED;
        }
        buffers.push(id);
    }
    let mut written = vec![false; g.resources.len()];
    // Chained attachments drawn not to be results.
    let mut scratch = vec![false; g.resources.len()];
    for (id, ..) in &images {
        written[id.index()] = g.resource(*id).is_imported();
    }
    for id in &buffers {
        written[id.index()] = g.resource(*id).is_imported();
    }
    let passes = 3 + r.below(6);
    for p in 0..passes {
        let kind = r.below(10);
        let mut uses: Vec<Drawn> = Vec::new();
        let taken = |uses: &Vec<Drawn>, id| uses.iter().any(|u| u.0 == id);
        if kind < 5 {
            // Raster: one extent and sample count for every attachment.
            let ext = EXTENTS[r.below(EXTENTS.len() as u64) as usize];
            let msaa = images
                .iter()
                .any(|i| i.2 == ext && i.3 > 1 && !i.1.is_depth_stencil());
            let samples = if msaa && r.chance(40) { 4 } else { 1 };
            let same: Vec<Image> = images
                .iter()
                .filter(|i| i.2 == ext && i.3 == samples)
                .cloned()
                .collect();
            let colors: Vec<Image> = same
                .iter()
                .filter(|i| !i.1.is_depth_stencil())
                .cloned()
                .collect();
            let depth = same.iter().find(|i| i.1.is_depth_stencil()).cloned();
            if colors.len() >= 2 && r.chance(40) {
                // A chain: `a` writes `c1` (and the depth), `b` reads them and writes `c2`,
                // `c` uses them last.
                let (c1, c2) = if r.chance(50) {
                    (colors[0], colors[1])
                } else {
                    (colors[1], colors[0])
                };
                let mut a = vec![(c1.0, Access::ColorWrite, true)];
                let mut b = vec![(c1.0, Access::InputAttachment, false)];
                let mut c = Vec::new();
                if r.chance(50) {
                    c.push((c1.0, Access::ColorReadWrite, false));
                } else {
                    c.push((c1.0, Access::InputAttachment, false));
                }
                b.push((c2.0, Access::ColorWriteAll, false));
                c.push((c2.0, Access::ColorReadWrite, false));
                if let Some(d) = &depth {
                    a.push((d.0, Access::DepthWrite, true));
                    b.push((
                        d.0,
                        if r.chance(50) {
                            Access::DepthRead
                        } else {
                            Access::InputAttachment
                        },
                        false,
                    ));
                    c.push((d.0, Access::DepthRead, false));
                    scratch[d.0.index()] = r.chance(50);
                }
                scratch[c1.0.index()] = r.chance(50);
                let resolve = if samples > 1 && r.chance(70) {
                    resolve_target(&images, &c2, &c).map(|t| (t, c2.0))
                } else {
                    None
                };
                add_raster(&mut g, format!("p{p}a"), &a, None);
                add_raster(&mut g, format!("p{p}b"), &b, None);
                add_raster(&mut g, format!("p{p}c"), &c, resolve);
                for (id, ..) in a.iter().chain(&b).chain(&c) {
                    written[id.index()] = true;
                }
                if let Some((t, _)) = resolve {
                    written[t.index()] = true;
                }
                continue;
            }
            let Some(out) = colors
                .get(r.below(colors.len().max(1) as u64) as usize)
                .cloned()
            else {
                continue;
            };
            uses.push((
                out.0,
                if r.chance(50) {
                    Access::ColorWriteAll
                } else {
                    Access::ColorWrite
                },
                r.chance(30),
            ));
            let mut has_depth = false;
            for im in &same {
                if taken(&uses, im.0) {
                    continue;
                }
                if im.1.is_depth_stencil() && !has_depth && r.chance(40) {
                    has_depth = true;
                    let w = !written[im.0.index()] || r.chance(50);
                    uses.push((
                        im.0,
                        if w {
                            Access::DepthWrite
                        } else {
                            Access::DepthRead
                        },
                        w && r.chance(50),
                    ));
                } else if written[im.0.index()] && r.chance(35) {
                    uses.push((im.0, Access::InputAttachment, false));
                }
            }
            for im in &images {
                if im.3 == 1 && !taken(&uses, im.0) && written[im.0.index()] && r.chance(25) {
                    uses.push((im.0, Access::Sampled, false));
                }
            }
            for b in &buffers {
                if !taken(&uses, *b) && written[b.index()] && r.chance(25) {
                    uses.push((
                        *b,
                        if r.chance(50) {
                            Access::StorageRead
                        } else {
                            Access::Indirect
                        },
                        false,
                    ));
                }
            }
            let resolve = if samples > 1 && r.chance(50) {
                resolve_target(&images, &out, &uses).map(|t| (t, out.0))
            } else {
                None
            };
            add_raster(&mut g, format!("p{p}"), &uses, resolve);
            if let Some((t, _)) = resolve {
                written[t.index()] = true;
            }
        } else if kind < 8 {
            // (Multisampled images are attachments only.)
            for im in images.iter().filter(|i| i.3 == 1) {
                if im.1.is_depth_stencil() {
                    if written[im.0.index()] && r.chance(30) {
                        uses.push((im.0, Access::Sampled, false));
                    }
                    continue;
                }
                let a = match r.below(5) {
                    0 => Access::StorageWrite,
                    1 if written[im.0.index()] => Access::StorageReadWrite,
                    2 if written[im.0.index()] => Access::Sampled,
                    3 if written[im.0.index()] => Access::StorageRead,
                    _ => continue,
                };
                uses.push((im.0, a, false));
            }
            for b in &buffers {
                let a = match r.below(4) {
                    0 => Access::StorageWrite,
                    1 if written[b.index()] => Access::StorageReadWrite,
                    2 if written[b.index()] => Access::StorageRead,
                    3 if written[b.index()] => Access::Indirect,
                    _ => continue,
                };
                uses.push((*b, a, false));
            }
            if !uses.iter().any(|u| u.1.writes()) {
                continue;
            }
            let mut pb = g.compute(format!("p{p}"));
            if r.chance(40) {
                pb = pb.on_queue(QueueKind::AsyncCompute);
            }
            for (id, a, _) in &uses {
                pb = pb.uses(*id, *a);
            }
            pb.id();
        } else {
            // Transfer: a copy between written resources of one kind, or a clear.
            let b = buffers[r.below(buffers.len() as u64) as usize];
            let src = buffers
                .iter()
                .find(|x| **x != b && written[x.index()])
                .copied();
            let mut pb = g.transfer(format!("p{p}"));
            match src {
                Some(s) if r.chance(60) => {
                    pb = pb.uses(s, Access::TransferSrc).uses(b, Access::TransferDst);
                    uses.push((s, Access::TransferSrc, false));
                }
                _ => pb = pb.clears(b, Access::TransferDst),
            }
            uses.push((b, Access::TransferDst, false));
            pb.side_effects().id();
        }
        for (id, a, _) in &uses {
            if a.writes() {
                written[id.index()] = true;
            }
        }
    }
    // Every written resource but the scratch ones is a result, so little is culled.
    let ids: Vec<_> = g
        .resource_ids()
        .filter(|id| written[id.index()] && !scratch[id.index()])
        .collect();
    for id in ids {
        g.resource_mut(id).output = true;
    }
    g
}

#[test]
fn random_graphs_run_clean() {
    let gpu = gpu();
    let mut cov: Vec<Coverage> = MODES.iter().map(|_| Coverage::default()).collect();
    let mut ran = 0;
    let mut seed = 0;
    let mut middle = coverage::MiddleReads::default();
    while ran < 50 && seed < 400 {
        seed += 1;
        let mut g = random_graph(seed);
        if seed % 2 == 0 {
            // Compute after the last raster work on the async queue, as the renderer's
            // post chain with overlapping frames.
            tessera_graph::compile::overlap::tail_to_async(&mut g);
        }
        let caps = gpu.capabilities();
        if tessera_graph::compile(&g, &caps, &CompileOptions::ALL).is_err() {
            continue; // the generator made something the compiler rejects
        }
        let reports = all_modes(&gpu, &format!("seed {seed}"), &g, 3);
        tally(&mut cov, &reports);
        middle.add(coverage::middle_reads(&g, &reports[0].plan));
        ran += 1;
    }
    assert!(ran >= 50, "only {ran} random graphs compiled");
    println!("attachments read before their last subpass: {middle:?}");
    // Merged render passes read attachments before their last subpass (so their stores wait
    // for those reads), stored and not, some with a resolve.
    assert!(
        middle.store >= 5 && middle.dont_care >= 5 && middle.resolve >= 2,
        "{middle:?}"
    );
    // Both queue kinds, hand-overs, aliased memory and overlapping frames are covered in
    // the emulated mode.
    let e = &cov[2];
    assert!(
        e.async_runs >= 10 && e.transfer_runs > 0 && e.aliased_runs > 0 && e.overlap_runs >= 5,
        "{cov:?}"
    );
}

fn uav_graph() -> Graph {
    let mut g = Graph::new("uav_overlap");
    let b = g.buffer("counts", 256);
    g.resource_mut(b).output = true;
    g.transfer("clear").clears(b, Access::TransferDst).id();
    g.compute("accumulate")
        .uses(b, Access::StorageReadWrite)
        .id();
    g
}

#[test]
fn uav_overlap_counts_exact_for_1000_frames() {
    let gpu = gpu();
    let config = ExecConfig {
        frames: 1000,
        ..Default::default()
    };
    let r = run_on(&gpu, &uav_graph(), &config).unwrap();
    check("uav overlap", &r);
    assert_eq!(r.frames_checked, 1000);
    assert_eq!(
        r.compared_values,
        1000 * 64,
        "every word of every frame compared"
    );
}

#[test]
fn uav_overlap_without_its_barrier_is_reported() {
    let gpu = gpu();
    let config = ExecConfig {
        frames: 4,
        hooks: TestHooks {
            drop_barriers_on: Some("counts".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let r = run_on(&gpu, &uav_graph(), &config).unwrap();
    assert!(
        r.validation_messages > 0,
        "no hazard reported without the barrier"
    );
    assert!(
        r.messages.iter().any(|m| m.contains("SYNC-HAZARD")),
        "{:#?}",
        r.messages
    );
}

/// The environment that turns on submit-time synchronization validation (hazards between
/// command buffers and submits, through semaphores) in `VK_LAYER_KHRONOS_validation`
/// 1.3.239, where it is an opt-in (alpha) check read when the instance is created.
const SUBMIT_VALIDATION: &str = "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT:\
VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT";

/// The negative proof for the cross-queue path, in a child process of this test binary (the
/// layer reads its switches from the environment at instance creation, and the other tests
/// keep the default, so they must not share the process).
#[test]
fn cross_queue_write_without_its_wait_is_reported() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["cross_queue_child", "--exact", "--ignored", "--nocapture"])
        .env("VK_LAYER_ENABLES", SUBMIT_VALIDATION)
        .env("TESSERA_CROSS_QUEUE_CHILD", "1")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "child failed:\n{text}"
    );
}

/// Scenario 3 with the async queue emulated: 'cull' writes the indirect arguments on the
/// compute queue and 'sky' (first graphics batch) draws with them after a semaphore wait.
/// With submit-time validation on, the planned frame is clean and dropping that wait is
/// reported as a read-after-write hazard. One frame only: 1.3.239's alpha submit-time
/// validation mis-tracks timeline waits of batches that themselves wait (from frame 1 on the
/// compute batch waits for the previous frame), reporting hazards that the waits cover.
#[test]
#[ignore = "run by cross_queue_write_without_its_wait_is_reported in a child process"]
fn cross_queue_child() {
    assert!(
        std::env::var_os("TESSERA_CROSS_QUEUE_CHILD").is_some(),
        "run through cross_queue_write_without_its_wait_is_reported"
    );
    let gpu = gpu();
    let (g, _) = frame_file::load(&assets().join("graphs/async_scenario3.json")).unwrap();
    let run = |drop: Option<&str>| {
        let config = ExecConfig {
            frames: 1,
            exec: ExecOptions {
                emulate_async: true,
                ..Default::default()
            },
            hooks: TestHooks {
                drop_waits_before: drop.map(str::to_string),
                ..Default::default()
            },
            ..Default::default()
        };
        run_on(&gpu, &g, &config).unwrap()
    };
    let planned = run(None);
    check("scenario 3 emulated, submit-time validation", &planned);
    assert!(planned.async_passes > 0 && planned.syncs > 0);
    let dropped = run(Some("sky"));
    assert!(
        dropped
            .messages
            .iter()
            .any(|m| m.contains("SYNC-HAZARD-READ-AFTER-WRITE") && m.contains("INDIRECT")),
        "dropping the wait before 'sky' went unnoticed: {:#?}",
        dropped.messages
    );
}

#[test]
fn probed_memory_classes_fit_real_resources() {
    let gpu = gpu();
    let bits = gpu.probe_type_bits();
    assert!(bits.iter().all(|b| *b != 0), "{bits:?}");
    let classes = gpu.capabilities().memory_classes;
    // Kinds in one class share a device-local type: a block mixing them can be allocated.
    let kinds = [
        classes.buffer,
        classes.image,
        classes.color_attachment,
        classes.depth_attachment,
    ];
    for i in 0..4 {
        for j in 0..4 {
            if kinds[i] == kinds[j] {
                let members = [(0, ash_req(bits[i])), (65536, ash_req(bits[j]))];
                assert!(
                    tessera_vk::memtype::block_requirements(gpu.memory_types(), &members).is_some(),
                    "kinds {i} and {j} share class {} but no memory type",
                    kinds[i]
                );
            }
        }
    }
}

fn ash_req(bits: u32) -> ash::vk::MemoryRequirements {
    ash::vk::MemoryRequirements {
        size: 4096,
        alignment: 256,
        memory_type_bits: bits,
    }
}

// The oracle judges the plan: the CPU model runs the graph as declared, so a plan altered
// before it runs (the test-only `ExecConfig::alter_plan`) is reported, not excused.

/// A transient canvas filled by a transfer, painted over with `color_write` (which keeps the
/// pixels it leaves: the paint's render pass must load the fill), then sampled into the
/// output.
fn partial_paint_graph() -> Graph {
    let mut g = Graph::new("partial_paint");
    let canvas = g.image("canvas", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
    g.resource_mut(out).output = true;
    g.transfer("fill").clears(canvas, Access::TransferDst).id();
    g.raster("paint").uses(canvas, Access::ColorWrite).id();
    g.raster("show")
        .uses(canvas, Access::Sampled)
        .uses(out, Access::ColorWriteAll)
        .id();
    g
}

/// Flips the plan's one `LOAD` of 'canvas' to `DONT_CARE`.
fn canvas_load_to_dont_care(plan: &mut tessera_graph::Plan) {
    use tessera_graph::plan::LoadOp;
    let mut flipped = 0;
    for rp in &mut plan.render_passes {
        for a in &mut rp.attachments {
            if a.resource.as_ref() == "canvas" && a.load_op == LoadOp::Load {
                a.load_op = LoadOp::DontCare;
                flipped += 1;
            }
        }
    }
    assert_eq!(flipped, 1, "the plan loads 'canvas' once");
}

/// In every mode: `g` runs clean as planned, then runs with `alter` applied to its plan;
/// the altered runs' reports, with their mode's label.
fn clean_then_altered(
    g: &Graph,
    alter: fn(&mut tessera_graph::Plan),
) -> Vec<(&'static str, ExecReport)> {
    let gpu = gpu();
    MODES
        .into_iter()
        .map(|(label, options, emulate_async)| {
            let config = |alter_plan| ExecConfig {
                options,
                exec: ExecOptions {
                    emulate_async,
                    ..Default::default()
                },
                alter_plan,
                ..Default::default()
            };
            let clean = run_on(&gpu, g, &config(None)).unwrap();
            check(&format!("{} ({label})", g.name), &clean);
            (label, run_on(&gpu, g, &config(Some(alter))).unwrap())
        })
        .collect()
}

#[test]
fn a_needed_load_flipped_to_dont_care_is_a_mismatch() {
    for (label, bad) in clean_then_altered(&partial_paint_graph(), canvas_load_to_dont_care) {
        assert!(
            bad.mismatches > 0 && bad.mismatch_notes.iter().any(|n| n.contains("'out'")),
            "{label}: a DONT_CARE load of needed content went unreported: {} values compared",
            bad.compared_values
        );
    }
}

/// An imported history buffer accumulated every frame, then read into the output.
fn accumulate_graph() -> Graph {
    let mut g = Graph::new("accumulate_then_read");
    let history = g.buffer("history", 256);
    g.resource_mut(history).origin = Origin::IMPORTED;
    let result = g.buffer("result", 256);
    g.resource_mut(result).output = true;
    g.compute("accumulate")
        .uses(history, Access::StorageReadWrite)
        .id();
    g.compute("read")
        .uses(history, Access::StorageRead)
        .uses(result, Access::StorageWrite)
        .id();
    g
}

/// Swaps 'accumulate' and 'read' in every pass list the executor follows.
fn swap_accumulate_and_read(plan: &mut tessera_graph::Plan) {
    fn swap<N: AsRef<str>>(list: &mut [N]) -> bool {
        let at = |n: &str| list.iter().position(|x| x.as_ref() == n);
        match (at("accumulate"), at("read")) {
            (Some(a), Some(b)) => {
                list.swap(a, b);
                true
            }
            _ => false,
        }
    }
    assert!(swap(&mut plan.order), "both passes are kept");
    swap(&mut plan.queues.graphics);
    swap(&mut plan.queues.async_compute);
    for b in &mut plan.batches {
        swap(&mut b.passes);
    }
}

#[test]
fn two_dependent_passes_swapped_are_a_mismatch() {
    for (label, bad) in clean_then_altered(&accumulate_graph(), swap_accumulate_and_read) {
        assert!(
            bad.mismatches > 0 && bad.mismatch_notes.iter().any(|n| n.contains("'result'")),
            "{label}: a read moved before the write it depends on went unreported"
        );
    }
}

#[test]
fn the_oracle_compares_the_same_values_whatever_the_plan() {
    // The model follows the graph, not the plan: every mode compiles a different plan of an
    // example frame, and each must be checked on exactly the same resources and values.
    let gpu = gpu();
    let dir = assets().join("graphs");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    for p in paths {
        let (g, _) = frame_file::load(&p).unwrap();
        if refused_kept_content(&gpu, &p, &g) {
            continue;
        }
        let reports = all_modes(&gpu, &p.display().to_string(), &g, 2);
        let seen: Vec<_> = reports
            .iter()
            .map(|r| (r.compared_resources.clone(), r.compared_values))
            .collect();
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "{}: {seen:?}",
            p.display()
        );
    }
}

#[test]
fn an_output_of_which_nothing_can_be_compared_is_a_failure_not_a_pass() {
    // The history's earlier content is declared unneeded, yet it is read first: the output
    // made from it is undefined everywhere, so the oracle can check nothing of it.
    let mut g = Graph::new("reads_what_it_discards");
    let history = g.image("history", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
    g.resource_mut(history).origin = Origin::Imported(Import {
        clear_on_first_use: true,
        ..Import::default()
    });
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
    g.resource_mut(out).output = true;
    g.raster("look")
        .uses(history, Access::Sampled)
        .uses(out, Access::ColorWriteAll)
        .id();
    let r = run_on(&gpu(), &g, &ExecConfig::default()).unwrap();
    assert_eq!((r.validation_messages, r.mismatches), (0, 0), "{r:#?}");
    assert!(
        r.uncompared.iter().any(|n| n.starts_with("'out':")),
        "{:?}",
        r.uncompared
    );
}

/// Multisampled colour and depth on one framebuffer (64×32), the depth resolved on write-back
/// into `d1` by pass `resolver` (with `mode`, `None`: the default) and sampled by a compute
/// pass into an output. `shape` picks where the depth is written, read and resolved.
fn depth_resolve_graph(shape: u8, mode: Option<ResolveMode>) -> Graph {
    let mut g = Graph::new(format!("depth_resolve{shape}"));
    let ms = |f| ImageDesc::new(f, 64, 32).samples(4);
    let d = g.image("ms_depth", ms(Format::D32_SFLOAT));
    let c = g.image("ms_color", ms(Format::R8G8B8A8_UNORM));
    let c1 = g.image("color_1x", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    let d1 = g.image("depth_1x", ImageDesc::new(Format::D32_SFLOAT, 64, 32));
    let seen = g.image("seen", ImageDesc::new(Format::R32_UINT, 64, 32));
    g.resource_mut(c1).output = true;
    g.resource_mut(seen).output = true;
    fn resolve(
        b: tessera_graph::graph::PassBuilder<'_>,
        d1: tessera_graph::ResourceId,
        d: tessera_graph::ResourceId,
        mode: Option<ResolveMode>,
    ) {
        match mode {
            Some(m) => b.resolves_depth(d1, d, m),
            None => b.resolves(d1, d),
        };
    }
    match shape {
        // One pass writes the depth and resolves it.
        0 => {
            let b = g
                .raster("draw")
                .clears(d, Access::DepthWrite)
                .clears(c, Access::ColorWrite)
                .resolves(c1, c);
            resolve(b, d1, d, mode);
        }
        // A later subpass tests the depth and resolves it (merged: a subpass dependency
        // into the resolve's read; unmerged: a barrier).
        1 => {
            g.raster("opaque")
                .clears(d, Access::DepthWrite)
                .clears(c, Access::ColorWrite);
            let b = g
                .raster("transparent")
                .uses(d, Access::DepthRead)
                .uses(c, Access::ColorReadWrite)
                .resolves(c1, c);
            resolve(b, d1, d, mode);
        }
        // A middle subpass reads the depth samples as an input attachment; the last one
        // tests it and resolves it.
        _ => {
            let x = g.image("ms_x", ms(Format::R8G8B8A8_UNORM));
            g.raster("a")
                .clears(d, Access::DepthWrite)
                .clears(c, Access::ColorWrite);
            g.raster("b")
                .uses(d, Access::InputAttachment)
                .uses(x, Access::ColorWriteAll);
            let b = g
                .raster("c")
                .uses(d, Access::DepthRead)
                .uses(x, Access::InputAttachment)
                .uses(c, Access::ColorReadWrite)
                .resolves(c1, c);
            resolve(b, d1, d, mode);
        }
    }
    g.compute("ssao")
        .uses(d1, Access::Sampled)
        .uses(seen, Access::StorageWrite);
    g
}

/// Depth resolved on write-back runs clean in every mode (validation with synchronization
/// validation, the CPU model): written and resolved in one pass, resolved by a later subpass
/// that tests it, and after a subpass that reads its samples as an input attachment.
#[test]
fn depth_resolves_run_clean() {
    let gpu = gpu();
    let caps = gpu.capabilities();
    assert!(
        caps.depth_resolve_modes.contains(ResolveMode::SampleZero),
        "the device resolves depth: {:?}",
        caps.depth_resolve_modes
    );
    for shape in 0..3 {
        for mode in [None, Some(ResolveMode::SampleZero)] {
            let g = depth_resolve_graph(shape, mode);
            let reports = all_modes(&gpu, g.name.as_ref(), &g, 3);
            let plan = &reports[0].plan;
            let depth = plan
                .render_passes
                .iter()
                .flat_map(|rp| rp.attachments.iter())
                .find(|a| a.resource == "ms_depth" && a.resolve_target.is_some())
                .unwrap_or_else(|| panic!("{}: no resolved ms_depth", g.name));
            assert_eq!(depth.resolve_target.as_deref(), Some("depth_1x"));
            assert_eq!(depth.resolve_mode, Some(ResolveMode::SampleZero));
        }
    }
}
