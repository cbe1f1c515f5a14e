//! Each mode's queue timeline of one frame: where the passes ran on each queue and how async
//! compute overlapped graphics, on a time axis common to the modes of a size.

use super::format::{esc, fit_label, fmt_us};
use super::svg::{Scale, W};
use super::view::{Size, View};
use crate::cli::bench::report::Cell;
use std::fmt::{self, Write};

const TL_LEFT: f64 = 196.0;
const TL_RIGHT: f64 = 86.0;
const LANE_H: f64 = 18.0;
const LANE_GAP: f64 = 4.0;
const BLOCK_GAP: f64 = 14.0;

/// The lanes of one size's timelines: graphics and async compute always, then any other queue.
fn lanes<'c>(cells: &[(&str, &'c Cell)]) -> Vec<&'c str> {
    let mut lanes = vec!["graphics", "async_compute"];
    for (_, c) in cells {
        for s in &c.timeline {
            if !lanes.contains(&s.queue.as_str()) {
                lanes.push(&s.queue);
            }
        }
    }
    lanes
}

/// One size's timelines, a block of lanes per mode, on a common µs axis.
pub(super) fn timeline(out: &mut String, v: &View, s: &Size) -> fmt::Result {
    let cells: Vec<(&str, &Cell)> = s.present(v).collect();
    let lanes = lanes(&cells);
    let max = cells
        .iter()
        .flat_map(|(_, c)| c.timeline.iter().map(|s| s.end_us))
        .fold(0.0, f64::max);
    let pw = W - TL_LEFT - TL_RIGHT;
    let scale = Scale::with_unit(max, 1.0, " µs", (pw / 110.0) as usize, true);
    let k = pw / scale.top;
    let block_h = lanes.len() as f64 * (LANE_H + LANE_GAP) - LANE_GAP;
    let top = 22.0;
    let bottom = top + cells.len() as f64 * (block_h + BLOCK_GAP);
    let mut b = String::new();
    for t in scale.ticks() {
        let gx = TL_LEFT + t * k;
        write!(
            b,
            "<line class=\"grid\" x1=\"{gx:.1}\" x2=\"{gx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"tick\" x=\"{gx:.1}\" y=\"12\">{}</text>",
            top - 4.0,
            bottom - BLOCK_GAP + 4.0,
            esc(&scale.label(t))
        )?;
    }
    for (i, (mode, c)) in cells.iter().enumerate() {
        let y0 = top + i as f64 * (block_h + BLOCK_GAP);
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
