//! The human-readable report of a plan (`tessera plan FILE`).
//!
//! Reads only the plan, so it works on any plan, including one loaded from JSON. Sections:
//! passes in execution order with level and queue and the barriers before each, culled
//! passes with the reason, render passes (attachments with load/store/memoryless/layouts,
//! subpass dependencies) and breaks, syncs (with the sync-reduction accounting, sharing modes
//! and a two-lane timeline of the submission batches), tile bandwidth (planned and naive, per
//! frame and per second at 60 fps), memory.

use crate::graph::QueueKind;
use crate::plan::{Bandwidth, Barrier, Batch, LoadOp, Plan, StoreOp};
use std::collections::HashMap;
use std::fmt::{self, Display, Formatter, Write as _};

/// Wraps a plan for display.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The plan shown.
    pub plan: &'a Plan,
    /// Frame name shown in the header.
    pub name: &'a str,
}

const MIB: f64 = 1024.0 * 1024.0;

/// Frames per second the bandwidth rates are given at.
const FPS: f64 = 60.0;

fn load_name(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "LOAD,",
        LoadOp::Clear => "CLEAR,",
        LoadOp::DontCare => "DONT_CARE,",
    }
}

fn store_name(op: StoreOp) -> &'static str {
    match op {
        StoreOp::Store => "STORE,",
        StoreOp::DontCare => "DONT_CARE,",
    }
}

/// One bandwidth figure: bytes, MiB per frame and MiB/s at 60 fps.
fn rate(bytes: u64) -> String {
    let per_frame = bytes as f64 / MIB;
    format!(
        "{bytes} B = {per_frame:.2} MiB/frame = {:.1} MiB/s at 60 fps",
        per_frame * FPS
    )
}

/// The tile bandwidth totals, planned against naive.
fn bandwidth_section(f: &mut Formatter<'_>, b: &Bandwidth) -> fmt::Result {
    let planned = b.load_bytes.saturating_add(b.store_bytes);
    let naive = b.naive_load_bytes.saturating_add(b.naive_store_bytes);
    writeln!(f, "\ntile bandwidth (attachment loads + stores per frame):")?;
    writeln!(
        f,
        "  planned: {} (load {}, store {})",
        rate(planned),
        b.load_bytes,
        b.store_bytes
    )?;
    writeln!(
        f,
        "  naive:   {} (load {}, store {})",
        rate(naive),
        b.naive_load_bytes,
        b.naive_store_bytes
    )?;
    if naive > 0 {
        let saved = naive.saturating_sub(planned) as f64 / naive as f64;
        writeln!(f, "  saved:   {:.1}%", 100.0 * saved)?;
    }
    Ok(())
}

/// `after` against `before` as a signed percentage: `-37.5%` for a saving, `+3.0%` for
/// growth (only a plan edited by hand grows), `-0.0%` for none; `n/a` when `before` is 0.
fn percent_change(before: u64, after: u64) -> String {
    if before == 0 {
        return if after == 0 { "-0.0%" } else { "n/a" }.to_string();
    }
    let (sign, diff) = if after <= before {
        ('-', before - after)
    } else {
        ('+', after - before)
    };
    format!("{sign}{:.1}%", 100.0 * diff as f64 / before as f64)
}

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / MIB)
}

fn barrier_line(b: &Barrier) -> String {
    let mut s = format!(
        "{}: {}/{} -> {}/{}",
        b.resource, b.src_stage, b.src_access, b.dst_stage, b.dst_access
    );
    if let (Some(o), Some(n)) = (b.old_layout, b.new_layout) {
        let _ = write!(s, ", {o} -> {n}");
    }
    if let Some(t) = &b.queue_transfer {
        let _ = write!(s, ", {:?} {} -> {}", t.half, t.src_queue, t.dst_queue);
    }
    s
}

