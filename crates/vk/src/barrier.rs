//! A plan barrier as synchronization2 masks, layouts and queue families (pure, tested
//! without a device).
//!
//! - A plain barrier keeps the plan's masks and layouts, with `QUEUE_FAMILY_IGNORED` (the
//!   plan's masks already include the attachments' load and store operations, so nothing is
//!   widened here).
//! - A queue-family ownership transfer half (`queue_transfer`) between two families is a
//!   release (source family's queue: the plan's source scope, an empty destination scope)
//!   or an acquire (destination family's queue: the plan's destination scope), both with
//!   the same layouts and the two family indices.
//! - When both logical queues map to one family (one device queue family, or the emulated
//!   async queue) there is no ownership to transfer and the spec requires
//!   `QUEUE_FAMILY_IGNORED`: the release becomes a plain barrier that performs the layout
//!   transition and reaches every later command (destination `ALL_COMMANDS`, so the semaphore
//!   signal after it chains on), and the acquire a plain barrier without transition (the
//!   release did it) that makes the content visible to the acquiring pass.

use crate::conv;
use ash::vk;
use tessera_graph::plan::{Barrier, TransferHalf};
use tessera_graph::QueueKind;

/// A barrier ready for `vkCmdPipelineBarrier2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VkBarrier {
    /// Stages waited on.
    pub src_stage: vk::PipelineStageFlags2,
    /// Accesses made available.
    pub src_access: vk::AccessFlags2,
    /// Stages that wait.
    pub dst_stage: vk::PipelineStageFlags2,
    /// Accesses made visible.
    pub dst_access: vk::AccessFlags2,
    /// Image layout transition (old, new); `None` when the layout stays.
    pub layouts: Option<(vk::ImageLayout, vk::ImageLayout)>,
    /// (source, destination) queue family: both `QUEUE_FAMILY_IGNORED` unless this is a
    /// half of an ownership transfer between two families.
    pub families: (u32, u32),
}

impl VkBarrier {
    /// Whether this is a half of an ownership transfer (needs an image or buffer barrier).
    pub fn transfers_ownership(&self) -> bool {
        self.families.0 != self.families.1
    }
}

/// Translates a plan barrier; `family` maps each logical queue to its queue family.
pub fn translate(b: &Barrier, family: impl Fn(QueueKind) -> u32) -> VkBarrier {
    let (ss, sa, ds, da) = (
        conv::stages(b.src_stage),
        conv::accesses(b.src_access),
        conv::stages(b.dst_stage),
        conv::accesses(b.dst_access),
    );
    let layouts = match (b.old_layout, b.new_layout) {
        (Some(o), Some(n)) => Some((conv::layout(o), conv::layout(n))),
        _ => None,
    };
    let plain = |layouts: Option<(vk::ImageLayout, vk::ImageLayout)>, ds, da| VkBarrier {
        src_stage: ss,
        src_access: sa,
        dst_stage: ds,
        dst_access: da,
        layouts: layouts.filter(|(o, n)| o != n),
        families: (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED),
    };
    let Some(t) = &b.queue_transfer else {
        return plain(layouts, ds, da);
    };
    let (from, to) = (family(t.src_queue), family(t.dst_queue));
    if from == to {
        return match t.half {
            TransferHalf::Release => plain(
                layouts,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::NONE,
            ),
            TransferHalf::Acquire => plain(None, ds, da),
        };
    }
    match t.half {
        TransferHalf::Release => VkBarrier {
            src_stage: ss,
            src_access: sa,
            dst_stage: vk::PipelineStageFlags2::NONE,
            dst_access: vk::AccessFlags2::NONE,
            layouts,
            families: (from, to),
        },
        TransferHalf::Acquire => VkBarrier {
            src_stage: ss,
            src_access: vk::AccessFlags2::NONE,
            dst_stage: ds,
            dst_access: da,
            layouts,
            families: (from, to),
        },
    }
}

