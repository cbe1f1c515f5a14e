//! Checker invariants: render passes.
//!
//! Independent of the compiler's render pass phase: it reads the checker's own table of what
//! each access and each load/store operation does (`check/table.rs`: stages, accesses,
//! layout, whether it writes, observes or replaces content) and re-derives every fact from
//! the graph and the plan alone.
//! - `rp.subpass`: each kept raster pass is in exactly one subpass; nothing else is.
//! - `rp.order`: render passes and subpasses follow `order`, each contiguous in it except
//!   for async-compute passes between subpasses; `rp.cross_queue`: such a pass uses no
//!   resource of the render pass (it is independent of it).
//! - `rp.break`: one break, with a reason, per adjacent raster pair split across render passes.
//! - `rp.merge`: subpasses of one render pass share extent and sample count, use no resource
//!   both as an attachment and otherwise, have no hazard outside attachments, write no
//!   multisampled attachment an earlier subpass resolved, and fit the attachment limits and
//!   the tile budget; merging only when the option is on.
//! - `rp.attachment`: attachments are exactly the attachment uses, once each, with samples
//!   and resolve targets as declared.
//! - `rp.layout`: initial/final layouts are those of the first/last use, and a barrier before
//!   the render pass transitions the image to the initial layout.
//! - `rp.dependency`: every hazard between subpasses is a subpass dependency with the right
//!   stages and accesses, the accesses of load operations (at the start of an attachment's
//!   first subpass) and store operations (at the end of its last) included; `by_region` only
//!   between attachment (same-pixel) uses.
//! - `rp.load` / `rp.store`: loads and stores follow liveness, in both directions (no lost
//!   content, no wasted traffic). Walking the uses after a point in execution order, content
//!   is live when a use that looks at it (a read, a blend, a depth test) comes before any use
//!   that replaces it completely (a clear, a write of every pixel, a write covered by a
//!   depth image: the pixels it leaves are never read, `coverage.*`), or when nothing replaces
//!   it and the resource survives the frame (an output, or imported without
//!   `discard_on_last_use`). Load: `CLEAR` when the first use in the render pass clears;
//!   `LOAD` when earlier content exists (an earlier write, or imported without
//!   `clear_on_first_use` or `per_frame`) and the first use looks at it, or keeps it without looking (a
//!   partial write, or a blend: it reads earlier content only into its own result) while it is
//!   live after that use (later subpasses included); else `DONT_CARE`. Store: `STORE` when the content is live after the render pass, else
//!   `DONT_CARE`.
//! - `rp.memoryless`: memoryless attachments are never loaded, stored, sampled or alive
//!   outside their render pass, take no block bytes, and every attachment that qualifies is
//!   memoryless when the device and options allow it.
//! - `rp.bandwidth`: the bandwidth figures match the attachments (planned) and the graph
//!   (naive).

use super::ops::Ops;
use super::table::{self, looks_at, writes, Class, OpAccess};
use super::Violation;
use crate::access::Access;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{ClearValue, Graph, PassId, PassKind, ResourceId, Use};
use crate::plan::{LoadOp, Plan, RenderPass, StoreOp};
use crate::sync::{AccessMask, Layout, StageMask};
use std::collections::{HashMap, HashSet};

/// The checker's view of an attachment access ([`table`]).
#[derive(Clone, Copy)]
struct Att {
    stages: StageMask,
    access: AccessMask,
    layout: Layout,
    writes: bool,
}

/// Attachment accesses, by the checker's own table; `None` for everything else.
fn att(access: Access, depth: bool) -> Option<Att> {
    if !table::is_attachment(access) {
        return None;
    }
    let class = if depth { Class::Depth } else { Class::Color };
    let s = table::scope(access, PassKind::Raster, class)?;
    Some(Att {
        stages: s.stages,
        access: s.access,
        layout: s.layout?,
        writes: writes(access),
    })
}

fn is_depth(graph: &Graph, r: ResourceId) -> bool {
    graph
        .resource(r)
        .image_desc()
        .is_some_and(|d| d.format.is_depth_stencil())
}

struct Ctx<'a> {
    graph: &'a Graph,
    caps: &'a Capabilities,
    options: &'a CompileOptions,
    plan: &'a Plan,
    pass_id: HashMap<&'a str, PassId>,
    position: HashMap<&'a str, usize>,
    /// Per resource: (position, pass, use) in execution order.
    uses: Vec<Vec<(usize, PassId, &'a Use)>>,
    out: &'a mut Vec<Violation>,
}

impl Ctx<'_> {
    fn fail(&mut self, rule: &'static str, detail: String) {
        self.out.push(Violation { rule, detail });
    }
}