impl Display for Report<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let p = self.plan;
        writeln!(
            f,
            "frame '{}': {} passes kept, {} culled{}, {} levels, {} barriers, {} syncs",
            self.name,
            p.order.len(),
            p.culled.len(),
            if p.skipped.is_empty() {
                String::new()
            } else {
                format!(" ({} skipped: outputs still valid)", p.skipped.len())
            },
            p.levels.len(),
            p.barriers.len(),
            p.syncs.len()
        )?;
        let level: HashMap<&str, usize> = p
            .levels
            .iter()
            .enumerate()
            .flat_map(|(l, ps)| ps.iter().map(move |n| (n.as_str(), l)))
            .collect();
        let on_async: std::collections::HashSet<&str> =
            p.queues.async_compute.iter().map(|n| n.as_str()).collect();
        let mut before: HashMap<&str, Vec<&Barrier>> = HashMap::new();
        for b in &p.barriers {
            before.entry(b.before.as_str()).or_default().push(b);
        }
        let mut waits: HashMap<&str, Vec<String>> = HashMap::new();
        for s in &p.syncs {
            waits.entry(s.wait.as_str()).or_default().push(format!(
                "wait {} ({}) for {}",
                s.signal,
                s.signal_queue,
                s.resources.join(", ")
            ));
        }
        writeln!(f, "\npasses in execution order:")?;
        for (i, name) in p.order.iter().enumerate() {
            let queue = if on_async.contains(name.as_str()) {
                "async_compute"
            } else {
                "graphics"
            };
            writeln!(
                f,
                "  {i:>3}. {name:<24} level {:<3} {queue}",
                level.get(name.as_str()).copied().unwrap_or(0)
            )?;
            for w in waits.get(name.as_str()).into_iter().flatten() {
                writeln!(f, "         {w}")?;
            }
            for b in before.get(name.as_str()).into_iter().flatten() {
                let label = match b.position {
                    crate::plan::BarrierPosition::Before => "barrier",
                    crate::plan::BarrierPosition::After => "after it: barrier",
                };
                writeln!(f, "         {label} {}", barrier_line(b))?;
            }
        }
        if !p.skipped.is_empty() {
            writeln!(f, "\nskipped (outputs still valid):")?;
            for s in &p.skipped {
                writeln!(f, "  {s}")?;
            }
        }
        let culled_only = p
            .cull_reasons
            .iter()
            .filter(|c| !p.skipped.contains(&c.pass))
            .collect::<Vec<_>>();
        if !culled_only.is_empty() {
            writeln!(f, "\nculled:")?;
            for c in culled_only {
                writeln!(f, "  {}: {}", c.pass, c.reason)?;
            }
        }
        if !p.render_passes.is_empty() {
            writeln!(f, "\nrender passes:")?;
            for (i, rp) in p.render_passes.iter().enumerate() {
                writeln!(f, "  #{i}: {}", rp.subpasses.join(" -> "))?;
                for a in &rp.attachments {
                    let mut extra = String::new();
                    if a.memoryless {
                        extra.push_str(", memoryless");
                    }
                    if let Some(t) = &a.resolve_target {
                        let _ = write!(extra, ", resolve -> {t}");
                        // A depth/stencil resolve names its mode (a colour one averages).
                        if let Some(mode) = a.resolve_mode {
                            let _ = write!(extra, " ({mode})");
                        }
                    }
                    writeln!(
                        f,
                        "       {:<20} load {:<10} store {:<10} {}x, {} -> {}{extra}",
                        a.resource.as_str(),
                        load_name(a.load_op),
                        store_name(a.store_op),
                        a.samples,
                        a.initial_layout,
                        a.final_layout
                    )?;
                }
                for d in &rp.dependencies {
                    writeln!(
                        f,
                        "       subpass {} -> {}: {}/{} -> {}/{}{}",
                        d.src_subpass,
                        d.dst_subpass,
                        d.src_stage,
                        d.src_access,
                        d.dst_stage,
                        d.dst_access,
                        if d.by_region { ", by region" } else { "" }
                    )?;
                }
            }
        }
        if !p.breaks.is_empty() {
            writeln!(f, "\nbreaks:")?;
            for b in &p.breaks {
                writeln!(f, "  {} | {}: {}", b.after, b.before, b.reason)?;
            }
        }
        if !p.external.is_empty() {
            writeln!(
                f,
                "\nexternal (semaphores the executor waits on and signals):"
            )?;
            for e in &p.external {
                let exit = e
                    .exit_layout
                    .map_or_else(String::new, |l| format!(", leaves in {l}"));
                writeln!(
                    f,
                    "  {}: wait before '{}' ({}) at {}; signal after '{}' ({}){exit}",
                    e.resource, e.first_pass, e.queue, e.wait_stages, e.last_pass, e.last_queue
                )?;
            }
        }
        if !p.history.is_empty() {
            let total: u64 = p.history.iter().map(|h| h.bytes).sum();
            writeln!(
                f,
                "\nhistory (kept from one frame to the next, never aliased): {}",
                mib(total)
            )?;
            for h in &p.history {
                let physical = match &h.previous {
                    Some(prev) => {
                        format!("double: '{}' + '{prev}', swapped every frame", h.resource)
                    }
                    None => "single".into(),
                };
                writeln!(
                    f,
                    "  {}: {physical}, {}: {}",
                    h.resource,
                    mib(h.bytes),
                    h.reason
                )?;
            }
        }
        if !p.persistent.is_empty() {
            let total: u64 = p.persistent.iter().map(|r| r.bytes).sum();
            writeln!(
                f,
                "\npersistent (kept across frames, written while stale, never aliased): {}",
                mib(total)
            )?;
            for r in &p.persistent {
                let state = if r.valid {
                    "valid"
                } else {
                    "stale: written this frame"
                };
                writeln!(f, "  {}: {state}, {}", r.resource, mib(r.bytes))?;
            }
        }
        f.write_str(&sync_section(p))?;
        bandwidth_section(f, &p.bandwidth)?;
        memory_section(f, &p.memory)?;
        Ok(())
    }
}

