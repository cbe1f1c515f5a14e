//! Property tests: random raster-heavy frames (several extents and sample counts, input
//! attachments, sampled reads, MSAA colour and depth resolves of every mode, compute passes in between on either queue,
//! declared-memoryless images) compiled under random options and devices; every plan must pass the plan checker,
//! and a declared-memoryless error must agree with what the undeclared frame gets.

mod common;

use common::coverage::{middle_reads, MiddleReads};
use proptest::prelude::*;
use tessera_graph::access::Access;
use tessera_graph::compile::renderpass::merge::{self, OpenGroup};
use tessera_graph::compile::renderpass::{dependencies, load_store};
use tessera_graph::compile::{cull, deps, levels, order, Schedule};
use tessera_graph::graph::Origin;
use tessera_graph::{
    check, compile, Capabilities, CompileError, CompileOptions, Format, Graph, ImageDesc, PassKind,
    QueueKind, ResolveMode, ResourceId,
};

/// Image classes: (width, height, samples).
const CLASSES: &[(u32, u32, u32)] = &[(64, 32, 1), (32, 16, 1), (64, 32, 4)];

#[derive(Clone, Debug)]
struct PassSpec {
    compute: bool,
    on_async: bool,
    class: usize,
    /// Three raster passes on one framebuffer instead of one: the second reads what the first
    /// wrote (input attachment, depth test), the third uses it last.
    chain: bool,
    side_effects: bool,
    picks: Vec<(u8, u8, bool)>,
}

fn pass_spec() -> impl Strategy<Value = PassSpec> {
    (
        0u8..7,
        // One more than the classes: the class of the raster pass before (so that runs of
        // passes on one framebuffer, which merge, are common).
        0..=CLASSES.len(),
        any::<bool>(),
        prop::collection::vec((any::<u8>(), any::<u8>(), any::<bool>()), 1..5),
    )
        .prop_map(|(k, class, side_effects, picks)| PassSpec {
            compute: k == 0 || k == 6,
            on_async: k == 6,
            class,
            chain: k == 1,
            side_effects,
            picks,
        })
}

struct Pool {
    /// Per class: colour images (RGBA8, RGBA16F), then the depth image.
    class: Vec<Vec<ResourceId>>,
    resolve: ResourceId,
    /// Single-sampled D32 target of depth resolves (of the multisampled class's depth).
    depth_resolve: ResourceId,
    buffer: ResourceId,
}

/// A depth resolve mode every profile supports, or none (`sample_zero`), from a pick.
fn depth_mode(pick: u8) -> Option<ResolveMode> {
    [
        None,
        Some(ResolveMode::SampleZero),
        Some(ResolveMode::Min),
        Some(ResolveMode::Max),
    ][pick as usize % 4]
}

