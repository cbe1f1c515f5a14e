//! The coverage rules ([`Use::coverage`]): a colour write covered by a depth/stencil image
//! `D` leaves the pixels `D` does not cover undefined, so its content may only be read by
//! uses that read the pixels `D` covers, and only while `D` still holds what the covered
//! write's pass left in it.
//!
//! Checked once every other rule holds (the uses name declared resources, one use per
//! resource per pass, accesses fit), in declaration order, which is the order of every two
//! passes that write and read one resource. Cost: O(passes · uses per pass) for the graphs
//! with coverage, O(uses) to find none.

use super::mismatch;
use crate::access::Access;
use crate::error::CompileError;
use crate::graph::{Graph, Pass, ResourceId, Use};

/// Content left by a covered write: which pass wrote it, covered by which image, and how
/// many writes that image had seen then.
#[derive(Clone, Copy)]
struct Covered {
    writer: usize,
    depth: ResourceId,
    depth_writes: u32,
}

/// Per-resource state of the walk.
#[derive(Clone, Copy, Default)]
struct State {
    /// Writes so far (a covered read needs `D`'s count unchanged since the covered write).
    writes: u32,
    /// The pass that wrote it last.
    last_writer: Option<usize>,
    /// Set while the content is covered.
    covered: Option<Covered>,
}

/// Checks every coverage rule; the first broken one names the pass, the resources and why.
pub(super) fn check(graph: &Graph) -> Result<(), CompileError> {
    let any = graph
        .passes
        .iter()
        .any(|p| p.uses.iter().any(|u| u.coverage.is_some()));
    if !any {
        return Ok(());
    }
    let mut state = vec![State::default(); graph.resources.len()];
    for (i, pass) in graph.passes.iter().enumerate() {
        for u in &pass.uses {
            check_declaration(graph, pass, u)?;
            check_read(graph, pass, u, &state)?;
        }
        apply_writes(&mut state, i, pass);
    }
    check_frame_end(graph, &state)
}

/// The error for use `u` of `pass` that breaks `rule`.
fn error(graph: &Graph, pass: &Pass, u: &Use, rule: String) -> CompileError {
    mismatch(pass, graph.resource(u.resource), u.access, rule)
}

/// The name of resource `id`, or `#n` for an undeclared one.
fn name(graph: &Graph, id: ResourceId) -> String {
    graph
        .resources
        .get(id.index())
        .map_or_else(|| format!("#{}", id.index()), |r| r.name.to_string())
}

/// A use's own coverage fits: `D` is a depth/stencil image; a covered write is a colour
/// write without clear whose pass has `D` as its depth attachment (it writes where `D` is
/// written, or, after a depth prepass, where `D` passes the test); a covered read is a read
/// whose pass also reads `D` (it must know which pixels are covered).
fn check_declaration(graph: &Graph, pass: &Pass, u: &Use) -> Result<(), CompileError> {
    let Some(d) = u.coverage else { return Ok(()) };
    let fail = |rule: String| Err(error(graph, pass, u, rule));
    let depth_image = graph
        .resources
        .get(d.index())
        .and_then(|r| r.image_desc())
        .is_some_and(|desc| desc.format.is_depth_stencil());
    if !depth_image {
        return fail(format!(
            "coverage by '{}', which is not a depth/stencil image: coverage names the depth/stencil image whose written pixels are the covered ones",
            name(graph, d)
        ));
    }
    if u.clear {
        return fail(format!(
            "coverage by '{}' on a use that clears: a clear writes every pixel, so a covered write does not clear (its point is to skip the clear)",
            name(graph, d)
        ));
    }
    if d == u.resource {
        return fail("coverage by the resource itself: coverage names another image".into());
    }
    let depth_use = pass.uses.iter().find(|v| v.resource == d);
    if u.covered_write() {
        let attachment =
            depth_use.is_some_and(|v| matches!(v.access, Access::DepthWrite | Access::DepthRead));
        if !attachment {
            return fail(format!(
                "a covered write by '{}' in a pass whose depth attachment is not '{}': the pass writes the covered pixels, those its depth attachment '{}' passes (declare it depth_write or depth_read)",
                name(graph, d), name(graph, d), name(graph, d)
            ));
        }
        if pass
            .uses
            .iter()
            .any(|v| v.access == Access::Resolve && v.from == Some(u.resource))
        {
            return fail(
                "a covered write that the pass resolves: the resolve reads every pixel, the undefined ones included (write every pixel instead)".into(),
            );
        }
        return Ok(());
    }
    if !u.access.reads(false) || u.access == Access::DepthWrite {
        return fail(format!(
            "coverage on a {} use: only colour writes (color_write, color_write_all) and reads take coverage",
            u.access
        ));
    }
    if !depth_use.is_some_and(|v| v.access.reads(v.clear)) {
        return fail(format!(
            "a covered read by '{}' in a pass that does not read '{}': the pass tells covered pixels from the others by reading it (use it as depth_read, input_attachment or sampled)",
            name(graph, d), name(graph, d)
        ));
    }
    Ok(())
}

