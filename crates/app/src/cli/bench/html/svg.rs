//! The chart machinery behind every figure of bars: a chart is a grid of panels, a column per
//! figure group and a row per size, each panel on its own round-stepped scale, drawn as
//! inline SVG so that the page needs no script and prints as it shows.

use super::format::{
    byte_power, esc, fit_label, fmt_ratio, fmt_value, ratio_class, Better, Unit, BYTE_UNITS,
};
use std::fmt::{self, Write};

/// A linear axis from 0 to the data's maximum with round ticks, printed in one unit.
#[derive(Debug)]
pub(super) struct Scale {
    pub(super) top: f64,
    step: f64,
    div: f64,
    suffix: String,
    decimals: usize,
}

impl Scale {
    /// About `ticks` round steps up to `max`, in the unit that prints `max` best. The axis
    /// ends at `max` itself rather than at the next round step, so the longest bar fills it.
    fn new(max: f64, unit: Unit, ticks: usize) -> Self {
        let m = if max.is_finite() && max > 0.0 {
            max
        } else {
            1.0
        };
        match unit {
            Unit::Micros if m >= 1000.0 => Self::with_unit(m, 1000.0, " ms", ticks, false),
            Unit::Micros => Self::with_unit(m, 1.0, " µs", ticks, false),
            Unit::Bytes => {
                let i = byte_power(m);
                let suffix = format!(" {}", BYTE_UNITS[i]);
                Self::with_unit(m, 1024f64.powi(i as i32), &suffix, ticks, i == 0)
            }
            Unit::Count => Self::with_unit(m, 1.0, "", ticks, true),
        }
    }

    /// The axis in units of `div` (printed with `suffix`), whole steps where `whole`.
    pub(super) fn with_unit(max: f64, div: f64, suffix: &str, ticks: usize, whole: bool) -> Self {
        let m = if max.is_finite() && max > 0.0 {
            max
        } else {
            1.0
        };
        let mut step = nice_step(m / div / ticks.max(1) as f64);
        if whole {
            step = step.max(1.0);
        }
        // The fewest decimals that print every multiple of the step exactly.
        let decimals = (0..4)
            .find(|d| {
                let x = step * 10f64.powi(*d);
                (x - x.round()).abs() < 1e-6
            })
            .unwrap_or(3) as usize;
        Scale {
            top: m,
            step: step * div,
            div,
            suffix: suffix.to_string(),
            decimals,
        }
    }

    pub(super) fn ticks(&self) -> impl Iterator<Item = f64> + '_ {
        let n = (self.top / self.step + 1e-9).floor() as usize;
        (0..=n).map(move |i| i as f64 * self.step)
    }

    pub(super) fn label(&self, v: f64) -> String {
        if v == 0.0 {
            "0".to_string()
        } else {
            format!("{:.*}{}", self.decimals, v / self.div, self.suffix)
        }
    }
}

