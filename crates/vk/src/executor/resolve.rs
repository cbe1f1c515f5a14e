//! The plan's names resolved once, when a plan is prepared: the plan addresses passes and
//! resources by name (its JSON contract), the executor by position in `plan.order` and by
//! resource index. [`ResolvedPlan::new`] is the one place where a name the plan uses and the
//! graph does not know is an error; everything built from it (setups, render passes,
//! barrier placement, submits, the external semaphores) and every frame index vectors.

use crate::VkError;
use tessera_graph::plan::BarrierPosition;
use tessera_graph::{Graph, PassId, Plan, QueueKind};

/// A plan render pass by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResolvedRenderPass {
    /// Position in `plan.order` of each subpass.
    pub(crate) subpasses: Vec<usize>,
    /// Resource index of each attachment, in attachment order.
    pub(crate) attachments: Vec<usize>,
}

/// A plan barrier by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ResolvedBarrier {
    /// Position in `plan.order` of the pass it is recorded at (`before` in the plan).
    pub(crate) pass: usize,
    /// Resource index.
    pub(crate) resource: usize,
}

/// Every name of a plan the executor needs, as indices (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ResolvedPlan {
    /// The graph's pass at each position of `plan.order`.
    pub(crate) passes: Vec<PassId>,
    /// The logical queue of each position.
    pub(crate) queues: Vec<QueueKind>,
    /// Per plan render pass (same index).
    pub(crate) render_passes: Vec<ResolvedRenderPass>,
    /// (render pass, subpass index) of each position in a render pass.
    pub(crate) subpass_of: Vec<Option<(usize, u32)>>,
    /// Per plan barrier (same index).
    pub(crate) barriers: Vec<ResolvedBarrier>,
    /// Plan barrier indices recorded before / after each position, in plan order.
    pub(crate) before: Vec<Vec<usize>>,
    pub(crate) after: Vec<Vec<usize>>,
    /// Per `plan.external` entry: positions of its first and last pass.
    pub(crate) external: Vec<(usize, usize)>,
}

