//! Checker invariants: renderpass.

use super::Violation;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::Graph;
use crate::plan::Plan;

/// Pushes every violated renderpass invariant onto `out`.
pub(super) fn check(
    _graph: &Graph,
    _caps: &Capabilities,
    _options: &CompileOptions,
    _plan: &Plan,
    _out: &mut Vec<Violation>,
) {
}