fn lane_tag(q: QueueKind) -> char {
    match q {
        QueueKind::Graphics => 'g',
        QueueKind::AsyncCompute => 'a',
    }
}

fn batch_cell(b: &Batch) -> String {
    let mut s = String::new();
    for w in &b.waits {
        let _ = write!(s, "{}{} > ", lane_tag(w.queue), w.value);
    }
    s.push_str(&b.passes.join(", "));
    if let Some(v) = b.signal {
        let _ = write!(s, " > {}{v}", lane_tag(b.queue));
    }
    s
}

/// The syncs section of the report: kept syncs with the sync-reduction accounting, the
/// sharing mode of each resource used on both queues, and a two-lane timeline of the
/// submission batches (one row per batch, in submission order). Empty for single-queue plans
/// without batches worth showing.
pub fn sync_section(p: &Plan) -> String {
    let mut f = String::new();
    if p.queues.async_compute.is_empty() && p.syncs.is_empty() {
        return f;
    }
    let st = &p.sync_stats;
    let _ = writeln!(f, "\nsyncs: {} kept of {} candidate waits ({} removed as implied by the kept ones plus queue order)", st.kept, st.candidate_waits, st.removed);
    for s in &p.syncs {
        let _ = writeln!(
            f,
            "  {} ({} #{}) -> {} ({}): {}",
            s.signal,
            s.signal_queue,
            s.value,
            s.wait,
            s.wait_queue,
            s.resources.join(", ")
        );
    }
    if !p.sharing.is_empty() {
        let _ = writeln!(f, "\nsharing across queues:");
        for s in &p.sharing {
            let mode = match s.mode {
                crate::plan::SharingMode::Exclusive => "exclusive",
                crate::plan::SharingMode::Concurrent => "concurrent",
            };
            let _ = writeln!(f, "  {:<20} {mode}: {}", s.resource.as_str(), s.reason);
        }
    }
    let cells: Vec<(QueueKind, String)> =
        p.batches.iter().map(|b| (b.queue, batch_cell(b))).collect();
    let width = cells
        .iter()
        .filter(|(q, _)| *q == QueueKind::Graphics)
        .map(|(_, c)| c.len())
        .max()
        .unwrap_or(0)
        .max("graphics".len());
    let _ = writeln!(f, "\ntimeline (one submit per row, top to bottom; 'a2 >' waits for async_compute value 2, '> g5' signals graphics value 5):");
    let _ = writeln!(f, "  {:<width$} | async_compute", "graphics");
    for (q, c) in &cells {
        let line = match q {
            QueueKind::Graphics => format!("  {c:<width$} |"),
            QueueKind::AsyncCompute => format!("  {:<width$} | {c}", ""),
        };
        let _ = writeln!(f, "{}", line.trim_end());
    }
    f
}