/// Pushes every violated renderpass invariant onto `out`.
pub(super) fn check(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
    out: &mut Vec<Violation>,
) {
    let pass_id: HashMap<&str, PassId> = graph
        .pass_ids()
        .map(|p| (graph.pass(p).name.as_str(), p))
        .collect();
    let position = plan.positions();
    let mut uses = vec![Vec::new(); graph.resources.len()];
    for (pos, name) in plan.order.iter().enumerate() {
        if let Some(&p) = pass_id.get(name.as_str()) {
            for u in &graph.pass(p).uses {
                uses[u.resource.index()].push((pos, p, u));
            }
        }
    }
    let mut cx = Ctx {
        graph,
        caps,
        options,
        plan,
        pass_id,
        position,
        uses,
        out,
    };
    if !membership_and_order(&mut cx) {
        return; // the rest needs well-formed render passes
    }
    check_breaks(&mut cx);
    let mut memoryless_seen = HashSet::new();
    for (i, rp) in plan.render_passes.iter().enumerate() {
        let passes: Vec<PassId> = rp
            .subpasses
            .iter()
            .map(|s| cx.pass_id[s.as_str()])
            .collect();
        check_merge(&mut cx, i, rp, &passes);
        check_attachments(&mut cx, i, rp, &passes);
        check_dependencies(&mut cx, i, rp, &passes);
        check_load_store(&mut cx, i, rp, &passes);
        check_memoryless(&mut cx, i, rp, &passes, &mut memoryless_seen);
    }
    check_memoryless_bytes(&mut cx, &memoryless_seen);
    check_bandwidth(&mut cx);
}

/// `rp.subpass` and `rp.order`; false when the render passes are too broken to go on.
fn membership_and_order(cx: &mut Ctx<'_>) -> bool {
    let raster: Vec<&str> = cx
        .plan
        .order
        .iter()
        .map(|n| n.as_str())
        .filter(|n| {
            cx.pass_id
                .get(n)
                .is_some_and(|&p| cx.graph.pass(p).kind == PassKind::Raster)
        })
        .collect();
    let mut ok = true;
    let mut count: HashMap<&str, usize> = HashMap::new();
    for rp in &cx.plan.render_passes {
        if rp.subpasses.is_empty() {
            cx.fail("rp.subpass", "a render pass has no subpasses".into());
            ok = false;
        }
        for s in &rp.subpasses {
            *count.entry(s.as_str()).or_default() += 1;
        }
    }
    for (&name, &n) in &count {
        let known_raster = raster.contains(&name);
        if !known_raster {
            cx.fail(
                "rp.subpass",
                format!("subpass '{name}' is not a kept raster pass"),
            );
            ok = false;
        } else if n != 1 {
            cx.fail(
                "rp.subpass",
                format!("raster pass '{name}' is in {n} subpasses"),
            );
            ok = false;
        }
    }
    for name in &raster {
        if !count.contains_key(name) {
            cx.fail(
                "rp.subpass",
                format!("raster pass '{name}' is in no render pass"),
            );
            ok = false;
        }
    }
    if !ok {
        return false;
    }
    let flat: Vec<&str> = cx
        .plan
        .render_passes
        .iter()
        .flat_map(|rp| rp.subpasses.iter().map(|n| n.as_str()))
        .collect();
    if flat != raster {
        cx.fail(
            "rp.order",
            format!("subpasses {flat:?} do not follow the raster passes of the order {raster:?}"),
        );
    }
    for rp in &cx.plan.render_passes {
        let pos: Vec<usize> = rp
            .subpasses
            .iter()
            .map(|s| cx.position[s.as_str()])
            .collect();
        // Only passes of the other queue may run between subpasses (whether the render pass
        // waits for one of them is a sync rule: `syncs.render_pass`).
        let intruder = pos.windows(2).flat_map(|w| w[0] + 1..w[1]).find(|&i| {
            let name = &cx.plan.order[i];
            !cx.plan.queues.async_compute.contains(name)
        });
        if let Some(i) = intruder {
            cx.fail(
                "rp.order",
                format!(
                    "render pass {:?} is not contiguous on the graphics queue: '{}' runs between its subpasses",
                    rp.subpasses, cx.plan.order[i]
                ),
            );
        }
        inside_independent(cx, rp, &pos);
    }
    true
}

/// `rp.cross_queue`: a pass of the other queue between the subpasses of a render pass uses no
/// resource of the render pass, so the two are independent (a wait inside the render pass is
/// impossible, and a pass that waits for the render pass runs after it, not where `order`
/// lists it).
fn inside_independent(cx: &mut Ctx<'_>, rp: &RenderPass, pos: &[usize]) {
    let (Some(&first), Some(&last)) = (pos.first(), pos.last()) else {
        return;
    };
    let mine: HashSet<ResourceId> = rp
        .subpasses
        .iter()
        .filter_map(|s| cx.pass_id.get(s.as_str()))
        .flat_map(|&p| cx.graph.pass(p).uses.iter().map(|u| u.resource))
        .collect();
    for i in first + 1..last {
        let name = &cx.plan.order[i];
        if rp.subpasses.contains(name) {
            continue;
        }
        let Some(&p) = cx.pass_id.get(name.as_str()) else {
            continue;
        };
        if let Some(u) = cx
            .graph
            .pass(p)
            .uses
            .iter()
            .find(|u| mine.contains(&u.resource))
        {
            let detail = format!(
                "'{name}' runs between the subpasses of render pass {:?} and uses its resource '{}'",
                rp.subpasses,
                cx.graph.resource(u.resource).name
            );
            cx.fail("rp.cross_queue", detail);
        }
    }
}

