//! Checker invariants of coverage (a colour write covered by a depth/stencil image `D`
//! writes only the pixels `D` covers and leaves the others undefined), recomputed from the
//! graph's uses in the plan's execution order (kept passes only):
//! - `coverage.uncovered_read`: a use reads content whose last replacing write was covered
//!   by `D` without declaring the same coverage (it would read undefined pixels);
//! - `coverage.stale_depth`: a covered read of such content after `D` was written again
//!   (its pixels no longer say which were written);
//! - `coverage.survives`: covered content is what a resource that survives the frame ends
//!   it with (a reader after the frame cannot declare coverage).
//!
//! A covered write replaces content for the load/store rules (`rp.load`, `rp.store`: its
//! load is `DONT_CARE`); a partial write after it leaves the content covered.

use super::Violation;
use crate::access::Access;
use crate::graph::{Graph, ResourceId, Use};
use crate::plan::Plan;
use std::collections::HashMap;

/// Content left by a covered write: the writing pass's name, the covering image, and that
/// image's write count just after the write.
#[derive(Clone, Copy)]
struct Covered<'g> {
    writer: &'g str,
    depth: ResourceId,
    depth_writes: u32,
}

/// Pushes every violated coverage invariant onto `out`.
pub(super) fn check(graph: &Graph, plan: &Plan, out: &mut Vec<Violation>) {
    if !graph
        .passes
        .iter()
        .any(|p| p.uses.iter().any(|u| u.coverage.is_some()))
    {
        return;
    }
    let by_name: HashMap<&str, usize> = graph
        .passes
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    let n = graph.resources.len();
    let mut writes = vec![0u32; n];
    let mut covered: Vec<Option<Covered<'_>>> = vec![None; n];
    for name in plan.order.iter() {
        let Some(&p) = by_name.get(name.as_str()) else {
            continue; // (order.unknown says so)
        };
        let pass = &graph.passes[p];
        for u in pass.uses.iter().filter(|u| u.resource.index() < n) {
            if let Some(c) = covered[u.resource.index()] {
                read_rules(graph, name, u, c, &writes, out);
            }
        }
        for u in pass
            .uses
            .iter()
            .filter(|u| written(u) && u.resource.index() < n)
        {
            writes[u.resource.index()] = writes[u.resource.index()].wrapping_add(1);
        }
        for u in pass
            .uses
            .iter()
            .filter(|u| written(u) && u.resource.index() < n)
        {
            let r = u.resource.index();
            covered[r] = match u.coverage.filter(|d| d.index() < n) {
                Some(depth) if covers(u) => Some(Covered {
                    writer: &pass.name,
                    depth,
                    depth_writes: writes[depth.index()],
                }),
                _ if super::table::replaces_use(u) => None,
                _ => covered[r],
            };
        }
    }
    for (c, res) in covered.iter().zip(&graph.resources) {
        let Some(c) = c else { continue };
        if res.survives_frame() {
            out.push(Violation {
                rule: "coverage.survives",
                detail: format!(
                    "'{}' ends the frame with what '{}' wrote covered by '{}', and it survives the frame: pixels outside the coverage are undefined",
                    res.name,
                    c.writer,
                    graph.resource(c.depth).name
                ),
            });
        }
    }
}

/// True for a use that modifies its resource (a read-only use leaves it as it was).
fn written(u: &Use) -> bool {
    super::table::writes(u.access)
}

/// True for a covered colour write (the only uses whose coverage describes what they write).
fn covers(u: &Use) -> bool {
    u.coverage.is_some() && matches!(u.access, Access::ColorWrite | Access::ColorWriteAll)
}

/// The rules for use `u` of pass `pass` of covered content `c`: a read declares the same
/// coverage, and `D` was not written since.
fn read_rules(
    graph: &Graph,
    pass: &str,
    u: &Use,
    c: Covered<'_>,
    writes: &[u32],
    out: &mut Vec<Violation>,
) {
    if u.previous || !super::table::observes(u.access, u.clear) {
        return;
    }
    let (resource, depth) = (
        &graph.resource(u.resource).name,
        &graph.resource(c.depth).name,
    );
    if u.coverage != Some(c.depth) {
        out.push(Violation {
            rule: "coverage.uncovered_read",
            detail: format!(
                "'{pass}' reads '{resource}' ({}) without coverage by '{depth}', but '{}' wrote it covered by '{depth}': the pixels '{depth}' does not cover are undefined",
                u.access, c.writer
            ),
        });
    } else if writes[c.depth.index()] != c.depth_writes {
        out.push(Violation {
            rule: "coverage.stale_depth",
            detail: format!(
                "'{pass}' reads '{resource}' covered by '{depth}', but '{depth}' was written again after '{}' wrote '{resource}': it no longer says which pixels were written",
                c.writer
            ),
        });
    }
}
