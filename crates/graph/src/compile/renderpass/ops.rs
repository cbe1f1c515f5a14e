//! Load and store operations as accesses of their attachment.
//!
//! The model (the plan checker implements the same one independently): for an attachment
//! whose first use in its render pass is in subpass F and last use in subpass L,
//! - the load operation is an access at the start of F: `LOAD` reads, `CLEAR` and
//!   `DONT_CARE` write; colour at `COLOR_ATTACHMENT_OUTPUT` (`COLOR_ATTACHMENT_READ` /
//!   `COLOR_ATTACHMENT_WRITE`), depth/stencil at `EARLY_FRAGMENT_TESTS`
//!   (`DEPTH_STENCIL_ATTACHMENT_READ` / `DEPTH_STENCIL_ATTACHMENT_WRITE`), in the initial
//!   layout;
//! - the store operation is an access at the end of L: `STORE` and `DONT_CARE` both write;
//!   colour at `COLOR_ATTACHMENT_OUTPUT` (`COLOR_ATTACHMENT_WRITE`), depth/stencil at
//!   `LATE_FRAGMENT_TESTS` (`DEPTH_STENCIL_ATTACHMENT_WRITE`), in the final layout;
//! - a resolve is the `resolve` use of its target ([`crate::access::Access::Resolve`]: a
//!   colour-attachment write at the end of its subpass), and the target has its own load
//!   and store like any attachment. (`LOAD_OP_NONE` / `STORE_OP_NONE` would access nothing;
//!   the plan has no such operations.)
//!
//! Inside a render pass, the subpass-dependency phase replays each load before the uses of
//! its subpass and each store after them ([`super::dependencies`]); the load is the
//! attachment's first access in the render pass, so it depends on nothing there, but later
//! writes (the store included) depend on it. Around the render pass, the barrier phase
//! and the aliasing barriers see the operations folded into the uses they sit at
//! ([`UseOps`]): the first use gains the load's stages and accesses (a barrier before the
//! render pass makes earlier writes visible to it, and waits for earlier reads too when it
//! writes), the last use the store's and becomes a write (whatever comes next waits for
//! it, the next frame's first use and an aliasing successor in the same bytes included).
//! Cost: O(uses of the graph) to build the table, O(1) per lookup.

use super::load_store::{AttachmentDraft, Attachments};
use super::RenderPassGrouping;
use crate::access::{SyncScope, TargetClass};
use crate::graph::{Graph, PassId};
use crate::plan::{LoadOp, StoreOp};
use crate::sync::{AccessMask, Layout, StageMask};

/// An attachment operation as an access: stages, accesses and layout, and whether it
/// writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpAccess {
    /// Stages, accesses and layout.
    pub scope: SyncScope,
    /// True when the operation writes the attachment.
    pub writes: bool,
}

/// The load operation `load` of an attachment of class `class` as an access in `layout`
/// (the attachment's initial layout).
pub fn load_access(load: LoadOp, class: TargetClass, layout: Layout) -> OpAccess {
    let depth = class == TargetClass::DepthStencil;
    let writes = match load {
        LoadOp::Load => false,
        LoadOp::Clear | LoadOp::DontCare => true,
    };
    let (stages, access) = match (depth, writes) {
        (false, false) => (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            AccessMask::COLOR_ATTACHMENT_READ,
        ),
        (false, true) => (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            AccessMask::COLOR_ATTACHMENT_WRITE,
        ),
        (true, false) => (
            StageMask::EARLY_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_READ,
        ),
        (true, true) => (
            StageMask::EARLY_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
        ),
    };
    OpAccess {
        scope: SyncScope {
            stages,
            access,
            layout: Some(layout),
        },
        writes,
    }
}

/// The store operation `store` of an attachment of class `class` as an access in `layout`
/// (the attachment's final layout).
pub fn store_access(store: StoreOp, class: TargetClass, layout: Layout) -> OpAccess {
    // `STORE` and `DONT_CARE` both write (the content becomes undefined under `DONT_CARE`).
    let writes = match store {
        StoreOp::Store | StoreOp::DontCare => true,
    };
    let (stages, access) = if class == TargetClass::DepthStencil {
        (
            StageMask::LATE_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
        )
    } else {
        (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            AccessMask::COLOR_ATTACHMENT_WRITE,
        )
    };
    OpAccess {
        scope: SyncScope {
            stages,
            access,
            layout: Some(layout),
        },
        writes,
    }
}

impl AttachmentDraft {
    /// The load operation as an access ([`load_access`]) of an attachment of class `class`.
    pub fn load_access(&self, class: TargetClass) -> OpAccess {
        load_access(self.load, class, self.initial_layout)
    }