fn check_breaks(cx: &mut Ctx<'_>) {
    let mut rp_of: HashMap<&str, usize> = HashMap::new();
    for (i, rp) in cx.plan.render_passes.iter().enumerate() {
        for s in &rp.subpasses {
            rp_of.insert(s.as_str(), i);
        }
    }
    let raster: Vec<&str> = cx
        .plan
        .order
        .iter()
        .map(|n| n.as_str())
        .filter(|n| rp_of.contains_key(n))
        .collect();
    let mut expected = HashSet::new();
    for w in raster.windows(2) {
        if rp_of[w[0]] != rp_of[w[1]] {
            expected.insert((w[0], w[1]));
        }
    }
    let mut seen = HashSet::new();
    for b in &cx.plan.breaks {
        let key = (b.after.as_str(), b.before.as_str());
        if !expected.contains(&key) {
            cx.fail("rp.break", format!("break '{}' | '{}' is not between adjacent raster passes of different render passes", b.after, b.before));
        } else if !seen.insert(key) {
            cx.fail(
                "rp.break",
                format!("break '{}' | '{}' is listed twice", b.after, b.before),
            );
        }
        if b.reason.trim().is_empty() {
            cx.fail(
                "rp.break",
                format!("break '{}' | '{}' gives no reason", b.after, b.before),
            );
        }
    }
    for (a, b) in expected.difference(&seen) {
        cx.fail(
            "rp.break",
            format!("'{a}' and '{b}' are in different render passes but no break says why"),
        );
    }
}

fn check_merge(cx: &mut Ctx<'_>, i: usize, rp: &RenderPass, passes: &[PassId]) {
    if passes.len() < 2 {
        return;
    }
    let g = cx.graph;
    if !cx.options.merge {
        cx.fail(
            "rp.merge",
            format!(
                "render pass #{i} merges {:?} with merging off",
                rp.subpasses
            ),
        );
    }
    let mut frame: Option<(u32, u32, Option<u32>, &str)> = None;
    let mut attachment_use: HashMap<ResourceId, Access> = HashMap::new();
    let mut other_use: HashMap<ResourceId, (Access, usize, bool)> = HashMap::new();
    let mut colour: HashMap<ResourceId, u32> = HashMap::new();
    let mut inputs: HashSet<ResourceId> = HashSet::new();
    // Multisampled attachments resolved by an earlier subpass, with its name.
    let mut resolved: HashMap<ResourceId, &str> = HashMap::new();
    for (s, &p) in passes.iter().enumerate() {
        let pass = g.pass(p);
        let mut has_attachment = false;
        for u in &pass.uses {
            if let Some(by) = resolved.get(&u.resource) {
                if writes(u.access) && u.access != Access::Resolve && table::is_attachment(u.access)
                {
                    cx.fail(
                        "rp.merge",
                        format!(
                            "render pass #{i}: '{}' writes '{}' ({}) after subpass '{by}' resolved it (a resolve happens at the end of its subpass)",
                            pass.name,
                            g.resource(u.resource).name,
                            u.access
                        ),
                    );
                }
            }
        }
        for u in &pass.uses {
            if let (Access::Resolve, Some(from)) = (u.access, u.from) {
                if let Some(by) = resolved.get(&from) {
                    cx.fail(
                        "rp.merge",
                        format!(
                            "render pass #{i}: '{}' resolves '{}' again after subpass '{by}' resolved it (one resolve target per attachment and render pass)",
                            pass.name,
                            g.resource(from).name
                        ),
                    );
                }
                resolved.entry(from).or_insert(pass.name.as_str());
            }
        }
        for u in &pass.uses {
            let r = g.resource(u.resource);
            let Some(d) = r.image_desc() else {
                if att(u.access, false).is_none() {
                    note_other(cx, i, &mut other_use, u, s);
                }
                continue;
            };
            let Some(_) = att(u.access, d.format.is_depth_stencil()) else {
                note_other(cx, i, &mut other_use, u, s);
                continue;
            };
            has_attachment = true;
            attachment_use.insert(u.resource, u.access);
            let samples = (u.access != Access::Resolve).then_some(d.samples);
            match frame {
                None => frame = Some((d.width, d.height, samples, &pass.name)),
                Some((w, h, fs, first)) => {
                    if (w, h) != (d.width, d.height) {
                        cx.fail(
                            "rp.merge",
                            format!(
                                "render pass #{i}: '{}' renders {}x{} but '{first}' {w}x{h}",
                                pass.name, d.width, d.height
                            ),
                        );
                    }
                    match (fs, samples) {
                        (Some(a), Some(b)) if a != b => cx.fail(
                            "rp.merge",
                            format!(
                                "render pass #{i}: '{}' uses {b} samples but '{first}' {a}",
                                pass.name
                            ),
                        ),
                        (None, Some(_)) => frame = Some((w, h, samples, first)),
                        _ => {}
                    }
                }
            }
            if !d.format.is_depth_stencil() && u.access != Access::Resolve {
                colour.insert(u.resource, d.format.bits_per_texel() * d.samples);
            }
            if u.access == Access::InputAttachment {
                inputs.insert(u.resource);
            }
        }
        if !has_attachment {
            cx.fail(
                "rp.merge",
                format!(
                    "render pass #{i}: merged subpass '{}' has no attachments",
                    pass.name
                ),
            );
        }
    }
    for (r, (a, _, _)) in &other_use {
        if let Some(b) = attachment_use.get(r) {
            cx.fail(
                "rp.merge",
                format!(
                    "render pass #{i} uses '{}' as {a} and as an attachment ({b})",
                    g.resource(*r).name
                ),
            );
        }
    }
    let n = colour.len() as u32;
    if n > cx.caps.max_color_attachments {
        cx.fail(
            "rp.merge",
            format!(
                "render pass #{i} holds {n} colour attachments, over {}",
                cx.caps.max_color_attachments
            ),
        );
    }
    if inputs.len() as u32 > cx.caps.max_input_attachments {
        cx.fail(
            "rp.merge",
            format!(
                "render pass #{i} holds {} input attachments, over {}",
                inputs.len(),
                cx.caps.max_input_attachments
            ),
        );
    }
    let bits: u32 = colour.values().sum();
    if cx.caps.tile_bits_per_pixel > 0 && bits > cx.caps.tile_bits_per_pixel {
        cx.fail(
            "rp.merge",
            format!(
                "render pass #{i} needs {bits} bits per pixel of tile storage, over {}",
                cx.caps.tile_bits_per_pixel
            ),
        );
    }
}