impl ResolvedPlan {
    /// Resolves the names of `plan` (compiled from `graph`); a name that neither the plan's
    /// order nor the graph knows is refused here.
    pub(crate) fn new(graph: &Graph, plan: &Plan) -> Result<ResolvedPlan, VkError> {
        let positions = plan.positions();
        let pass = |what: &str, name: &str| {
            positions
                .get(name)
                .copied()
                .ok_or_else(|| VkError::Setup(format!("{what} names unknown pass '{name}'")))
        };
        let resource = |what: &str, name: &str| {
            graph
                .find_resource(name)
                .map(|r| r.index())
                .ok_or_else(|| VkError::Setup(format!("{what} names unknown resource '{name}'")))
        };
        let passes = plan
            .order
            .iter()
            .map(|name| {
                graph
                    .find_pass(name)
                    .ok_or_else(|| VkError::Setup(format!("plan names unknown pass '{name}'")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let n = passes.len();
        let mut queues = vec![QueueKind::Graphics; n];
        // A name of the async-compute list that is not in the order is refused with the
        // submission layout (`SubmitPlan::from_plan`).
        for name in plan.queues.async_compute.iter() {
            if let Some(&p) = positions.get(name.as_str()) {
                queues[p] = QueueKind::AsyncCompute;
            }
        }
        let mut render_passes = Vec::with_capacity(plan.render_passes.len());
        let mut subpass_of = vec![None; n];
        for (k, rp) in plan.render_passes.iter().enumerate() {
            let subpasses = rp
                .subpasses
                .iter()
                .map(|s| pass("a render pass", s))
                .collect::<Result<Vec<_>, _>>()?;
            for (j, &p) in subpasses.iter().enumerate() {
                subpass_of[p] = Some((k, j as u32));
            }
            let attachments = rp
                .attachments
                .iter()
                .map(|a| resource("a render pass", &a.resource))
                .collect::<Result<Vec<_>, _>>()?;
            render_passes.push(ResolvedRenderPass {
                subpasses,
                attachments,
            });
        }
        let mut barriers = Vec::with_capacity(plan.barriers.len());
        let mut before = vec![Vec::new(); n];
        let mut after = vec![Vec::new(); n];
        for (i, b) in plan.barriers.iter().enumerate() {
            let p = pass("a barrier", &b.before)?;
            let r = resource("a barrier", &b.resource)?;
            barriers.push(ResolvedBarrier {
                pass: p,
                resource: r,
            });
            match b.position {
                BarrierPosition::Before => before[p].push(i),
                BarrierPosition::After => after[p].push(i),
            }
        }
        let external = plan
            .external
            .iter()
            .map(|e| {
                Ok((
                    pass("plan.external", &e.first_pass)?,
                    pass("plan.external", &e.last_pass)?,
                ))
            })
            .collect::<Result<Vec<_>, VkError>>()?;
        Ok(ResolvedPlan {
            passes,
            queues,
            render_passes,
            subpass_of,
            barriers,
            before,
            after,
            external,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submit::SubmitPlan;
    use tessera_graph::access::Access;
    use tessera_graph::graph::Origin;
    use tessera_graph::{compile, Capabilities, CompileOptions, Format, ImageDesc};

    /// Depth prepass, light culling on async compute, lighting into HDR, then a raster pass
    /// into a swapchain image (imported per frame, presented).
    fn scenario() -> (Graph, Plan) {
        let mut g = Graph::new("s");
        let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
        let tiles = g.buffer("tiles", 1024);
        let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
        let swap = g.image("swap", ImageDesc::new(Format::B8G8R8A8_UNORM, 64, 64));
        {
            let s = g.resource_mut(swap);
            s.origin = Origin::PRESENTED;
            s.output = true;
        }
        g.raster("prepass").clears(depth, Access::DepthWrite).id();
        g.compute("cull")
            .on_queue(QueueKind::AsyncCompute)
            .uses(depth, Access::Sampled)
            .uses(tiles, Access::StorageWrite)
            .id();
        g.raster("opaque")
            .uses(tiles, Access::StorageRead)
            .uses(depth, Access::DepthRead)
            .clears(hdr, Access::ColorWrite)
            .id();
        g.raster("tonemap")
            .uses(hdr, Access::Sampled)
            .clears(swap, Access::ColorWrite)
            .id();
        let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
        (g, plan)
    }

    #[test]
    fn every_name_maps_to_its_pass_and_resource() {
        let (g, plan) = scenario();
        let r = ResolvedPlan::new(&g, &plan).unwrap();
        let n = plan.order.len();
        assert_eq!(r.passes.len(), n);
        for (p, name) in plan.order.iter().enumerate() {
            assert_eq!(g.pass(r.passes[p]).name, *name);
            let on_async = plan.queues.async_compute.iter().any(|a| a == name);
            assert_eq!(r.queues[p] == QueueKind::AsyncCompute, on_async, "{name}");
        }
        assert!(r.queues.contains(&QueueKind::AsyncCompute));
        // Barriers: the pass and resource they name, each in exactly one list of its pass,
        // on the side the plan says, in plan order.
        assert!(!plan.barriers.is_empty());
        assert_eq!(r.barriers.len(), plan.barriers.len());
        for (i, (b, rb)) in plan.barriers.iter().zip(&r.barriers).enumerate() {
            assert_eq!(plan.order[rb.pass], b.before);
            assert_eq!(g.resources[rb.resource].name, b.resource);
            let (mine, other) = match b.position {
                BarrierPosition::Before => (&r.before, &r.after),
                BarrierPosition::After => (&r.after, &r.before),
            };
            assert!(mine[rb.pass].contains(&i), "barrier {i}");
            assert!(!other[rb.pass].contains(&i), "barrier {i}");
        }
        let listed: usize = r.before.iter().chain(&r.after).map(Vec::len).sum();
        assert_eq!(listed, plan.barriers.len());
        for list in r.before.iter().chain(&r.after) {
            assert!(list.windows(2).all(|w| w[0] < w[1]));
        }
        // Render passes: subpasses by position, attachments by resource index.
        assert!(!plan.render_passes.is_empty());
        let mut in_rp = 0;
        for (k, (rp, rr)) in plan.render_passes.iter().zip(&r.render_passes).enumerate() {
            let names: Vec<_> = rr.subpasses.iter().map(|&p| &plan.order[p]).collect();
            assert_eq!(names, rp.subpasses.iter().collect::<Vec<_>>());
            for (j, &p) in rr.subpasses.iter().enumerate() {
                assert_eq!(r.subpass_of[p], Some((k, j as u32)));
                in_rp += 1;
            }
            let names: Vec<_> = rr
                .attachments
                .iter()
                .map(|&i| &g.resources[i].name)
                .collect();
            let want: Vec<_> = rp.attachments.iter().map(|a| &a.resource).collect();
            assert_eq!(names, want);
        }
        assert_eq!(r.subpass_of.iter().flatten().count(), in_rp);
        // The external semaphores: wait before the swapchain's first pass, signal after its
        // last.
        assert!(!plan.external.is_empty());
        for (e, &(first, last)) in plan.external.iter().zip(&r.external) {
            assert_eq!(plan.order[first], e.first_pass);
            assert_eq!(plan.order[last], e.last_pass);
        }
        // The timeline waits and signals go with the batches, whose passes the submission
        // layout reads as positions too.
        let layout = SubmitPlan::from_plan(&plan).unwrap();
        for (b, sb) in plan.batches.iter().zip(&layout.batches) {
            let names: Vec<_> = sb.passes.iter().map(|&p| &plan.order[p]).collect();
            assert_eq!(names, b.passes.iter().collect::<Vec<_>>());
        }
    }

    fn refused(g: &Graph, plan: &Plan) -> String {
        match ResolvedPlan::new(g, plan) {
            Ok(_) => panic!("a plan with an unknown name was resolved"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn unknown_names_are_refused_when_prepared() {
        let (g, plan) = scenario();
        let mut p = plan.clone();
        p.barriers[0].before = "ghost".into();
        let e = refused(&g, &p);
        assert!(e.contains("a barrier names unknown pass 'ghost'"), "{e}");
        let mut p = plan.clone();
        p.barriers[0].resource = "nothing".into();
        let e = refused(&g, &p);
        assert!(
            e.contains("a barrier names unknown resource 'nothing'"),
            "{e}"
        );
        let mut p = plan.clone();
        p.render_passes[0].subpasses[0] = "ghost".into();
        let e = refused(&g, &p);
        assert!(
            e.contains("a render pass names unknown pass 'ghost'"),
            "{e}"
        );
        let mut p = plan.clone();
        p.external[0].last_pass = "ghost".into();
        let e = refused(&g, &p);
        assert!(
            e.contains("plan.external names unknown pass 'ghost'"),
            "{e}"
        );
        // A pass of the order that the graph does not have.
        let mut g2 = g.clone();
        let last = plan.order.len() - 1;
        let id = r_pass(&g2, &plan.order[last]);
        g2.passes[id].name = "renamed".into();
        let e = refused(&g2, &plan);
        assert!(
            e.contains(&format!("plan names unknown pass '{}'", plan.order[last])),
            "{e}"
        );
    }

    fn r_pass(g: &Graph, name: &str) -> usize {
        g.find_pass(name).unwrap().index()
    }
}