/// 1, 2, 2.5 or 5 times a power of ten, the smallest not below `raw`.
fn nice_step(raw: f64) -> f64 {
    if !raw.is_finite() || raw <= 0.0 {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = [1.0, 2.0, 2.5, 5.0]
        .into_iter()
        .find(|m| f <= m + 1e-9)
        .unwrap_or(10.0);
    m * mag
}

/// A piece of a stacked bar.
#[derive(Debug)]
pub(super) struct Seg {
    pub(super) value: f64,
    pub(super) colour: String,
    /// Tooltip.
    pub(super) title: String,
    /// Drawn inside the segment where it fits, in the given text colour.
    pub(super) label: Option<(String, &'static str)>,
}

/// One horizontal bar: stacked segments, an optional p10–p90 whisker and the text at its end.
#[derive(Debug, Default)]
pub(super) struct Bar {
    pub(super) segs: Vec<Seg>,
    pub(super) whisker: Option<(f64, f64)>,
    pub(super) text: String,
    pub(super) ratio: Option<(f64, Better)>,
}

impl Bar {
    /// A bar of one segment printing its own value.
    pub(super) fn one(value: f64, unit: Unit, colour: &str, what: &str) -> Self {
        let text = fmt_value(value, unit);
        Bar {
            segs: vec![Seg {
                value,
                colour: colour.to_string(),
                title: format!("{what}: {text}"),
                label: None,
            }],
            text,
            ..Bar::default()
        }
    }

    pub(super) fn with_ratio(mut self, r: Option<f64>, better: Better) -> Self {
        self.ratio = r.map(|r| (r, better));
        self
    }

    fn total(&self) -> f64 {
        self.segs.iter().map(|s| s.value.max(0.0)).sum()
    }

    /// How far right the bar and its whisker reach.
    fn reach(&self) -> f64 {
        let w = self.whisker.map_or(0.0, |(lo, hi)| lo.max(hi));
        self.total().max(w)
    }
}

/// A mode's bars (several for grouped charts).
#[derive(Debug)]
pub(super) struct Row {
    pub(super) label: String,
    pub(super) bars: Vec<Bar>,
}

/// One size's bars of one column of a chart, on their own scale: sizes differ too much to
/// share one, and the comparison that matters is between modes.
#[derive(Debug)]
pub(super) struct Panel {
    pub(super) unit: Unit,
    pub(super) rows: Vec<Row>,
}

/// A figure of panels: a column per figure group, a row per size.
#[derive(Debug)]
pub(super) struct Chart {
    pub(super) id: Option<&'static str>,
    pub(super) title: String,
    pub(super) caption: String,
    pub(super) legend: Vec<(String, String)>,
    pub(super) columns: Vec<String>,
    pub(super) sizes: Vec<(String, Vec<Panel>)>,
}

/// The SVG coordinate width of every chart; the page shows it at 100 % of its column.
pub(super) const W: f64 = 1300.0;
const COL_GAP: f64 = 36.0;
const ROW_LABEL_W: f64 = 96.0;
const VALUE_W: f64 = 132.0;

pub(super) fn chart(out: &mut String, c: &Chart) -> fmt::Result {
    match c.id {
        Some(id) => writeln!(out, "<figure class=\"chart\" id=\"{id}\">")?,
        None => out.push_str("<figure class=\"chart\">\n"),
    }
    writeln!(
        out,
        "<figcaption><strong>{}</strong> {}</figcaption>",
        esc(&c.title),
        esc(&c.caption)
    )?;
    legend(out, &c.legend)?;
    let n = c.columns.len().max(1) as f64;
    let pw = (W - COL_GAP * (n - 1.0)) / n;
    // An SVG per size, so that a printed page can break between sizes and not through bars.
    for (k, (label, panels)) in c.sizes.iter().enumerate() {
        let mut body = String::new();
        let mut y = 0.0;
        if k == 0 && !c.columns.is_empty() {
            for (i, col) in c.columns.iter().enumerate() {
                let x = i as f64 * (pw + COL_GAP);
                write!(
                    body,
                    "<text class=\"col\" x=\"{x:.1}\" y=\"14\">{}</text>",
                    esc(col)
                )?;
            }
            y += 26.0;
        }
        write!(
            body,
            "<text class=\"size\" x=\"0\" y=\"{:.1}\">{}</text>\
             <line class=\"rule\" x1=\"0\" x2=\"{W}\" y1=\"{:.1}\" y2=\"{:.1}\"/>",
            y + 14.0,
            esc(label),
            y + 20.0,
            y + 20.0
        )?;
        y += 30.0;
        let bars = panels
            .iter()
            .flat_map(|p| p.rows.iter().map(|r| r.bars.len()))
            .max()
            .unwrap_or(1);
        let row_h = (10.0 + bars as f64 * 12.0).max(26.0);
        let mut h: f64 = 0.0;
        for (i, p) in panels.iter().enumerate() {
            let x = i as f64 * (pw + COL_GAP);
            h = h.max(panel(&mut body, x, y, pw, row_h, p)?);
        }
        y += h + 16.0;
        writeln!(
            out,
            "<svg viewBox=\"0 0 {W} {y:.0}\" width=\"100%\" role=\"img\" \
             aria-label=\"{}, {}\">{body}</svg>",
            esc(&c.title),
            esc(label)
        )?;
    }
    out.push_str("</figure>\n");
    Ok(())
}

/// Draws one panel with its top left at (`x`, `y`); returns its height.
fn panel(
    out: &mut String,
    x: f64,
    y: f64,
    w: f64,
    row_h: f64,
    p: &Panel,
) -> Result<f64, fmt::Error> {
    let px = x + ROW_LABEL_W;
    let pw = w - ROW_LABEL_W - VALUE_W;
    let max = p
        .rows
        .iter()
        .flat_map(|r| r.bars.iter().map(Bar::reach))
        .fold(0.0, f64::max);
    let ticks = (pw / 100.0).round().clamp(3.0, 10.0) as usize;
    let scale = Scale::new(max, p.unit, ticks);
    let k = pw / scale.top;
    let plot_h = p.rows.len() as f64 * row_h;
    for t in scale.ticks() {
        let gx = px + t * k;
        write!(
            out,
            "<line class=\"grid\" x1=\"{gx:.1}\" x2=\"{gx:.1}\" y1=\"{y:.1}\" y2=\"{:.1}\"/>\
             <text class=\"tick\" x=\"{gx:.1}\" y=\"{:.1}\">{}</text>",
            y + plot_h,
            y + plot_h + 13.0,
            esc(&scale.label(t))
        )?;
    }
    for (i, row) in p.rows.iter().enumerate() {
        let ry = y + i as f64 * row_h;
        write!(
            out,
            "<text class=\"rowlabel\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            px - 8.0,
            ry + row_h / 2.0 + 4.0,
            esc(&row.label)
        )?;
        let nb = row.bars.len().max(1) as f64;
        let th = ((row_h - 8.0 - (nb - 1.0) * 2.0) / nb).min(18.0);
        let by0 = ry + (row_h - (nb * th + (nb - 1.0) * 2.0)) / 2.0;
        for (j, bar) in row.bars.iter().enumerate() {
            bar_svg(out, px, by0 + j as f64 * (th + 2.0), th, k, bar)?;
        }
    }
    write!(
        out,
        "<line class=\"axis\" x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{y:.1}\" y2=\"{:.1}\"/>",
        y + plot_h
    )?;
    Ok(plot_h + 18.0)
}

/// One bar of thickness `th` at `y`, `k` px per unit, starting at `px`.
fn bar_svg(out: &mut String, px: f64, y: f64, th: f64, k: f64, bar: &Bar) -> fmt::Result {
    let mut acc = 0.0;
    for s in &bar.segs {
        let v = s.value.max(0.0);
        let (sx, sw) = (px + acc * k, v * k);
        acc += v;
        if sw <= 0.0 {
            continue;
        }
        write!(
            out,
            "<rect class=\"seg\" x=\"{sx:.2}\" y=\"{y:.2}\" width=\"{sw:.2}\" height=\"{th:.2}\" \
             fill=\"{}\"><title>{}</title></rect>",
            s.colour,
            esc(&s.title)
        )?;
        let font = (th - 5.0).clamp(8.0, 10.0);
        let label = s
            .label
            .as_ref()
            .and_then(|(l, ink)| Some((fit_label(l, sw, font)?, ink)));
        if let Some((l, ink)) = label {
            write!(
                out,
                "<text class=\"inlabel\" x=\"{:.2}\" y=\"{:.2}\" font-size=\"{font:.1}\" \
                 fill=\"{ink}\">{}</text>",
                sx + 2.5,
                y + th / 2.0 + font * 0.36,
                esc(&l)
            )?;
        }
    }
    if let Some((lo, hi)) = bar.whisker {
        let (x0, x1, cy) = (px + lo * k, px + hi * k, y + th / 2.0);
        let cap = th * 0.35;
        write!(
            out,
            "<path class=\"whisker\" d=\"M{x0:.2} {cy:.2}H{x1:.2}M{x0:.2} {:.2}V{:.2}M{x1:.2} {:.2}V{:.2}\"/>",
            cy - cap,
            cy + cap,
            cy - cap,
            cy + cap
        )?;
    }
    let font = if th < 12.0 { 9.5 } else { 11.0 };
    write!(
        out,
        "<text class=\"val\" x=\"{:.2}\" y=\"{:.2}\" font-size=\"{font}\">{}",
        px + bar.reach() * k + 5.0,
        y + th / 2.0 + font * 0.36,
        esc(&bar.text)
    )?;
    if let Some((r, better)) = bar.ratio {
        write!(
            out,
            "<tspan class=\"{}\" dx=\"5\">{}</tspan>",
            ratio_class(r, better),
            fmt_ratio(r)
        )?;
    }
    out.push_str("</text>");
    Ok(())
}

/// Colour swatches with their labels, as HTML so that they wrap.
fn legend(out: &mut String, items: &[(String, String)]) -> fmt::Result {
    if items.is_empty() {
        return Ok(());
    }
    out.push_str("<ul class=\"legend\">");
    for (label, colour) in items {
        write!(
            out,
            "<li><i style=\"background:{colour}\"></i>{}</li>",
            esc(label)
        )?;
    }
    out.push_str("</ul>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_use_round_steps() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(2.2), 2.5);
        assert_eq!(nice_step(340.0), 500.0);
        let s = Scale::new(3_700.0, Unit::Micros, 4);
        assert_eq!((s.top, s.step), (3700.0, 1000.0));
        assert_eq!(s.ticks().count(), 4);
        assert_eq!(s.label(2000.0), "2 ms");
        let s = Scale::new(3.0 * 1048576.0, Unit::Bytes, 4);
        assert_eq!(s.label(s.step), "1 MiB");
        let s = Scale::new(3.0, Unit::Count, 10);
        assert_eq!(s.step, 1.0);
        let s = Scale::new(0.0, Unit::Count, 4);
        assert!(s.top > 0.0);
    }
}