fn build(specs: &[PassSpec], flags: u16) -> Graph {
    let mut g = Graph::new("random");
    let mut class = Vec::new();
    let mut n = 0u32;
    for &(w, h, s) in CLASSES {
        let mut ids = Vec::new();
        for f in [
            Format::R8G8B8A8_UNORM,
            Format::R16G16B16A16_SFLOAT,
            Format::R8G8B8A8_UNORM,
            Format::D32_SFLOAT,
        ] {
            let id = g.image(format!("i{n}"), ImageDesc::new(f, w, h).samples(s));
            let bit = 1u16 << (n % 16);
            let r = g.resource_mut(id);
            if flags & bit != 0 {
                r.origin = Origin::MEMORYLESS;
            } else if (flags >> 8) & bit != 0 && s == 1 {
                r.output = true;
            }
            n += 1;
            ids.push(id);
        }
        class.push(ids);
    }
    let resolve = g.image("resolved", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    g.resource_mut(resolve).output = true;
    let depth_resolve = g.image("resolved_depth", ImageDesc::new(Format::D32_SFLOAT, 64, 32));
    // Sometimes an output, sometimes only sampled by a later pass (or not at all).
    g.resource_mut(depth_resolve).output = flags & 1 == 0;
    let buffer = g.buffer("buf", 256);
    let pool = Pool {
        class,
        resolve,
        depth_resolve,
        buffer,
    };
    let mut written = vec![false; g.resources.len()];
    let mut previous_class = 0;
    for (i, spec) in specs.iter().enumerate() {
        let class = if spec.class < CLASSES.len() {
            spec.class
        } else {
            previous_class
        };
        if !spec.compute {
            previous_class = class;
        }
        if spec.chain && !spec.compute {
            chain(&mut g, &pool, class, i, spec);
            for k in [0, 2, 3] {
                written[pool.class[class][k].index()] = true;
            }
            written[pool.resolve.index()] |= CLASSES[class].2 > 1;
            written[pool.depth_resolve.index()] |= CLASSES[class].2 > 1 && spec.picks[0].2;
            continue;
        }
        let mut uses: Vec<(ResourceId, Access, bool, Option<ResourceId>)> = Vec::new();
        let add =
            |uses: &mut Vec<_>, r: ResourceId, a: Access, clear: bool, from: Option<ResourceId>| {
                if !uses
                    .iter()
                    .any(|u: &(ResourceId, Access, bool, Option<ResourceId>)| u.0 == r)
                {
                    uses.push((r, a, clear, from));
                }
            };
        if spec.compute {
            for &(r, a, _) in &spec.picks {
                let img = pool.class[r as usize % CLASSES.len()][(a as usize / 3) % 3];
                if a % 7 == 6 && written[pool.depth_resolve.index()] {
                    // The resolved depth, sampled (SSAO, fog).
                    add(&mut uses, pool.depth_resolve, Access::Sampled, false, None);
                } else if a % 2 == 0 && written[img.index()] {
                    add(&mut uses, img, Access::Sampled, false, None);
                } else {
                    add(&mut uses, pool.buffer, Access::StorageWrite, false, None);
                }
            }
        } else {
            let mine = &pool.class[class];
            for &(r, a, clear) in &spec.picks {
                let slot = r as usize % 5;
                if slot == 4 {
                    // A sampled read of any written image of another class.
                    let other = &pool.class[(class + 1 + a as usize % 2) % CLASSES.len()];
                    let img = other[a as usize % 4];
                    if written[img.index()] {
                        add(&mut uses, img, Access::Sampled, false, None);
                    }
                    continue;
                }
                let img = mine[slot];
                let has = written[img.index()];
                let access = if slot == 3 {
                    match a % 3 {
                        0 => Access::DepthWrite,
                        1 if has => Access::DepthRead,
                        2 if has => Access::InputAttachment,
                        _ => Access::DepthWrite,
                    }
                } else {
                    match a % 5 {
                        0 => Access::ColorWrite,
                        1 => Access::ColorWriteAll,
                        2 if has => Access::ColorReadWrite,
                        3 if has => Access::InputAttachment,
                        4 if has && CLASSES[class].2 == 1 => Access::Sampled,
                        _ => Access::ColorWriteAll,
                    }
                };
                let clear = clear && matches!(access, Access::ColorWrite | Access::DepthWrite)
                    || (access == Access::DepthWrite && !has);
                add(&mut uses, img, access, clear, None);
            }
            let msaa_colour = uses
                .iter()
                .find(|u| {
                    u.0 == mine[0] && u.1 != Access::InputAttachment && u.1 != Access::Sampled
                })
                .map(|u| u.0);
            if let (Some(src), true) = (msaa_colour, CLASSES[class].2 > 1 && spec.picks.len() > 2) {
                add(&mut uses, pool.resolve, Access::Resolve, false, Some(src));
            }
            // The multisampled depth attachment, resolved on write-back.
            let msaa_depth = uses
                .iter()
                .any(|u| u.0 == mine[3] && matches!(u.1, Access::DepthWrite | Access::DepthRead));
            if msaa_depth && CLASSES[class].2 > 1 && spec.picks.len() > 1 {
                add(
                    &mut uses,
                    pool.depth_resolve,
                    Access::Resolve,
                    false,
                    Some(mine[3]),
                );
            }
        }
        let name = format!("p{i}");
        let mut b = if spec.compute {
            let queue = if spec.on_async {
                QueueKind::AsyncCompute
            } else {
                QueueKind::Graphics
            };
            g.compute(name).on_queue(queue)
        } else {
            g.raster(name)
        };
        let mode = depth_mode(spec.picks.last().map_or(0, |p| p.0));
        for &(r, a, clear, from) in &uses {
            b = match (a, from) {
                (Access::Resolve, Some(src)) if r == pool.depth_resolve => match mode {
                    Some(m) => b.resolves_depth(r, src, m),
                    None => b.resolves(r, src),
                },
                (Access::Resolve, Some(src)) => b.resolves(r, src),
                (_, _) if clear => b.clears(r, a),
                _ => b.uses(r, a),
            };
        }
        if spec.side_effects {
            b.side_effects();
        }
        for &(r, a, _, _) in &uses {
            if a.writes() {
                written[r.index()] = true;
            }
        }
    }
    g
}

/// The chain of [`PassSpec::chain`] on the images of `class`: `a` clears colour `x` and
/// the depth, `b` reads both (input attachment; depth test or input attachment) and writes
/// `y`, `c` uses them last (`x` blended or read as an input attachment, the depth tested,
/// `y` blended and, multisampled, resolved) and has side effects.
fn chain(g: &mut Graph, pool: &Pool, class: usize, i: usize, spec: &PassSpec) {
    let mine = &pool.class[class];
    // (Two RGBA8 colour targets: multisampled, they fit a 256-bit tile.)
    let (y, x, d) = (mine[0], mine[2], mine[3]);
    let pick = spec.picks[0];
    g.raster(format!("p{i}a"))
        .clears(x, Access::ColorWrite)
        .clears(d, Access::DepthWrite);
    let depth_read = if pick.0.is_multiple_of(2) {
        Access::DepthRead
    } else {
        Access::InputAttachment
    };
    g.raster(format!("p{i}b"))
        .uses(x, Access::InputAttachment)
        .uses(d, depth_read)
        .uses(y, Access::ColorWriteAll);
    let x_last = if pick.1.is_multiple_of(2) {
        Access::ColorReadWrite
    } else {
        Access::InputAttachment
    };
    let mut c = g
        .raster(format!("p{i}c"))
        .uses(x, x_last)
        .uses(d, Access::DepthRead)
        .uses(y, Access::ColorReadWrite);
    if CLASSES[class].2 > 1 {
        c = c.resolves(pool.resolve, y);
        if pick.2 {
            c = match depth_mode(pick.0 / 4) {
                Some(m) => c.resolves_depth(pool.depth_resolve, d, m),
                None => c.resolves(pool.depth_resolve, d),
            };
        }
    }
    c.side_effects();
}

fn device(k: u8) -> Capabilities {
    let mut c = Capabilities::profile(["mali", "desktop", "adreno"][k as usize % 3]).unwrap();
    if k >= 3 {
        c.max_color_attachments = 2;
        c.max_input_attachments = 2;
        c.lazily_allocated = true;
        c.tile_bits_per_pixel = 96;
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn random_frames_give_checked_render_passes(
        specs in prop::collection::vec(pass_spec(), 1..10),
        flags in any::<u16>(),
        k in 0u8..5,
        merge in any::<bool>(),
        memoryless in any::<bool>(),
        reorder in any::<bool>(),
    ) {
        let g = build(&specs, flags);
        let caps = device(k);
        let options = CompileOptions { merge, memoryless, reorder, ..CompileOptions::ALL };
        let undeclared = {
            let mut u = g.clone();
            for r in &mut u.resources {
                if r.declared_memoryless() {
                    r.origin = Origin::TRANSIENT;
                }
            }
            u
        };
        let reference = compile(&undeclared, &caps, &options);
        let reference = match reference {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::reject(format!("invalid random graph: {e}"))),
        };
        if let Err(v) = check::check(&undeclared, &caps, &options, &reference) {
            prop_assert!(false, "checker: {:?}\n{}", v, serde_json::to_string_pretty(&reference).unwrap());
        }
        if !merge {
            prop_assert!(reference.render_passes.iter().all(|rp| rp.subpasses.len() == 1));
        }
        if !(memoryless && caps.lazily_allocated) {
            prop_assert_eq!(reference.memory.memoryless_bytes, 0);
        }
        // Declarations are judged by the default compile's render passes (reordering,
        // merging and memoryless on), whatever the options.
        let is_reference = merge && memoryless && reorder;
        let default_options = CompileOptions::ALL;
        match compile(&g, &caps, &options) {
            Ok(plan) => {
                if let Err(v) = check::check(&g, &caps, &options, &plan) {
                    prop_assert!(false, "checker: {:?}", v);
                }
                for r in g.resources.iter().filter(|r| r.declared_memoryless()) {
                    let atts = || plan.render_passes.iter().flat_map(|rp| &rp.attachments);
                    let used = atts().any(|a| a.resource == r.name);
                    let kept = atts().any(|a| a.resource == r.name && a.memoryless);
                    let fell_back = plan.memory.memoryless_fallbacks.iter().any(|f| f.resource == r.name);
                    if is_reference && caps.lazily_allocated {
                        prop_assert!(kept || !used, "declared '{}' compiled but is not memoryless", r.name);
                    }
                    // Every declared resource in use is kept or said to fall back, not both.
                    prop_assert!(!used || kept != fell_back, "'{}': kept {} fallback {}", r.name, kept, fell_back);
                }
            }
            Err(CompileError::MemorylessBroken { resource, .. }) => {
                let declared = g.resources.iter().any(|r| r.name == resource && r.declared_memoryless());
                prop_assert!(declared, "error names undeclared '{}'", resource);
                // The same error as the default compile: the options do not decide it.
                let default = compile(&g, &caps, &default_options);
                prop_assert!(
                    matches!(&default, Err(CompileError::MemorylessBroken { resource: r, .. }) if *r == resource),
                    "default compile: {:?}", default.map(|_| ())
                );
                if caps.lazily_allocated {
                    let undeclared_default = compile(&undeclared, &caps, &default_options).unwrap();
                    let kept = undeclared_default.render_passes.iter().flat_map(|rp| &rp.attachments).any(|a| a.resource == resource && a.memoryless);
                    prop_assert!(!kept, "'{}' is memoryless in the undeclared frame yet declared broken", resource);
                }
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    /// The render passes and breaks the order phase hands over (grouped while it emits
    /// passes, reusing the decisions of its picks) are those the merge rules give for the
    /// finished order, on one queue and with async compute.
    #[test]
    fn order_phase_groups_like_the_merge_rules(
        specs in prop::collection::vec(pass_spec(), 1..12),
        flags in any::<u16>(),
        k in 0u8..5,
        merge_on in any::<bool>(),
        reorder in any::<bool>(),
        async_compute in any::<bool>(),
    ) {
        let g = build(&specs, flags);
        let caps = device(k);
        let options = CompileOptions { merge: merge_on, reorder, async_compute, ..CompileOptions::ALL };
        let all = deps::dependencies(&g);
        let culling = cull::cull(&g, &all);
        let d = deps::kept_dependencies(&g, &culling.kept);
        let queue = levels::queues(&g, &caps, &options);
        let (order, grouped) = order::order(&g, &d, &culling, &caps, &options, &queue);
        let level = levels::levels(&g, &d, &order, &culling.kept);
        let schedule = Schedule::new(order, level, queue, culling.kept.clone());
        let expected = merge::group(&g, &schedule, &caps, &options);
        prop_assert_eq!(&grouped.grouping.groups, &expected.grouping.groups);
        prop_assert_eq!(&grouped.grouping.group_of, &expected.grouping.group_of);
        prop_assert_eq!(&grouped.breaks, &expected.breaks);
        // A render pass the merge step calls independent has no subpass dependency (its
        // load and store operations included).
        let (_, attachments) = load_store::sweep(&g, &schedule, &grouped.grouping);
        for (i, group) in grouped.grouping.groups.iter().enumerate() {
            if grouped.grouping.groups.independent(i) {
                prop_assert!(dependencies::subpass_dependencies(&g, group, attachments.of(i)).is_empty());
            }
        }
    }

    /// The quick merge test agrees with the full list of reasons, for render passes built
    /// the way the merge phase builds them and for forced ones that break rules inside.
    #[test]
    fn accepts_agrees_with_blockers(
        specs in prop::collection::vec(pass_spec(), 1..24),
        flags in any::<u16>(),
        force in any::<u32>(),
        k in 0u8..5,
    ) {
        let g = build(&specs, flags);
        let caps = device(k);
        let mut open: Option<OpenGroup> = None;
        for (i, p) in g.pass_ids().enumerate() {
            if g.pass(p).kind != PassKind::Raster {
                continue;
            }
            match open.as_mut() {
                Some(o) => {
                    let accepts = o.accepts(&g, &caps, p);
                    let blockers = o.blockers(&g, &caps, p);
                    prop_assert_eq!(accepts, blockers.is_empty(), "{:?}", blockers);
                    if accepts || force & (1 << (i % 32)) != 0 {
                        o.add(&g, p);
                    } else {
                        o.restart(&g, p);
                    }
                }
                None => open = Some(OpenGroup::new(&g, p)),
            }
        }
    }
}

/// The generator above makes render passes whose attachments are read (input attachment,
/// depth test, blending) before their last subpass, stored and not, some with a resolve
/// (counted on `mali`, where adjacent raster passes merge).
#[test]
fn random_frames_read_attachments_before_their_last_subpass() {
    let caps = device(0);
    let mut total = MiddleReads::default();
    let strategy = (prop::collection::vec(pass_spec(), 1..10), any::<u16>());
    for seed in 0..200 {
        let (specs, flags) = common::sample(&strategy, seed);
        // As the property's reference compile: without declared-memoryless images.
        let mut g = build(&specs, flags);
        for r in &mut g.resources {
            if r.declared_memoryless() {
                r.origin = Origin::TRANSIENT;
            }
        }
        match compile(&g, &caps, &CompileOptions::ALL) {
            Ok(plan) => total.add(middle_reads(&g, &plan)),
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    assert!(
        total.store >= 20 && total.dont_care >= 20 && total.resolve >= 5,
        "{total:?}"
    );
}

/// The generator makes depth resolves of every mode, through the compiler into the plan
/// (counted on `mali`).
#[test]
fn random_frames_resolve_depth_in_every_mode() {
    let caps = device(0);
    let strategy = (prop::collection::vec(pass_spec(), 1..10), any::<u16>());
    let mut modes = std::collections::HashMap::new();
    for seed in 0..300 {
        let (specs, flags) = common::sample(&strategy, seed);
        let mut g = build(&specs, flags);
        for r in &mut g.resources {
            if r.declared_memoryless() {
                r.origin = Origin::TRANSIENT;
            }
        }
        let plan =
            compile(&g, &caps, &CompileOptions::ALL).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for a in plan
            .render_passes
            .iter()
            .flat_map(|rp| rp.attachments.iter())
        {
            if let Some(m) = a.resolve_mode {
                assert_eq!(a.resolve_target.as_deref(), Some("resolved_depth"));
                *modes.entry(m).or_insert(0u32) += 1;
            }
        }
    }
    for m in [ResolveMode::SampleZero, ResolveMode::Min, ResolveMode::Max] {
        assert!(modes.get(&m).copied().unwrap_or(0) >= 3, "{m}: {modes:?}");
    }
}
