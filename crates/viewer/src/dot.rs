//! The page as a Graphviz digraph (`tessera graph FILE --dot OUT.dot`).
//!
//! One node per pass, left to right in execution order: subpasses inside a cluster per render
//! pass (labelled with its DRAM bytes per frame), async-compute passes shaded differently,
//! culled passes dashed and grey. Dependency edges carry their resources (solid when one of
//! them is read-after-write, dashed for ordering-only edges); semaphores are bold red edges
//! labelled with their timeline value; breaks are dotted edges labelled with their cost, with
//! the reason as tooltip. History resources (content kept from one frame to the next) are
//! nodes of their own in a dashed cluster: a double-buffered one as its two physical
//! resources, `physical A` (this frame's content) and `physical B` (the previous frame's),
//! joined by a dotted two-headed edge labelled "swapped each frame"; a single one as one
//! node. A dashed purple edge labelled "next frame" goes from the last pass that writes the
//! content to the first pass that reads it as the previous frame's, across the frame
//! boundary (not a dependency within the frame: it does not constrain the layout), and
//! dotted edges tie the physical resources to those passes. The output is deterministic
//! (plan order throughout), so it can be diffed. Cost: O(passes + edges).

use crate::format::{bytes, plural};
use crate::model::Page;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tessera_graph::graph::{PassKind, QueueKind};
use tessera_graph::plan::EdgeKind;

/// A DOT string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn fill(kind: PassKind, queue: QueueKind) -> &'static str {
    match (kind, queue) {
        (_, QueueKind::AsyncCompute) => "#ffd9a8",
        (PassKind::Raster, _) => "#cfe0ff",
        (PassKind::Compute, _) => "#ffeccc",
        (PassKind::Transfer, _) => "#e4e4e4",
    }
}

/// The Graphviz text of a page.
pub fn dot(page: &Page) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph {} {{", quote(&page.name));
    let _ = writeln!(s, "  rankdir=LR;");
    let _ = writeln!(
        s,
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];"
    );
    let _ = writeln!(s, "  edge [fontname=\"Helvetica\", fontsize=8];");
    let node = |s: &mut String, indent: &str, p: &crate::model::PassRow| {
        let mut label = format!("{}\n#{} {}", p.name, p.position, p.queue);
        if let Some(sp) = p.subpass {
            let _ = write!(label, " · subpass {sp}");
        }
        let nb = p.barriers_before.len() + p.barriers_after.len();
        if nb > 0 {
            let _ = write!(label, "\n{}", plural(nb as u64, "barrier", "barriers"));
        }
        let _ = writeln!(
            s,
            "{indent}{} [label={}, fillcolor=\"{}\"];",
            quote(&p.name),
            quote(&label),
            fill(p.kind, p.queue)
        );
    };
    let mut in_rp = vec![false; page.passes.len()];
    for rp in &page.render_passes {
        let _ = writeln!(s, "  subgraph cluster_rp{} {{", rp.index);
        let _ = writeln!(
            s,
            "    label={}; style=rounded; color=\"#4a78c2\"; fontname=\"Helvetica\"; fontsize=10;",
            quote(&format!(
                "render pass #{} · {}/frame DRAM",
                rp.index,
                bytes(rp.dram_bytes)
            ))
        );
        for name in &rp.subpasses {
            if let Some(p) = page.pass(name) {
                in_rp[p.position as usize] = true;
                node(&mut s, "    ", p);
            }
        }
        let _ = writeln!(s, "  }}");
    }
    for p in page.passes.iter().filter(|p| !in_rp[p.position as usize]) {
        node(&mut s, "  ", p);
    }
    for c in &page.culled {
        // A skipped pass's work is still in use (an earlier frame's): drawn apart.
        let (what, colour) = if c.skipped {
            ("skipped (outputs still valid)", "\"#3b7d4f\"")
        } else {
            ("culled", "grey")
        };
        let _ = writeln!(
            s,
            "  {} [label={}, style=\"rounded,dashed\", color={colour}, fontcolor={colour}, tooltip={}];",
            quote(&c.name),
            quote(&format!("{}\n{what}", c.name)),
            quote(&c.reason)
        );
    }
    // Dependency edges, one per pass pair, in plan order.
    let mut pairs: BTreeMap<(u32, u32), (Vec<&str>, bool)> = BTreeMap::new();
    for e in &page.edges {
        let (Some(a), Some(b)) = (page.pass(&e.from), page.pass(&e.to)) else {
            continue;
        };
        let entry = pairs.entry((a.position, b.position)).or_default();
        if !entry.0.contains(&e.resource.as_str()) {
            entry.0.push(e.resource.as_str());
        }
        entry.1 |= e.kind == EdgeKind::Raw;
    }
    for ((a, b), (resources, raw)) in &pairs {
        let _ = writeln!(
            s,
            "  {} -> {} [label={}{}];",
            quote(&page.passes[*a as usize].name),
            quote(&page.passes[*b as usize].name),
            quote(&resources.join(", ")),
            if *raw { "" } else { ", style=dashed" }
        );
    }
    for y in &page.syncs {
        let _ = writeln!(
            s,
            "  {} -> {} [label={}, color=\"#d03030\", fontcolor=\"#d03030\", style=bold, constraint=false];",
            quote(&y.signal),
            quote(&y.wait),
            quote(&format!("semaphore {} = {}", y.signal_queue, y.value))
        );
    }
    for b in &page.breaks {
        let _ = writeln!(
            s,
            "  {} -> {} [label={}, tooltip={}, color=\"#c06000\", fontcolor=\"#c06000\", style=dotted, constraint=false];",
            quote(&b.after),
            quote(&b.before),
            quote(&format!("break · {}", bytes(b.cost_bytes))),
            quote(&b.reason)
        );
    }
    history(&mut s, page);
    s.push_str("}\n");
    s
}