/// A read of covered content declares the same coverage, and `D` has not been written since
/// the covered write (else its pixels no longer say which were written).
fn check_read(graph: &Graph, pass: &Pass, u: &Use, state: &[State]) -> Result<(), CompileError> {
    if u.previous || !u.access.reads(u.clear) {
        return Ok(());
    }
    let Some(c) = state[u.resource.index()].covered else {
        return Ok(());
    };
    let writer = &graph.passes[c.writer].name;
    let depth = name(graph, c.depth);
    if u.coverage != Some(c.depth) {
        let declared = match u.coverage {
            Some(other) => format!("declares coverage by '{}'", name(graph, other)),
            None => "declares no coverage".to_string(),
        };
        return Err(error(
            graph,
            pass,
            u,
            format!(
                "reads content '{writer}' wrote covered by '{depth}' and {declared}: pixels '{depth}' does not cover are undefined, so the read declares \"coverage\": \"{depth}\" (and reads only covered pixels) or the write clears instead"
            ),
        ));
    }
    let s = state[c.depth.index()];
    if s.writes != c.depth_writes {
        let by = s
            .last_writer
            .map_or_else(String::new, |p| format!(" by '{}'", graph.passes[p].name));
        return Err(error(
            graph,
            pass,
            u,
            format!(
                "reads content '{writer}' wrote covered by '{depth}', but '{depth}' was written again{by} since: its pixels no longer say which were covered"
            ),
        ));
    }
    Ok(())
}

/// What the writes of pass `p` do to the state: each counts, then each marks its content
/// covered (a covered write, against `D`'s count after the pass, whose depth write it
/// follows), whole (a write that replaces it) or as it was (a partial write leaves the
/// uncovered pixels undefined still).
fn apply_writes(state: &mut [State], p: usize, pass: &Pass) {
    let writes = || pass.uses.iter().filter(|u| u.access.writes());
    for u in writes() {
        let s = &mut state[u.resource.index()];
        s.writes = s.writes.wrapping_add(1);
        s.last_writer = Some(p);
    }
    for u in writes() {
        let covered = match (u.covered_write(), u.coverage) {
            (true, Some(depth)) => Some(Covered {
                writer: p,
                depth,
                depth_writes: state[depth.index()].writes,
            }),
            _ if !u.access.keeps_content(u.clear) => None,
            _ => state[u.resource.index()].covered,
        };
        state[u.resource.index()].covered = covered;
    }
}

/// Covered content does not survive the frame: whoever reads it after the frame cannot
/// declare coverage.
fn check_frame_end(graph: &Graph, state: &[State]) -> Result<(), CompileError> {
    for (id, s) in graph.resource_ids().zip(state) {
        let r = graph.resource(id);
        let Some(c) = s.covered.filter(|_| r.survives_frame()) else {
            continue;
        };
        let pass = &graph.passes[c.writer];
        let Some(u) = pass.uses.iter().find(|u| u.resource == id) else {
            continue;
        };
        return Err(error(
            graph,
            pass,
            u,
            format!(
                "covered by '{}', and '{}' survives the frame (an output or a kept import): a reader after the frame cannot tell covered pixels, so the last write of a surviving resource covers every pixel",
                name(graph, c.depth),
                r.name
            ),
        ));
    }
    Ok(())
}
