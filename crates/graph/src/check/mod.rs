//! The plan checker (hazard oracle): replays a plan against its graph and verifies every
//! invariant, sharing no logic with the compiler beyond the data types.
//!
//! Each area has its own module; [`check`] runs them all and returns every violation found.

mod core;
mod memory;
mod renderpass;
mod syncs;

use crate::caps::{Capabilities, CompileOptions};
use crate::graph::Graph;
use crate::plan::Plan;
use std::fmt;

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Which invariant (short id, e.g. `order.edge`, `hazard.uncovered`).
    pub rule: &'static str,
    /// What exactly is wrong, naming passes and resources.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.rule, self.detail)
    }
}

/// Checks `plan` against `graph`; `Ok` when every invariant holds.
pub fn check(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
) -> Result<(), Vec<Violation>> {
    let mut v = Vec::new();
    core::check(graph, caps, options, plan, &mut v);
    renderpass::check(graph, caps, options, plan, &mut v);
    memory::check(graph, caps, options, plan, &mut v);
    syncs::check(graph, caps, options, plan, &mut v);
    if v.is_empty() {
        Ok(())
    } else {
        Err(v)
    }
}
