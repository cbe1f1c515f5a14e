//! Each mode's queue timeline of one frame: where the passes ran on each queue and how async
//! compute overlapped graphics, on a time axis common to the modes of a size; and, for the
//! modes that recorded them, two consecutive frames submitted back to back (frame 1 hatched,
//! the frame boundary marked), which shows the next frame's graphics work starting beside
//! this frame's async tail.

use super::format::{esc, fit_label, fmt_us};
use super::svg::{Scale, W};
use super::view::{Size, View};
use crate::cli::bench::report::{Cell, Span};
use std::fmt::{self, Write};

const TL_LEFT: f64 = 196.0;
const TL_RIGHT: f64 = 86.0;
const LANE_H: f64 = 18.0;
const LANE_GAP: f64 = 4.0;
const BLOCK_GAP: f64 = 14.0;

/// The lanes of one size's timelines, given the queues of their spans: graphics and async
/// compute always, then any other queue.
fn lanes<'c>(queues: impl Iterator<Item = &'c str>) -> Vec<&'c str> {
    let mut lanes = vec!["graphics", "async_compute"];
    for q in queues {
        if !lanes.contains(&q) {
            lanes.push(q);
        }
    }
    lanes
}

/// The lanes and the time axis of one size's timelines, over the spans one kind of timeline
/// has in each cell.
struct Axis<'c> {
    lanes: Vec<&'c str>,
    scale: Scale,
    /// Pixels per µs.
    k: f64,
    /// The plot's width.
    pw: f64,
    /// A mode's block of lanes, high.
    block_h: f64,
}

