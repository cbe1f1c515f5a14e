//! The human-readable report of a plan (`tessera plan FILE`).
//!
//! Reads only the plan, so it works on any plan, including one loaded from JSON. Sections:
//! passes in execution order with level and queue and the barriers before each, culled
//! passes with the reason, render passes (attachments with load/store/memoryless/layouts,
//! subpass dependencies) and breaks, syncs, tile bandwidth (planned and naive, per frame and
//! per second at 60 fps), memory.

use crate::plan::{Bandwidth, Barrier, LoadOp, Plan, StoreOp};
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
            "frame '{}': {} passes kept, {} culled, {} levels, {} barriers, {} syncs",
            self.name,
            p.order.len(),
            p.culled.len(),
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
                writeln!(f, "         barrier {}", barrier_line(b))?;
            }
        }
        if !p.cull_reasons.is_empty() {
            writeln!(f, "\nculled:")?;
            for c in &p.cull_reasons {
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
        bandwidth_section(f, &p.bandwidth)?;
        let m = &p.memory;
        writeln!(
            f,
            "\nmemory ({}): unaliased {}, aliased {}, lower bound {}, memoryless {}, {} blocks",
            match m.lifetime_unit {
                crate::plan::LifetimeUnit::Order => "lifetimes in order positions",
                crate::plan::LifetimeUnit::Level => "lifetimes in levels",
            },
            mib(m.unaliased_bytes),
            mib(m.aliased_bytes),
            mib(m.lower_bound_bytes),
            mib(m.memoryless_bytes),
            m.blocks.len()
        )?;
        Ok(())
    }
}