/// Records a non-attachment use inside a merged render pass; a hazard between two of them
/// (at least one writes, in different subpasses) cannot be a same-pixel dependency.
fn note_other(
    cx: &mut Ctx<'_>,
    i: usize,
    seen: &mut HashMap<ResourceId, (Access, usize, bool)>,
    u: &Use,
    subpass: usize,
) {
    match seen.get_mut(&u.resource) {
        Some((a, s, w)) => {
            if *s != subpass && (*w || writes(u.access)) {
                let name = &cx.graph.resource(u.resource).name;
                cx.fail("rp.merge", format!("render pass #{i}: hazard on '{name}' between {a} and {} outside attachments", u.access));
            }
            *w |= writes(u.access);
        }
        None => {
            seen.insert(u.resource, (u.access, subpass, writes(u.access)));
        }
    }
}

fn check_attachments(cx: &mut Ctx<'_>, i: usize, rp: &RenderPass, passes: &[PassId]) {
    let g = cx.graph;
    // resource -> (first use, last use, resolve target)
    let mut expected: Vec<(ResourceId, &Use, &Use, Option<ResourceId>)> = Vec::new();
    for &p in passes {
        for u in &g.pass(p).uses {
            if att(u.access, is_depth(g, u.resource)).is_none()
                || g.resource(u.resource).image_desc().is_none()
            {
                continue;
            }
            let resolve = g
                .pass(p)
                .uses
                .iter()
                .find(|v| v.access == Access::Resolve && v.from == Some(u.resource))
                .map(|v| v.resource);
            match expected.iter_mut().find(|e| e.0 == u.resource) {
                Some(e) => {
                    e.2 = u;
                    e.3 = e.3.or(resolve);
                }
                None => expected.push((u.resource, u, u, resolve)),
            }
        }
    }
    let mut listed = HashSet::new();
    for a in &rp.attachments {
        if !listed.insert(a.resource.as_str()) {
            cx.fail(
                "rp.attachment",
                format!("render pass #{i} lists '{}' twice", a.resource),
            );
        }
        let Some(&(r, first, last, resolve)) =
            expected.iter().find(|e| g.resource(e.0).name == a.resource)
        else {
            cx.fail(
                "rp.attachment",
                format!(
                    "render pass #{i} lists '{}', which no subpass uses as an attachment",
                    a.resource
                ),
            );
            continue;
        };
        let d = g.resource(r).image_desc().copied();
        if d.map(|d| d.samples) != Some(a.samples) {
            cx.fail(
                "rp.attachment",
                format!(
                    "render pass #{i}: attachment samples differ from the resource: '{}' has {} samples in the plan, {} declared",
                    a.resource,
                    a.samples,
                    d.map_or_else(|| "none".to_string(), |d| d.samples.to_string())
                ),
            );
        }
        let target = resolve.map(|t| g.resource(t).name.as_str());
        if a.resolve_target.as_deref() != target {
            cx.fail(
                "rp.attachment",
                format!(
                    "render pass #{i}: '{}' resolves into {:?}, the graph says {target:?}",
                    a.resource, a.resolve_target
                ),
            );
        }
        let depth = is_depth(g, r);
        let want_initial = att(first.access, depth).map(|x| x.layout);
        let want_final = att(last.access, depth).map(|x| x.layout);
        if want_initial != Some(a.initial_layout) || want_final != Some(a.final_layout) {
            cx.fail(
                "rp.layout",
                format!("render pass #{i}: '{}' goes {} -> {}, its uses need {want_initial:?} -> {want_final:?}", a.resource, a.initial_layout, a.final_layout),
            );
        }
        // A clear clears to the first use's value, or to colour 0 / depth 1.0, stencil 0.
        let want_clear = (a.load_op == LoadOp::Clear).then(|| {
            first.clear_value.unwrap_or(if depth {
                ClearValue::DepthStencil {
                    depth: 1.0,
                    stencil: 0,
                }
            } else {
                ClearValue::Color([0.0; 4])
            })
        });
        if a.clear_value != want_clear {
            cx.fail(
                "rp.clear_value",
                format!(
                    "render pass #{i}: '{}' (load {:?}) clears to {:?}, its first use asks for {want_clear:?}",
                    a.resource, a.load_op, a.clear_value
                ),
            );
        }
        let first_subpass = &rp.subpasses[0];
        // Several barriers may precede it (an ownership acquire, then a transition on
        // graphics): the layout the last one leaves is the one the render pass starts in.
        let mut before_it = cx.plan.barriers.iter().filter(|b| {
            &b.before == first_subpass
                && b.resource == a.resource
                && b.position == crate::plan::BarrierPosition::Before
                && b.new_layout.is_some()
        });
        if let Some(b) = before_it.next_back() {
            if let Some(l) = b.new_layout.filter(|&l| l != a.initial_layout) {
                cx.fail("rp.layout", format!("render pass #{i}: the barrier before it moves '{}' to {l}, the render pass starts it in {}", a.resource, a.initial_layout));
            }
        }
    }
    for (r, ..) in &expected {
        let name = &g.resource(*r).name;
        if !listed.contains(name.as_str()) {
            cx.fail(
                "rp.attachment",
                format!("render pass #{i} does not list attachment '{name}'"),
            );
        }
    }
}

