//! What a generator covers: render passes in which an attachment is read (input attachment,
//! depth test, blending) in a subpass before the last one that uses it, so that its store
//! operation (a write at the end of the last) must wait for that read.

use tessera_graph::plan::{Plan, StoreOp};
use tessera_graph::{Access, Graph};

/// Counts of attachments read before their last subpass, by store operation, and of those
/// in a render pass that also resolves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MiddleReads {
    /// Stored with `STORE`.
    pub store: u32,
    /// Stored with `DONT_CARE`.
    pub dont_care: u32,
    /// In a render pass with a resolve attachment.
    pub resolve: u32,
}

impl MiddleReads {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: MiddleReads) {
        self.store += other.store;
        self.dont_care += other.dont_care;
        self.resolve += other.resolve;
    }
}

/// The attachments of `plan`'s multi-subpass render passes that some subpass reads as an input
/// attachment, a depth test or by blending before a later subpass uses them last.
pub fn middle_reads(graph: &Graph, plan: &Plan) -> MiddleReads {
    let mut out = MiddleReads::default();
    for rp in plan
        .render_passes
        .iter()
        .filter(|rp| rp.subpasses.len() > 1)
    {
        let resolves = rp.attachments.iter().any(|a| a.resolve_target.is_some());
        for a in rp.attachments.iter() {
            let Some(r) = graph.find_resource(&a.resource) else {
                continue;
            };
            // The access of each subpass that uses the attachment, in subpass order.
            let uses: Vec<Access> = rp
                .subpasses
                .iter()
                .filter_map(|s| graph.find_pass(s))
                .filter_map(|p| graph.pass(p).uses.iter().find(|u| u.resource == r))
                .map(|u| {
                    if u.access == Access::ColorReadWrite && u.clear {
                        Access::ColorWrite
                    } else {
                        u.access
                    }
                })
                .collect();
            let read_before_last = uses.len() > 1
                && uses[..uses.len() - 1].iter().any(|a| {
                    matches!(
                        a,
                        Access::InputAttachment | Access::DepthRead | Access::ColorReadWrite
                    )
                });
            if !read_before_last {
                continue;
            }
            match a.store_op {
                StoreOp::Store => out.store += 1,
                StoreOp::DontCare => out.dont_care += 1,
            }
            out.resolve += u32::from(resolves);
        }
    }
    out
}