impl<'c> Axis<'c> {
    /// The axis of the spans `spans` gives for each of `cells`.
    fn of(cells: &[(&str, &'c Cell)], spans: impl Fn(&'c Cell) -> &'c [Span]) -> Axis<'c> {
        let lanes = lanes(
            cells
                .iter()
                .flat_map(|(_, c)| spans(c))
                .map(|sp| sp.queue.as_str()),
        );
        let max = cells
            .iter()
            .flat_map(|(_, c)| spans(c).iter().map(|s| s.end_us))
            .fold(0.0, f64::max);
        let pw = W - TL_LEFT - TL_RIGHT;
        let scale = Scale::with_unit(max, 1.0, " µs", (pw / 110.0) as usize, true);
        let k = pw / scale.top;
        let block_h = lanes.len() as f64 * (LANE_H + LANE_GAP) - LANE_GAP;
        Axis {
            lanes,
            scale,
            k,
            pw,
            block_h,
        }
    }
}

/// The time axis's grid lines and tick labels, the lines from `y1` to `y2`.
fn grid(b: &mut String, scale: &Scale, k: f64, (y1, y2): (f64, f64)) -> fmt::Result {
    for t in scale.ticks() {
        let gx = TL_LEFT + t * k;
        write!(
            b,
            "<line class=\"grid\" x1=\"{gx:.1}\" x2=\"{gx:.1}\" y1=\"{y1:.1}\" y2=\"{y2:.1}\"/>\
             <text class=\"tick\" x=\"{gx:.1}\" y=\"12\">{}</text>",
            esc(&scale.label(t))
        )?;
    }
    Ok(())
}

/// A mode's block at `y0`: its name, then each lane's label and background `pw` wide.
fn block_head(b: &mut String, mode: &str, lanes: &[&str], y0: f64, pw: f64) -> fmt::Result {
    let block_h = lanes.len() as f64 * (LANE_H + LANE_GAP) - LANE_GAP;
    write!(
        b,
        "<text class=\"tlmode\" x=\"0\" y=\"{:.1}\">{}</text>",
        y0 + block_h / 2.0 + 4.5,
        esc(mode)
    )?;
    for (j, lane) in lanes.iter().enumerate() {
        let ly = y0 + j as f64 * (LANE_H + LANE_GAP);
        write!(
            b,
            "<text class=\"lane\" x=\"{:.1}\" y=\"{:.1}\">{}</text>\
             <rect class=\"lanebg\" x=\"{TL_LEFT}\" y=\"{ly:.1}\" width=\"{pw:.1}\" height=\"{LANE_H}\"/>",
            TL_LEFT - 8.0,
            ly + LANE_H / 2.0 + 3.5,
            esc(&lane.replace('_', " "))
        )?;
    }
    Ok(())
}

/// One size's timelines, a block of lanes per mode, on a common µs axis.
pub(super) fn timeline(out: &mut String, v: &View, s: &Size) -> fmt::Result {
    let cells: Vec<(&str, &Cell)> = s.present(v).collect();
    let Axis {
        lanes,
        scale,
        k,
        pw,
        block_h,
    } = Axis::of(&cells, |c| &c.timeline);
    let top = 22.0;
    let bottom = top + cells.len() as f64 * (block_h + BLOCK_GAP);
    let mut b = String::new();
    grid(&mut b, &scale, k, (top - 4.0, bottom - BLOCK_GAP + 4.0))?;
    for (i, (mode, c)) in cells.iter().enumerate() {
        let y0 = top + i as f64 * (block_h + BLOCK_GAP);
        block_head(&mut b, mode, &lanes, y0, pw)?;
        for sp in &c.timeline {
            let j = lanes.iter().position(|l| *l == sp.queue).unwrap_or(0);
            let ly = y0 + j as f64 * (LANE_H + LANE_GAP);
            let x = TL_LEFT + sp.start_us.max(0.0) * k;
            let w = ((sp.end_us - sp.start_us) * k).max(0.8);
            let sw = v.colours.get(&sp.pass);
            write!(
                b,
                "<rect class=\"seg\" x=\"{x:.2}\" y=\"{ly:.1}\" width=\"{w:.2}\" height=\"{LANE_H}\" fill=\"{}\">\
                 <title>{} ({}): {} → {}, {}</title></rect>",
                sw.fill,
                esc(&sp.pass),
                esc(&sp.queue.replace('_', " ")),
                fmt_us(sp.start_us),
                fmt_us(sp.end_us),
                fmt_us(sp.end_us - sp.start_us)
            )?;
            if let Some(l) = fit_label(&sp.pass, w, 9.5) {
                write!(
                    b,
                    "<text class=\"inlabel\" x=\"{:.2}\" y=\"{:.1}\" font-size=\"9.5\" \
                     fill=\"{}\">{}</text>",
                    x + 2.5,
                    ly + LANE_H / 2.0 + 3.4,
                    sw.ink,
                    esc(&l)
                )?;
            }
        }
        let end = c.timeline.iter().map(|s| s.end_us).fold(0.0, f64::max);
        if c.timeline.is_empty() {
            write!(
                b,
                "<text class=\"lane\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"start\">no timeline recorded</text>",
                TL_LEFT + 6.0,
                y0 + LANE_H / 2.0 + 3.5
            )?;
        } else {
            let ex = TL_LEFT + end * k;
            write!(
                b,
                "<line class=\"end\" x1=\"{ex:.1}\" x2=\"{ex:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
                 <text class=\"val\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
                y0 - 2.0,
                y0 + block_h + 2.0,
                ex + 5.0,
                y0 + block_h / 2.0 + 4.0,
                fmt_us(end)
            )?;
        }
        if i + 1 < cells.len() {
            let sy = y0 + block_h + BLOCK_GAP / 2.0;
            write!(
                b,
                "<line class=\"rule\" x1=\"0\" x2=\"{W}\" y1=\"{sy:.1}\" y2=\"{sy:.1}\"/>"
            )?;
        }
    }
    write!(
        out,
        "<figure class=\"chart\">\n<figcaption><strong>{}</strong> one frame per mode; time \
         since the frame's first timestamp (µs), the frame's length at the right.</figcaption>\n\
         <svg viewBox=\"0 0 {W} {:.0}\" width=\"100%\" role=\"img\" aria-label=\"queue timelines {}\">{b}</svg>\n</figure>\n",
        s.label(),
        bottom,
        s.label()
    )
}

/// One size's two-frame timelines (cells with `timeline_two_frames`), a block of lanes per
/// mode on a common µs axis from frame 0's start; nothing when no cell recorded them.
/// `id` keeps the hatch pattern's id unique on the page.
pub(super) fn two_frame_timeline(out: &mut String, v: &View, s: &Size, id: usize) -> fmt::Result {
    let cells: Vec<(&str, &Cell)> = s
        .present(v)
        .filter(|(_, c)| !c.timeline_two_frames.is_empty())
        .collect();
    if cells.is_empty() {
        return Ok(());
    }
    let Axis {
        lanes,
        scale,
        k,
        pw,
        block_h,
    } = Axis::of(&cells, |c| &c.timeline_two_frames);
    // Room above each block for the frame labels.
    let head = 14.0;
    let top = 22.0;
    let step = head + block_h + BLOCK_GAP;
    let bottom = top + cells.len() as f64 * step;
    let hatch = format!("hatch2f-{id}");
    let mut b = String::new();
    write!(
        b,
        "<defs><pattern id=\"{hatch}\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><rect width=\"5\" height=\"5\" fill=\"#fff\" opacity=\"0.35\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"#fff\" stroke-width=\"2\" opacity=\"0.8\"/></pattern></defs>"
    )?;
    grid(&mut b, &scale, k, (top - 4.0, bottom - BLOCK_GAP + 4.0))?;
    for (i, (mode, c)) in cells.iter().enumerate() {
        let y0 = top + i as f64 * step + head;
        let spans = &c.timeline_two_frames;
        let frame = |f: u32| spans.iter().filter(move |s| s.frame.unwrap_or(0) == f);
        let end0 = frame(0).map(|s| s.end_us).fold(0.0, f64::max);
        let start1 = frame(1).map(|s| s.start_us).fold(f64::INFINITY, f64::min);
        let end = spans.iter().map(|s| s.end_us).fold(0.0, f64::max);
        block_head(&mut b, mode, &lanes, y0, pw)?;
        // Frame labels above the lanes: frame 0 from 0, frame 1 from its first span.
        write!(
            b,
            "<text class=\"flabel\" x=\"{:.1}\" y=\"{:.1}\">frame 0</text>",
            TL_LEFT + 2.0,
            y0 - 4.0
        )?;
        if start1.is_finite() {
            let fx = TL_LEFT + start1.max(0.0) * k;
            write!(
                b,
                "<line class=\"fbound\" x1=\"{fx:.1}\" x2=\"{fx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
                 <text class=\"flabel f1\" x=\"{:.1}\" y=\"{:.1}\">frame 1 starts {}</text>",
                y0 - head + 1.0,
                y0 + block_h + 2.0,
                fx + 4.0,
                y0 - 4.0,
                fmt_us(start1)
            )?;
        }
        for sp in spans {
            let f = sp.frame.unwrap_or(0);
            let j = lanes.iter().position(|l| *l == sp.queue).unwrap_or(0);
            let ly = y0 + j as f64 * (LANE_H + LANE_GAP);
            let x = TL_LEFT + sp.start_us.max(0.0) * k;
            let w = ((sp.end_us - sp.start_us) * k).max(0.8);
            let sw = v.colours.get(&sp.pass);
            write!(
                b,
                "<g class=\"f{f}\"><rect class=\"seg\" x=\"{x:.2}\" y=\"{ly:.1}\" width=\"{w:.2}\" height=\"{LANE_H}\" \
                 fill=\"{}\"{}/>",
                sw.fill,
                if f == 1 { " opacity=\"0.75\"" } else { "" }
            )?;
            if f == 1 {
                write!(
                    b,
                    "<rect x=\"{x:.2}\" y=\"{ly:.1}\" width=\"{w:.2}\" height=\"{LANE_H}\" fill=\"url(#{hatch})\"/>"
                )?;
            }
            write!(
                b,
                "<title>frame {f}: {} ({}): {} → {}, {}</title>",
                esc(&sp.pass),
                esc(&sp.queue.replace('_', " ")),
                fmt_us(sp.start_us),
                fmt_us(sp.end_us),
                fmt_us(sp.end_us - sp.start_us)
            )?;
            if let Some(l) = fit_label(&sp.pass, w, 9.5) {
                write!(
                    b,
                    "<text class=\"inlabel\" x=\"{:.2}\" y=\"{:.1}\" font-size=\"9.5\" \
                     fill=\"{}\">{}</text>",
                    x + 2.5,
                    ly + LANE_H / 2.0 + 3.4,
                    // Frame 1's lighter, hatched fill takes dark text.
                    if f == 1 { "#24292f" } else { sw.ink },
                    esc(&l)
                )?;
            }
            b.push_str("</g>");
        }
        // Frame 0's end (its last span on any queue) and the two frames' end.
        let ex0 = TL_LEFT + end0 * k;
        let ex = TL_LEFT + end * k;
        write!(
            b,
            "<line class=\"end\" x1=\"{ex0:.1}\" x2=\"{ex0:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"><title>frame 0 ends {}</title></line>\
             <line class=\"end\" x1=\"{ex:.1}\" x2=\"{ex:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"val\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
            y0 - 2.0,
            y0 + block_h + 2.0,
            fmt_us(end0),
            y0 - 2.0,
            y0 + block_h + 2.0,
            ex + 5.0,
            y0 + block_h / 2.0 + 4.0,
            fmt_us(end)
        )?;
        if i + 1 < cells.len() {
            let sy = y0 + block_h + BLOCK_GAP / 2.0;
            write!(
                b,
                "<line class=\"rule\" x1=\"0\" x2=\"{W}\" y1=\"{sy:.1}\" y2=\"{sy:.1}\"/>"
            )?;
        }
    }
    let periods: Vec<String> = cells
        .iter()
        .filter(|(_, c)| c.gpu.frame_period_us.median > 0.0)
        .map(|(m, c)| format!("{} {}", esc(m), fmt_us(c.gpu.frame_period_us.median)))
        .collect();
    let periods = if periods.is_empty() {
        String::new()
    } else {
        format!(" Frame period (back to back): {}.", periods.join(", "))
    };
    write!(
        out,
        "<figure class=\"chart two-frames\">\n<figcaption><strong>{}</strong> two consecutive \
         frames submitted back to back per mode; time since frame 0's first timestamp (µs); \
         frame 1 hatched, its first pass marked; the dashed lines are frame 0's end and the \
         two frames' end (at the right).{periods}</figcaption>\n\
         <svg viewBox=\"0 0 {W} {:.0}\" width=\"100%\" role=\"img\" aria-label=\"two-frame queue timelines {}\">{b}</svg>\n</figure>\n",
        s.label(),
        bottom,
        s.label()
    )
}