    /// The store operation as an access ([`store_access`]) of an attachment of class
    /// `class`.
    pub fn store_access(&self, class: TargetClass) -> OpAccess {
        store_access(self.store, class, self.final_layout)
    }
}

/// What the attachment operations add to one use: stages, accesses, and whether one writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Added {
    stages: StageMask,
    access: AccessMask,
    writes: bool,
}

/// Per use of every pass: the load and store operations performed at it (the load at the
/// first use of an attachment in its render pass, the store at the last), for the phases
/// that see uses one by one (barriers, aliasing barriers).
#[derive(Clone, Debug, Default)]
pub struct UseOps {
    /// Per pass (indexed by pass): where its uses start in `added`.
    start: Vec<u32>,
    /// Per use, pass by pass in graph order.
    added: Vec<Added>,
}

impl UseOps {
    /// The operations of the attachments of every render pass of `grouping`.
    pub fn new(graph: &Graph, grouping: &RenderPassGrouping, attachments: &Attachments) -> Self {
        let mut start = Vec::with_capacity(graph.passes.len());
        let mut total = 0u32;
        for p in &graph.passes {
            start.push(total);
            total += p.uses.len() as u32;
        }
        let mut ops = UseOps {
            start,
            added: vec![Added::default(); total as usize],
        };
        for (i, group) in grouping.groups.iter().enumerate() {
            for d in attachments.of(i) {
                let class = graph.resource(d.resource).target().class();
                let (Some(&first), Some(&last)) = (
                    group.get(d.first_subpass as usize),
                    group.get(d.last_subpass as usize),
                ) else {
                    debug_assert!(false, "an attachment's subpasses are in its render pass");
                    continue;
                };
                ops.add(first, d.first_use, d.load_access(class));
                ops.add(last, d.last_use, d.store_access(class));
            }
        }
        ops
    }

    fn add(&mut self, pass: PassId, use_index: u32, op: OpAccess) {
        let Some(a) = self.slot(pass, use_index as usize) else {
            debug_assert!(false, "an attachment's uses are uses of its passes");
            return;
        };
        let a = &mut self.added[a];
        a.stages |= op.scope.stages;
        a.access |= op.scope.access;
        a.writes |= op.writes;
    }

    fn slot(&self, pass: PassId, use_index: usize) -> Option<usize> {
        let start = *self.start.get(pass.index())? as usize;
        let end = self
            .start
            .get(pass.index() + 1)
            .map_or(self.added.len(), |&e| e as usize);
        (start + use_index < end).then_some(start + use_index)
    }

    /// The scope and write flag of use `use_index` of `pass` (`scope`, `writes`: those of its
    /// access) with the attachment operations performed at it folded in. Without any (no
    /// attachment, or a use between the first and the last), they are returned as given.
    pub fn fold(
        &self,
        pass: PassId,
        use_index: usize,
        mut scope: SyncScope,
        writes: bool,
    ) -> (SyncScope, bool) {
        match self.slot(pass, use_index) {
            Some(i) => {
                let a = self.added[i];
                scope.stages |= a.stages;
                scope.access |= a.access;
                (scope, writes | a.writes)
            }
            None => (scope, writes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_access_at_the_attachment_stages() {
        let l = Layout::COLOR_ATTACHMENT_OPTIMAL;
        let colour = TargetClass::Color;
        let depth = TargetClass::DepthStencil;
        let load = load_access(LoadOp::Load, colour, l);
        assert!(!load.writes);
        assert_eq!(load.scope.access, AccessMask::COLOR_ATTACHMENT_READ);
        for op in [LoadOp::Clear, LoadOp::DontCare] {
            let a = load_access(op, depth, l);
            assert!(a.writes, "{op:?}");
            assert_eq!(
                (a.scope.stages, a.scope.access),
                (
                    StageMask::EARLY_FRAGMENT_TESTS,
                    AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
                )
            );
        }
        for op in [StoreOp::Store, StoreOp::DontCare] {
            let c = store_access(op, colour, l);
            let d = store_access(op, depth, l);
            assert!(c.writes && d.writes, "{op:?}");
            assert_eq!(c.scope.stages, StageMask::COLOR_ATTACHMENT_OUTPUT);
            assert_eq!(
                (d.scope.stages, d.scope.access),
                (
                    StageMask::LATE_FRAGMENT_TESTS,
                    AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
                )
            );
            assert_eq!(d.scope.layout, Some(l));
        }
    }
}