/// Splits barriers (given by their resources, in plan order) into runs recorded as one
/// `vkCmdPipelineBarrier2` each: a run ends before a resource it already holds, so two
/// barriers on one resource (a routed transition then a release, an acquire then a
/// transition) land in successive commands, which are ordered; one command's barriers are
/// not.
pub fn waves(resources: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < resources.len() {
        let mut seen = std::collections::HashSet::new();
        let end = resources[start..]
            .iter()
            .position(|r| !seen.insert(*r))
            .map_or(resources.len(), |k| start + k);
        out.push(start..end);
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_graph::plan::QueueTransfer;
    use tessera_graph::sync::{AccessMask, Layout, StageMask};

    fn half(h: TransferHalf) -> Barrier {
        let release = h == TransferHalf::Release;
        Barrier {
            before: "p".into(),
            resource: "r".into(),
            src_stage: if release {
                StageMask::COMPUTE_SHADER
            } else {
                StageMask::ALL_COMMANDS
            },
            src_access: if release {
                AccessMask::SHADER_STORAGE_WRITE
            } else {
                AccessMask::empty()
            },
            dst_stage: if release {
                StageMask::empty()
            } else {
                StageMask::FRAGMENT_SHADER
            },
            dst_access: if release {
                AccessMask::empty()
            } else {
                AccessMask::SHADER_SAMPLED_READ
            },
            old_layout: Some(Layout::GENERAL),
            new_layout: Some(Layout::SHADER_READ_ONLY_OPTIMAL),
            queue_transfer: Some(QueueTransfer {
                src_queue: QueueKind::AsyncCompute,
                dst_queue: QueueKind::Graphics,
                half: h,
            }),
            position: Default::default(),
        }
    }

    fn two_families(q: QueueKind) -> u32 {
        match q {
            QueueKind::Graphics => 0,
            QueueKind::AsyncCompute => 2,
        }
    }

    #[test]
    fn transfer_halves_between_families_carry_both_indices_and_one_transition() {
        let r = translate(&half(TransferHalf::Release), two_families);
        let a = translate(&half(TransferHalf::Acquire), two_families);
        assert_eq!(r.families, (2, 0));
        assert_eq!(a.families, (2, 0));
        assert!(r.transfers_ownership() && a.transfers_ownership());
        let t = Some((
            vk::ImageLayout::GENERAL,
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        ));
        assert_eq!(
            (r.layouts, a.layouts),
            (t, t),
            "both halves name the same layouts"
        );
        assert_eq!(r.src_access, vk::AccessFlags2::SHADER_STORAGE_WRITE);
        assert_eq!(
            (r.dst_stage, r.dst_access),
            (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE)
        );
        assert_eq!(a.src_access, vk::AccessFlags2::NONE);
        assert_eq!(a.dst_access, vk::AccessFlags2::SHADER_SAMPLED_READ);
    }

    #[test]
    fn transfer_halves_on_one_family_are_plain_barriers_transitioning_once() {
        let r = translate(&half(TransferHalf::Release), |_| 0);
        let a = translate(&half(TransferHalf::Acquire), |_| 0);
        let ignored = (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED);
        assert_eq!((r.families, a.families), (ignored, ignored));
        assert!(!r.transfers_ownership());
        assert_eq!(
            r.layouts,
            Some((
                vk::ImageLayout::GENERAL,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
            ))
        );
        assert_eq!(a.layouts, None, "the release already transitioned");
        assert_eq!(
            r.dst_stage,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            "chains into the signal"
        );
        assert_eq!(a.dst_stage, vk::PipelineStageFlags2::FRAGMENT_SHADER);
        assert_eq!(a.dst_access, vk::AccessFlags2::SHADER_SAMPLED_READ);
    }

    #[test]
    fn plain_barriers_keep_the_plan_masks() {
        let mut b = half(TransferHalf::Release);
        b.queue_transfer = None;
        b.src_stage = StageMask::COLOR_ATTACHMENT_OUTPUT;
        b.src_access = AccessMask::COLOR_ATTACHMENT_WRITE;
        b.dst_stage = StageMask::COMPUTE_SHADER;
        b.dst_access = AccessMask::SHADER_SAMPLED_READ;
        let v = translate(&b, |_| 0);
        assert_eq!(
            (v.src_stage, v.src_access, v.dst_stage, v.dst_access),
            (
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                vk::PipelineStageFlags2::COMPUTE_SHADER,
                vk::AccessFlags2::SHADER_SAMPLED_READ
            ),
            "nothing is widened"
        );
        assert_eq!(
            v.families,
            (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED)
        );
    }

    #[test]
    fn a_resource_seen_twice_starts_a_new_command() {
        assert_eq!(waves(&[]), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(waves(&[3, 1, 2]), vec![0..3]);
        assert_eq!(waves(&[3, 1, 3, 2]), vec![0..2, 2..4]);
        assert_eq!(waves(&[5, 5, 5]), vec![0..1, 1..2, 2..3]);
    }
}