fn check_dependencies(cx: &mut Ctx<'_>, i: usize, rp: &RenderPass, passes: &[PassId]) {
    let g = cx.graph;
    let n = passes.len() as u32;
    for d in &rp.dependencies {
        if d.src_subpass >= d.dst_subpass || d.dst_subpass >= n {
            cx.fail("rp.dependency", format!("render pass #{i}: dependency {} -> {} is not forward between its {n} subpasses", d.src_subpass, d.dst_subpass));
        }
    }
    // Replay attachment accesses (each subpass's load operation, use, store operation):
    // (subpass, access facts) of the last write and the reads since. Accesses of one subpass
    // are ordered by the render pass itself.
    type Prior = (u32, Att, bool);
    let mut last_write: HashMap<ResourceId, Prior> = HashMap::new();
    let mut readers: HashMap<ResourceId, Vec<Prior>> = HashMap::new();
    let mut layout: HashMap<ResourceId, Layout> = HashMap::new();
    let ops = Ops::new(g, cx.plan);
    for (j, &p) in passes.iter().enumerate() {
        let j = j as u32;
        for u in &g.pass(p).uses {
            let Some(mut used) = att(u.access, is_depth(g, u.resource)) else {
                continue;
            };
            // A depth/stencil resolve reads its source at the end of this subpass too.
            if let Some((stages, access)) = table::resolve_read(g, p, u) {
                used.stages |= stages;
                used.access |= access;
            }
            let op = ops.at(p.index(), u.resource.index());
            let as_att = |a: OpAccess| Att {
                stages: a.stages,
                access: a.access,
                layout: used.layout,
                writes: a.writes,
            };
            let mut accesses: Vec<(String, Att)> = Vec::with_capacity(3);
            if let Some((load, a)) = op.load {
                accesses.push((format!("load {load:?}"), as_att(a)));
            }
            accesses.push((u.access.to_string(), used));
            if let Some((store, a)) = op.store {
                accesses.push((format!("store {store:?}"), as_att(a)));
            }
            for (what, me) in accesses {
                let relayout = layout.get(&u.resource).is_some_and(|&l| l != me.layout);
                let mut need: Vec<(Prior, bool)> = Vec::new();
                if let Some(w) = last_write.get(&u.resource) {
                    need.push((*w, true));
                }
                if me.writes || relayout {
                    need.extend(
                        readers
                            .get(&u.resource)
                            .into_iter()
                            .flatten()
                            .map(|r| (*r, false)),
                    );
                }
                for ((src, a, _), src_wrote) in need {
                    if src == j {
                        continue;
                    }
                    let covered = rp.dependencies.iter().any(|d| {
                        d.src_subpass == src
                            && d.dst_subpass == j
                            && d.src_stage.contains(a.stages)
                            && d.dst_stage.contains(me.stages)
                            && (!src_wrote || d.src_access.contains(a.access & AccessMask::WRITES))
                            && (!src_wrote || d.dst_access.contains(me.access))
                    });
                    if !covered {
                        cx.fail(
                            "rp.dependency",
                            format!(
                                "render pass #{i}: hazard on '{}' from subpass {src} ('{}') to {j} ('{}', {what}) has no subpass dependency covering {}/{} -> {}/{}",
                                g.resource(u.resource).name,
                                rp.subpasses[src as usize],
                                rp.subpasses[j as usize],
                                a.stages,
                                if src_wrote { a.access & AccessMask::WRITES } else { AccessMask::empty() },
                                me.stages,
                                if src_wrote { me.access } else { AccessMask::empty() },
                            ),
                        );
                    }
                }
                let prior = (j, me, true);
                if me.writes {
                    last_write.insert(u.resource, prior);
                    readers.remove(&u.resource);
                } else {
                    let list = readers.entry(u.resource).or_default();
                    if relayout {
                        list.clear();
                    }
                    list.push(prior);
                }
                layout.insert(u.resource, me.layout);
            }
        }
    }
    // by_region only where every use shared by the two subpasses is an attachment use (a
    // dependency out of range was reported above; both its ends are needed here).
    for d in rp
        .dependencies
        .iter()
        .filter(|d| d.by_region && d.src_subpass < d.dst_subpass && d.dst_subpass < n)
    {
        let (a, b) = (
            g.pass(passes[d.src_subpass as usize]),
            g.pass(passes[d.dst_subpass as usize]),
        );
        for u in &a.uses {
            if let Some(v) = b.uses.iter().find(|v| v.resource == u.resource) {
                let depth = is_depth(g, u.resource);
                let hazard = writes(u.access) || writes(v.access);
                if hazard && (att(u.access, depth).is_none() || att(v.access, depth).is_none()) {
                    cx.fail(
                        "rp.dependency",
                        format!("render pass #{i}: dependency {} -> {} is by region but '{}' is used as {} -> {} (not same-pixel)", d.src_subpass, d.dst_subpass, g.resource(u.resource).name, u.access, v.access),
                    );
                }
            }
        }
    }
}

