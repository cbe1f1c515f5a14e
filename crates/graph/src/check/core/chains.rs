//! Execution-dependency chains on one queue, over two frames: pipeline barriers and subpass
//! dependencies as nodes, an edge wherever the second scope of one meets the first scope of
//! the next later in submission order.
//!
//! - barrier -> barrier: the later one's source stages meet the earlier one's destination;
//! - barrier -> subpass dependency: the barrier is recorded before the render pass begins;
//! - dependency -> dependency: same render pass, the second leaves the subpass the first
//!   enters;
//! - dependency -> barrier: the barrier is recorded after the dependency's later subpass.
//!
//! `reach` is the reflexive-transitive closure as bit sets, built backwards over the nodes
//! sorted by time (every edge goes to a strictly later time). Cost: O(nodes² · nodes/64).

use super::masks::stages_meet;
use super::{qi, Ctx};
use crate::plan::SubpassDependency;
use crate::sync::StageMask;
use std::collections::HashMap;

/// A synchronization command of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// Index into `Ctx::barriers`.
    Barrier(usize),
    /// Dependency `1` of render pass `0`.
    Dep(usize, usize),
}

/// The chain graph of one queue.
pub(crate) struct Chains {
    /// Nodes with their frame (0 = previous, 1 = this one), sorted by time.
    pub nodes: Vec<(Node, usize)>,
    /// Two-frame time of each node: where a barrier is recorded, or the execution time of a
    /// dependency's later subpass.
    pub time: Vec<usize>,
    reach: Vec<Vec<u64>>,
    barrier_node: HashMap<(usize, usize), usize>,
}

/// The kept pass of subpass `s` of render pass `rp`, if it runs on queue `q`.
pub(crate) fn subpass_pass(ctx: &Ctx, rp: usize, s: usize, q: usize) -> Option<usize> {
    let name = ctx.plan.render_passes.get(rp)?.subpasses.get(s)?;
    let p = *ctx.pass_index.get(name.as_str())?;
    (ctx.pos[p].is_some() && qi(ctx.queue[p]) == q).then_some(p)
}

impl Chains {
    pub fn new(ctx: &Ctx, q: usize) -> Self {
        let len = ctx.frame_len(q);
        let mut nodes: Vec<(Node, usize)> = Vec::new();
        let mut time = Vec::new();
        for frame in 0..2 {
            for (i, b) in ctx.barriers.iter().enumerate() {
                if qi(b.queue) == q {
                    nodes.push((Node::Barrier(i), frame));
                    time.push(frame * len + b.time);
                }
            }
            for (rp, pass) in ctx.plan.render_passes.iter().enumerate() {
                for (d, dep) in pass.dependencies.iter().enumerate() {
                    let (src, dst) = (dep.src_subpass as usize, dep.dst_subpass as usize);
                    let ends = (subpass_pass(ctx, rp, src, q), subpass_pass(ctx, rp, dst, q));
                    if let (true, Some(_), Some(later)) = (src < dst, ends.0, ends.1) {
                        nodes.push((Node::Dep(rp, d), frame));
                        time.push(frame * len + ctx.pass_time(later));
                    }
                }
            }
        }
        let mut idx: Vec<usize> = (0..nodes.len()).collect();
        idx.sort_by_key(|&i| time[i]);
        let nodes: Vec<(Node, usize)> = idx.iter().map(|&i| nodes[i]).collect();
        let time: Vec<usize> = idx.iter().map(|&i| time[i]).collect();
        let mut chains = Chains {
            reach: Vec::new(),
            barrier_node: HashMap::new(),
            nodes,
            time,
        };
        let n = chains.nodes.len();
        let words = n.div_ceil(64);
        let mut reach = vec![vec![0u64; words]; n];
        for i in (0..n).rev() {
            reach[i][i / 64] |= 1 << (i % 64);
            for j in i + 1..n {
                if chains.time[j] > chains.time[i]
                    && !bit(&reach[i], j)
                    && chains.edge(ctx, q, i, j)
                {
                    let (head, tail) = reach.split_at_mut(j);
                    for (w, x) in head[i].iter_mut().zip(&tail[0]) {
                        *w |= *x;
                    }
                }
            }
        }
        chains.reach = reach;
        for (n, &(node, frame)) in chains.nodes.iter().enumerate() {
            if let Node::Barrier(b) = node {
                chains.barrier_node.insert((b, frame), n);
            }
        }
        chains
    }

    /// Source and destination stages of node `n`.
    pub fn stages(&self, ctx: &Ctx, n: usize) -> (StageMask, StageMask) {
        match self.nodes[n].0 {
            Node::Barrier(b) => {
                let x = &ctx.plan.barriers[ctx.barriers[b].index];
                (x.src_stage, x.dst_stage)
            }
            Node::Dep(rp, d) => {
                let x = dep(ctx, rp, d);
                (x.src_stage, x.dst_stage)
            }
        }
    }

    /// An edge from node `i` to the later node `j`.
    fn edge(&self, ctx: &Ctx, q: usize, i: usize, j: usize) -> bool {
        let ((_, dst), (src, _)) = (self.stages(ctx, i), self.stages(ctx, j));
        if !stages_meet(dst, src) {
            return false;
        }
        let len = ctx.frame_len(q);
        match (self.nodes[i], self.nodes[j]) {
            ((Node::Barrier(_), _), (Node::Barrier(_), _)) => true,
            ((Node::Barrier(_), _), (Node::Dep(rp, _), frame)) => {
                let first = subpass_pass(ctx, rp, 0, q);
                first.is_some_and(|p| self.time[i] < frame * len + ctx.pass_time(p))
            }
            ((Node::Dep(rp, d), fi), (Node::Dep(rp2, e), fj)) => {
                rp == rp2 && fi == fj && dep(ctx, rp, d).dst_subpass == dep(ctx, rp2, e).src_subpass
            }
            ((Node::Dep(..), _), (Node::Barrier(_), _)) => true,
        }
    }

    /// The node of barrier `b` in `frame`.
    pub fn barrier_node(&self, b: usize, frame: usize) -> Option<usize> {
        self.barrier_node.get(&(b, frame)).copied()
    }

    /// True when node `to` is reachable from node `from` (or is it).
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        bit(&self.reach[from], to)
    }
}

/// Dependency `d` of render pass `rp` (both known to exist).
pub(crate) fn dep<'p>(ctx: &'p Ctx, rp: usize, d: usize) -> &'p SubpassDependency {
    &ctx.plan.render_passes[rp].dependencies[d]
}

fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 == 1
}