/// Colour of history resources and of the edges across the frame boundary.
const HISTORY: &str = "#7a4fb5";

/// The node id of a history resource (distinct from pass names).
fn history_node(resource: &str) -> String {
    quote(&format!("history: {resource}"))
}

/// History resources, their physical resources and their edges across the frame boundary.
fn history(s: &mut String, page: &Page) {
    if page.history.is_empty() {
        return;
    }
    let _ = writeln!(s, "  subgraph cluster_history {{");
    let _ = writeln!(
        s,
        "    label=\"history (kept from one frame to the next)\"; style=\"rounded,dashed\"; color=\"{HISTORY}\"; fontcolor=\"{HISTORY}\"; fontname=\"Helvetica\"; fontsize=10;"
    );
    let node = |s: &mut String, name: &str, label: String, tooltip: &str| {
        let _ = writeln!(
            s,
            "    {} [label={}, tooltip={}, shape=cylinder, style=filled, fillcolor=\"#ece3f8\", color=\"{HISTORY}\"];",
            history_node(name),
            quote(&label),
            quote(tooltip)
        );
    };
    for h in &page.history {
        match &h.previous {
            Some(prev) => {
                let half = bytes(h.bytes / 2);
                node(
                    s,
                    &h.resource,
                    format!("{}\nphysical A · this frame's content · {half}", h.resource),
                    &h.reason,
                );
                node(
                    s,
                    prev,
                    format!("{prev}\nphysical B · previous frame's content · {half}"),
                    &h.reason,
                );
                let _ = writeln!(
                    s,
                    "    {} -> {} [label=\"double-buffered, swapped each frame\", dir=both, style=dotted, color=\"{HISTORY}\", fontcolor=\"{HISTORY}\"];",
                    history_node(&h.resource),
                    history_node(prev)
                );
            }
            None => node(
                s,
                &h.resource,
                format!(
                    "{}\nsingle · one physical resource · {}",
                    h.resource,
                    bytes(h.bytes)
                ),
                &h.reason,
            ),
        }
    }
    let _ = writeln!(s, "  }}");
    for h in &page.history {
        let read_from = h.previous.unwrap_or(h.resource);
        if let Some(w) = h.last_writer {
            let _ = writeln!(
                s,
                "  {} -> {} [label=\"writes\", style=dotted, color=\"{HISTORY}\", fontcolor=\"{HISTORY}\"];",
                quote(&w),
                history_node(&h.resource)
            );
        }
        if let Some(r) = h.first_reader {
            let _ = writeln!(
                s,
                "  {} -> {} [label=\"previous frame's\", style=dotted, color=\"{HISTORY}\", fontcolor=\"{HISTORY}\"];",
                history_node(&read_from),
                quote(&r)
            );
        }
        if let (Some(w), Some(r)) = (h.last_writer, h.first_reader) {
            let _ = writeln!(
                s,
                "  {} -> {} [label={}, tooltip={}, style=dashed, color=\"{HISTORY}\", fontcolor=\"{HISTORY}\", penwidth=1.5, constraint=false];",
                quote(&w),
                quote(&r),
                quote(&format!("next frame · {}", h.resource)),
                quote(&format!(
                    "'{}' written by '{w}' this frame is read by '{r}' next frame ({})",
                    h.resource,
                    h.physical()
                ))
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_escaped() {
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