fn content_before(cx: &Ctx<'_>, r: ResourceId, pos: usize) -> bool {
    let res = cx.graph.resource(r);
    res.content_at_entry()
        || cx.uses[r.index()]
            .iter()
            .any(|(p, _, u)| *p < pos && writes(u.access))
}

/// Whether the content of a resource at some point of the frame is needed later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Live {
    /// This later use looks at it before anything replaces it.
    ReadBy(PassId),
    /// This later use replaces it completely before anything looks at it.
    ReplacedBy(PassId),
    /// No later use looks at it or replaces it, and it survives the frame (an output, or an
    /// imported resource not discarded on its last use).
    Survives,
    /// No later use looks at it or replaces it, and it dies with the frame.
    Dies,
}

impl Live {
    fn needed(self) -> bool {
        matches!(self, Live::ReadBy(_) | Live::Survives)
    }
}

/// The liveness of `r`'s content after position `pos` of the order: walking the later uses in
/// execution order (a use that keeps content without looking at it passes the question on).
fn live_after(cx: &Ctx<'_>, r: ResourceId, pos: usize) -> Live {
    for (_, p, u) in cx.uses[r.index()].iter().filter(|(q, _, _)| *q > pos) {
        if looks_at(cx.graph, *p, u) {
            return Live::ReadBy(*p);
        }
        if table::replaces_use(u) {
            return Live::ReplacedBy(*p);
        }
    }
    let res = cx.graph.resource(r);
    if res.output || (res.is_persistent() && !res.discard_on_last_use()) {
        Live::Survives
    } else {
        Live::Dies
    }
}

impl Ctx<'_> {
    /// `live` in words, for a violation.
    fn explain(&self, live: Live) -> String {
        match live {
            Live::ReadBy(p) => format!("'{}' reads it later", self.graph.pass(p).name),
            Live::ReplacedBy(p) => format!(
                "'{}' replaces it before anything reads it",
                self.graph.pass(p).name
            ),
            Live::Survives => "it survives the frame".into(),
            Live::Dies => "nothing reads it later and it does not survive the frame".into(),
        }
    }
}

/// `rp.load` / `rp.store`: the operations follow liveness, in both directions. Load: `CLEAR`
/// when the first use in the render pass clears; `LOAD` when earlier content exists and is
/// needed (the first use looks at it, or keeps it without looking and the walk from that use
/// finds it live); `DONT_CARE` otherwise. Store: `STORE` exactly when the walk from the end
/// of the render pass finds the content live.
fn check_load_store(cx: &mut Ctx<'_>, i: usize, rp: &RenderPass, passes: &[PassId]) {
    let g = cx.graph;
    let start = cx.position[rp.subpasses[0].as_str()];
    let end = cx.position[rp.subpasses[rp.subpasses.len() - 1].as_str()];
    for a in &rp.attachments {
        let Some(r) = g.find_resource(&a.resource) else {
            continue;
        };
        let Some((first_pass, first)) = passes.iter().find_map(|&p| {
            g.pass(p)
                .uses
                .iter()
                .find(|u| u.resource == r)
                .map(|u| (p, u))
        }) else {
            continue;
        };
        let first_pos = cx.position[g.pass(first_pass).name.as_str()];
        let earlier = content_before(cx, r, start);
        let (load, why) = if first.clear {
            (LoadOp::Clear, "its first use clears it".to_string())
        } else if !earlier {
            (
                LoadOp::DontCare,
                "it holds no content before the render pass".to_string(),
            )
        } else if looks_at(g, first_pass, first) {
            (
                LoadOp::Load,
                format!("its first use ({}) reads earlier content", first.access),
            )
        } else if table::replaces_use(first) {
            (
                LoadOp::DontCare,
                format!("its first use ({}) replaces it", first.access),
            )
        } else {
            let live = live_after(cx, r, first_pos);
            let op = if live.needed() {
                LoadOp::Load
            } else {
                LoadOp::DontCare
            };
            let how = if table::blends(first.access, first.clear) {
                "blends into earlier content (read only for its own result)"
            } else {
                "keeps earlier content"
            };
            (
                op,
                format!(
                    "its first use ({}) {how} and after it {}",
                    first.access,
                    cx.explain(live)
                ),
            )
        };
        if a.load_op != load {
            let problem = match (a.load_op, load) {
                (_, LoadOp::Load) => "loses earlier content",
                (LoadOp::Load, _) => "loads content nothing needs",
                _ => "has the wrong load",
            };
            cx.fail(
                "rp.load",
                format!(
                    "render pass #{i}: '{}' has load {:?} and {problem}: {why}, so {load:?}",
                    a.resource, a.load_op
                ),
            );
        }
        let live = live_after(cx, r, end);
        let store = if live.needed() {
            StoreOp::Store
        } else {
            StoreOp::DontCare
        };
        if a.store_op != store {
            let problem = if store == StoreOp::Store {
                "loses its content"
            } else {
                "stores content nothing needs"
            };
            cx.fail(
                "rp.store",
                format!(
                    "render pass #{i}: '{}' has store {:?} and {problem}: after the render pass {}, so {store:?}",
                    a.resource,
                    a.store_op,
                    cx.explain(live)
                ),
            );
        }
    }
}

