//! The load and store operations of the plan's render passes as accesses of the subpasses
//! that make them.
//!
//! For each attachment of each render pass, the first subpass `F` and the last subpass `L`
//! whose pass uses the image as an attachment (found from the graph's uses, not from anything
//! the plan says about them): the load operation is an access at the start of `F`, the store
//! operation one at the end of `L` ([`table::load_op`], [`table::store_op`]). A resolve is
//! the resolving pass's own use of its target (written at the end of that subpass), and the
//! target, an attachment of its own, has load and store operations like any other. The hazard
//! rules treat these accesses like uses; within one subpass they are ordered implicitly
//! (load, then the subpass's own accesses, then store). Attachments the plan lists but no
//! subpass uses, unknown names and repeated entries make no access here (the render-pass
//! rules report them). Cost: O(attachments · subpasses) to build, O(1) per lookup.

use super::table::{self, Class, OpAccess};
use crate::graph::Graph;
use crate::plan::{LoadOp, Plan, StoreOp};
use std::collections::{HashMap, HashSet};

/// The operations made by one subpass on one attachment.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PassOps {
    /// The load operation when the subpass is the attachment's first in its render pass.
    pub load: Option<(LoadOp, OpAccess)>,
    /// The store operation when it is the last.
    pub store: Option<(StoreOp, OpAccess)>,
}

/// Every load and store operation of a plan, by (pass, resource) index.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ops {
    map: HashMap<(usize, usize), PassOps>,
}

impl Ops {
    /// The operations of `plan`'s render passes over `graph`: only kept passes (in `order`)
    /// count as subpasses.
    pub fn new(graph: &Graph, plan: &Plan) -> Self {
        let passes: HashMap<&str, usize> = graph
            .passes
            .iter()
            .enumerate()
            .rev()
            .map(|(i, p)| (p.name.as_str(), i))
            .collect();
        let resources: HashMap<&str, usize> = graph
            .resources
            .iter()
            .enumerate()
            .rev()
            .map(|(i, r)| (r.name.as_str(), i))
            .collect();
        let kept: HashSet<&str> = plan.order.iter().map(|n| n.as_str()).collect();
        let mut map: HashMap<(usize, usize), PassOps> = HashMap::new();
        for rp in &plan.render_passes {
            let subpasses: Vec<usize> = rp
                .subpasses
                .iter()
                .filter(|n| kept.contains(n.as_str()))
                .filter_map(|n| passes.get(n.as_str()).copied())
                .collect();
            let mut seen = HashSet::new();
            for a in &rp.attachments {
                let Some(&r) = resources.get(a.resource.as_str()) else {
                    continue;
                };
                if !seen.insert(r) {
                    continue;
                }
                let users: Vec<usize> = subpasses
                    .iter()
                    .copied()
                    .filter(|&p| {
                        graph.passes[p]
                            .uses
                            .iter()
                            .any(|u| u.resource.index() == r && table::is_attachment(u.access))
                    })
                    .collect();
                let (Some(&first), Some(&last)) = (users.first(), users.last()) else {
                    continue;
                };
                let depth = Class::of(graph, crate::graph::ResourceId(r as u32)) == Class::Depth;
                let f = map.entry((first, r)).or_default();
                f.load
                    .get_or_insert((a.load_op, table::load_op(a.load_op, depth)));
                let l = map.entry((last, r)).or_default();
                l.store
                    .get_or_insert((a.store_op, table::store_op(a.store_op, depth)));
            }
        }
        Ops { map }
    }

    /// The operations pass `p` makes on resource `r`.
    pub fn at(&self, p: usize, r: usize) -> PassOps {
        self.map.get(&(p, r)).copied().unwrap_or_default()
    }
}
