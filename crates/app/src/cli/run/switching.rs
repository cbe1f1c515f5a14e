//! The switches as the user has toggled them, and the re-plan a toggle (or a resize)
//! causes: what the next frame's plan is compared with, and why it changed.

use super::toggles::Switches;
use tessera_graph::Plan;

/// A re-plan the next frame will make, and what caused it.
pub struct Replan {
    pub reason: String,
    pub before: Option<Plan>,
}

/// The switches and the re-plan they wait for.
pub struct Switching {
    pub switches: Switches,
    /// The re-plan the next frame makes, when one was asked for.
    pub pending: Option<Replan>,
    /// The plan of the last frame that re-planned, screenshot frames aside: what a switch's
    /// plan is compared with.
    pub steady: Option<Plan>,
}

impl Switching {
    pub fn new(switches: Switches) -> Switching {
        Switching {
            switches,
            pending: None,
            steady: None,
        }
    }

    /// Marks the next frame's re-plan with `reason` (keeping the plan to diff against).
    pub fn expect_replan(&mut self, reason: String) {
        let before = self.steady.clone();
        self.pending = Some(Replan { reason, before });
    }
}