fn check_memoryless(
    cx: &mut Ctx<'_>,
    i: usize,
    rp: &RenderPass,
    passes: &[PassId],
    seen: &mut HashSet<ResourceId>,
) {
    let g = cx.graph;
    let allowed = cx.caps.lazily_allocated && cx.options.memoryless;
    for a in &rp.attachments {
        let Some(r) = g.find_resource(&a.resource) else {
            continue;
        };
        let res = g.resource(r);
        let mut broken: Vec<String> = Vec::new();
        if a.load_op == LoadOp::Load {
            broken.push("it is loaded".into());
        }
        if a.store_op == StoreOp::Store {
            broken.push("it is stored".into());
        }
        if res.is_persistent() || res.output {
            broken.push("it is imported, a history resource or an output".into());
        }
        for (_, p, u) in &cx.uses[r.index()] {
            if !passes.contains(p) {
                broken.push(format!(
                    "'{}' uses it outside the render pass",
                    g.pass(*p).name
                ));
            } else if att(u.access, is_depth(g, r)).is_none() {
                broken.push(format!("'{}' uses it as {}", g.pass(*p).name, u.access));
            }
        }
        if a.memoryless {
            if !allowed {
                broken.push("the device or the options do not allow memoryless attachments".into());
            }
            if !seen.insert(r) {
                broken.push("it is memoryless in two render passes".into());
            }
            if cx
                .plan
                .memory
                .blocks
                .iter()
                .flat_map(|b| &b.placements)
                .any(|pl| pl.resource == a.resource)
            {
                broken.push("it is placed in a memory block".into());
            }
            if !broken.is_empty() {
                cx.fail(
                    "rp.memoryless",
                    format!(
                        "render pass #{i}: '{}' is memoryless but {}",
                        a.resource,
                        broken.join(", ")
                    ),
                );
            }
        } else if allowed && broken.is_empty() {
            cx.fail("rp.memoryless", format!("render pass #{i}: '{}' lives only in this render pass, never loaded or stored, but is not memoryless", a.resource));
        }
    }
}

fn check_memoryless_bytes(cx: &mut Ctx<'_>, memoryless: &HashSet<ResourceId>) {
    let bytes: u64 = memoryless
        .iter()
        .map(|&r| cx.graph.resource(r).bytes())
        .sum();
    if bytes != cx.plan.memory.memoryless_bytes {
        cx.fail(
            "rp.memoryless",
            format!(
                "memoryless_bytes is {}, the memoryless attachments take {bytes}",
                cx.plan.memory.memoryless_bytes
            ),
        );
    }
}