/// Widest lifetime axis drawn as a timeline in the aliasing map.
const MAX_TIMELINE: u32 = 96;

/// The memory section: totals, then the aliasing map of each block (offset ranges ×
/// lifetimes, with a timeline when the frame is short enough to draw one).
fn memory_section(f: &mut Formatter<'_>, m: &crate::plan::Memory) -> fmt::Result {
    let unit = match m.lifetime_unit {
        crate::plan::LifetimeUnit::Order => "lifetimes in order positions",
        crate::plan::LifetimeUnit::Level => "lifetimes in levels",
    };
    let change = percent_change(m.unaliased_bytes, m.aliased_bytes);
    writeln!(f, "\nmemory ({unit}): unaliased {}, aliased {} ({change}), lower bound {}, memoryless {}, {} blocks", mib(m.unaliased_bytes), mib(m.aliased_bytes), mib(m.lower_bound_bytes), mib(m.memoryless_bytes), m.blocks.len())?;
    for fb in &m.memoryless_fallbacks {
        writeln!(
            f,
            "  declared memoryless, placed in memory: {} ({})",
            fb.resource, fb.reason
        )?;
    }
    if m.lower_bound_bytes > 0 && m.article_bytes > 0 {
        writeln!(
            f,
            "  aliased / lower bound {:.3}; the article's algorithm needs {} ({:.3})",
            m.aliased_bytes as f64 / m.lower_bound_bytes as f64,
            mib(m.article_bytes),
            m.article_bytes as f64 / m.lower_bound_bytes as f64
        )?;
    }
    let span = m
        .blocks
        .iter()
        .flat_map(|b| b.placements.iter().map(|p| p.last))
        .max()
        .unwrap_or(0);
    for (i, b) in m.blocks.iter().enumerate() {
        writeln!(
            f,
            "  block {i} (class {}): {}, {} resources",
            b.class,
            mib(b.size),
            b.placements.len()
        )?;
        let mut ps: Vec<&crate::plan::Placement> = b.placements.iter().collect();
        ps.sort_by_key(|p| (p.offset, p.first));
        for p in ps {
            let range = format!(
                "[{:>9.2}, {:>9.2}) MiB",
                p.offset as f64 / MIB,
                p.offset.saturating_add(p.size) as f64 / MIB
            );
            let life = format!("{}..{}", p.first, p.last);
            let mut line = format!("    {range} {life:>9}  {:<24}", p.resource);
            if span < MAX_TIMELINE {
                line.push_str(" |");
                line.extend((0..=span).map(|t| {
                    if (p.first..=p.last).contains(&t) {
                        '#'
                    } else {
                        '.'
                    }
                }));
                line.push('|');
            }
            writeln!(f, "{}", line.trim_end())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::percent_change;

    #[test]
    fn memory_change_is_signed_and_never_nonsense() {
        assert_eq!(percent_change(1000, 625), "-37.5%");
        assert_eq!(percent_change(1000, 1000), "-0.0%");
        assert_eq!(percent_change(1000, 1030), "+3.0%");
        assert_eq!(percent_change(0, 0), "-0.0%");
        assert_eq!(percent_change(0, 64), "n/a");
        assert_eq!(percent_change(u64::MAX, 0), "-100.0%");
    }
}