fn check_bandwidth(cx: &mut Ctx<'_>) {
    let g = cx.graph;
    let bytes = |r: ResourceId| {
        g.resource(r).image_desc().map_or(0u64, |d| {
            u64::from(d.width)
                * u64::from(d.height)
                * u64::from(d.samples)
                * u64::from(d.format.bytes_per_texel())
        })
    };
    let (mut load, mut store) = (0u64, 0u64);
    for a in cx.plan.render_passes.iter().flat_map(|rp| &rp.attachments) {
        let Some(r) = g.find_resource(&a.resource) else {
            continue;
        };
        if a.load_op == LoadOp::Load {
            load += bytes(r);
        }
        if a.store_op == StoreOp::Store {
            store += bytes(r);
        }
    }
    let (mut naive_load, mut naive_store) = (0u64, 0u64);
    for (pos, name) in cx.plan.order.iter().enumerate() {
        let Some(&p) = cx.pass_id.get(name.as_str()) else {
            continue;
        };
        if g.pass(p).kind != PassKind::Raster {
            continue;
        }
        for u in &g.pass(p).uses {
            if att(u.access, is_depth(g, u.resource)).is_none() {
                continue;
            }
            if !u.clear && content_before(cx, u.resource, pos) {
                naive_load += bytes(u.resource);
            }
            naive_store += bytes(u.resource);
            // Naively a resolve is a separate one: it loads every sample of its source back.
            if let (Access::Resolve, Some(from)) = (u.access, u.from) {
                if from.index() < g.resources.len() {
                    naive_load += bytes(from);
                }
            }
        }
    }
    let bw = &cx.plan.bandwidth;
    let got = (
        bw.load_bytes,
        bw.store_bytes,
        bw.naive_load_bytes,
        bw.naive_store_bytes,
    );
    let want = (load, store, naive_load, naive_store);
    if got != want {
        cx.fail("rp.bandwidth", format!("bandwidth (load, store, naive load, naive store) is {got:?}, the attachments and the graph give {want:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::graph::ImageDesc;

    /// prepass (depth) -> shade (input attachment) -> post (samples the shaded image).
    fn frame() -> (Graph, Capabilities, CompileOptions, Plan) {
        let mut g = Graph::new("t");
        let d = g.image("d", ImageDesc::new(Format::D32_SFLOAT, 16, 16));
        let c = g.image("c", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
        g.resource_mut(out).output = true;
        g.raster("prepass").clears(d, Access::DepthWrite);
        g.raster("shade")
            .uses(d, Access::InputAttachment)
            .uses(c, Access::ColorWriteAll);
        g.raster("post")
            .uses(c, Access::Sampled)
            .uses(out, Access::ColorWriteAll);
        let caps = Capabilities::profile("mali").unwrap();
        let options = CompileOptions::ALL;
        let plan = crate::compile(&g, &caps, &options).unwrap();
        (g, caps, options, plan)
    }

    fn rules(g: &Graph, caps: &Capabilities, o: &CompileOptions, p: &Plan) -> Vec<&'static str> {
        let mut v = Vec::new();
        check(g, caps, o, p, &mut v);
        v.iter().map(|x| x.rule).collect()
    }

    #[test]
    fn the_compiled_plan_passes() {
        let (g, c, o, p) = frame();
        assert_eq!(rules(&g, &c, &o, &p), Vec::<&str>::new());
        assert_eq!(p.render_passes.len(), 2);
    }

    #[test]
    fn each_broken_invariant_is_reported() {
        let (g, c, o, p) = frame();
        let mutate = |f: &dyn Fn(&mut Plan)| {
            let mut q = p.clone();
            f(&mut q);
            rules(&g, &c, &o, &q)
        };
        assert!(
            mutate(&|q| q.render_passes[0].subpasses.pop().map(drop).unwrap_or(()))
                .contains(&"rp.subpass")
        );
        assert!(mutate(&|q| q.render_passes.swap(0, 1)).contains(&"rp.order"));
        assert!(mutate(&|q| q.breaks.clear()).contains(&"rp.break"));
        assert!(mutate(&|q| {
            let second = q.render_passes.remove(1);
            q.render_passes[0].subpasses.extend(second.subpasses);
            q.render_passes[0].attachments.extend(second.attachments);
            q.breaks.clear();
        })
        .contains(&"rp.merge"));
        assert!(mutate(&|q| q.render_passes[0].attachments.truncate(1)).contains(&"rp.attachment"));
        assert!(
            mutate(&|q| q.render_passes[0].attachments[0].initial_layout = Layout::GENERAL)
                .contains(&"rp.layout")
        );
        assert!(mutate(&|q| q.render_passes[0].dependencies.clear()).contains(&"rp.dependency"));
        assert!(mutate(
            &|q| q.render_passes[0].dependencies[0].dst_stage = StageMask::VERTEX_SHADER
        )
        .contains(&"rp.dependency"));
        assert!(
            mutate(&|q| q.render_passes[0].attachments[0].load_op = LoadOp::Load)
                .contains(&"rp.load")
        );
        assert!(
            mutate(&|q| q.render_passes[0].attachments[1].store_op = StoreOp::DontCare)
                .contains(&"rp.store")
        );
        assert!(
            mutate(&|q| q.render_passes[0].attachments[0].store_op = StoreOp::Store)
                .contains(&"rp.store")
        );
        // 'c' is stored for 'post': marking it memoryless is wrong; 'd' must be memoryless.
        assert!(
            mutate(&|q| q.render_passes[0].attachments[1].memoryless = true)
                .contains(&"rp.memoryless")
        );
        assert!(
            mutate(&|q| q.render_passes[0].attachments[0].memoryless = false)
                .contains(&"rp.memoryless")
        );
        assert!(mutate(&|q| q.memory.memoryless_bytes += 1).contains(&"rp.memoryless"));
        assert!(mutate(&|q| q.bandwidth.naive_store_bytes += 1).contains(&"rp.bandwidth"));
    }

    #[test]
    fn by_region_only_between_attachment_uses() {
        let mut g = Graph::new("t");
        let c = g.image("c", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
        g.resource_mut(out).output = true;
        g.raster("a").uses(c, Access::ColorWriteAll);
        g.raster("b")
            .uses(c, Access::Sampled)
            .uses(out, Access::ColorWriteAll);
        let caps = Capabilities::profile("desktop").unwrap();
        let o = CompileOptions::ALL;
        let mut p = crate::compile(&g, &caps, &o).unwrap();
        // Force the two into one render pass with a by-region dependency: both rules fire.
        let second = p.render_passes.remove(1);
        p.render_passes[0].subpasses.extend(second.subpasses);
        p.render_passes[0].attachments.extend(second.attachments);
        p.render_passes[0]
            .dependencies
            .push(crate::plan::SubpassDependency {
                src_subpass: 0,
                dst_subpass: 1,
                src_stage: StageMask::COLOR_ATTACHMENT_OUTPUT,
                dst_stage: StageMask::FRAGMENT_SHADER,
                src_access: AccessMask::COLOR_ATTACHMENT_WRITE,
                dst_access: AccessMask::SHADER_SAMPLED_READ,
                by_region: true,
            });
        p.breaks.clear();
        let v = rules(&g, &caps, &o, &p);
        assert!(
            v.contains(&"rp.merge") && v.contains(&"rp.dependency"),
            "{v:?}"
        );
    }
}
