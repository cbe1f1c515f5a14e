//! The HTML view of a [`BenchReport`]: one self-contained page (inline CSS and SVG, no script,
//! nothing fetched) so that a run can be archived, mailed or printed as a single file.
//!
//! Top to bottom: the run's header and note, a table per size of every figure with its ratio
//! against mode `none`, bar charts per figure group (the first, `#main-chart`, is GPU frame
//! time and transient memory), each mode's GPU time per pass, and each mode's queue timeline
//! of one frame.

use super::report::{BenchReport, Cell};
use std::collections::BTreeMap;
use std::fmt::{self, Write};

/// The whole page.
pub fn page(r: &BenchReport) -> String {
    let mut out = String::with_capacity(256 * 1024);
    // Writing into a String cannot fail, so the result carries nothing worth handling.
    let _ = write_page(&mut out, r);
    out
}

fn write_page(out: &mut String, r: &BenchReport) -> fmt::Result {
    let v = View::new(r);
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>tessera bench · {} · {}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n",
        esc(&r.device),
        esc(&r.date)
    )?;
    header(out, r, &v)?;
    out.push_str("<section>\n<h2>Figures</h2>\n");
    out.push_str(
        "<p class=\"lead\">Every figure per mode; the badge is the ratio against mode \
         <code>none</code> at the same size (green: better, red: worse).</p>\n",
    );
    for s in &v.sizes {
        table(out, &v, s)?;
    }
    out.push_str("</section>\n<section>\n<h2>Charts</h2>\n");
    for c in [main_chart(&v), cpu_chart(&v), plan_chart(&v)] {
        chart(out, &c)?;
    }
    out.push_str("</section>\n<section>\n<h2>Passes</h2>\n");
    chart(out, &pass_chart(&v))?;
    out.push_str("</section>\n<section>\n<h2>Queue timelines</h2>\n");
    out.push_str(
        "<p class=\"lead\">One measured frame (the median one) per mode, pass by pass on each \
         queue, on a common time axis per size. Hover a span for its pass and times.</p>\n",
    );
    for s in &v.sizes {
        timeline(out, &v, s)?;
    }
    out.push_str("</section>\n</main>\n</body>\n</html>\n");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The report regrouped for drawing.

/// The report's cells by size and mode, plus the pass colours shared by every chart.
struct View<'a> {
    modes: Vec<&'a str>,
    sizes: Vec<Size<'a>>,
    colours: PassColours,
}

/// One output size with its cell per mode (`None` where that mode was not run).
struct Size<'a> {
    width: u32,
    height: u32,
    cells: Vec<Option<&'a Cell>>,
}

impl<'a> View<'a> {
    fn new(r: &'a BenchReport) -> Self {
        // The declared order first; a cell of an undeclared mode still gets a column.
        let mut modes: Vec<&str> = r.modes.iter().map(String::as_str).collect();
        for c in &r.cells {
            if !modes.contains(&c.mode.as_str()) {
                modes.push(&c.mode);
            }
        }
        let mut sizes: Vec<Size> = Vec::new();
        for c in &r.cells {
            let Some(m) = modes.iter().position(|m| *m == c.mode) else {
                continue;
            };
            let i = match sizes
                .iter()
                .position(|s| (s.width, s.height) == (c.width, c.height))
            {
                Some(i) => i,
                None => {
                    sizes.push(Size {
                        width: c.width,
                        height: c.height,
                        cells: vec![None; modes.len()],
                    });
                    sizes.len() - 1
                }
            };
            sizes[i].cells[m] = Some(c);
        }
        View {
            modes,
            sizes,
            colours: PassColours::new(&r.cells),
        }
    }
}

impl<'a> Size<'a> {
    fn label(&self) -> String {
        format!("{} × {}", self.width, self.height)
    }

    /// The modes that were run at this size, in column order.
    fn present<'v>(&'v self, v: &'v View<'a>) -> impl Iterator<Item = (&'a str, &'a Cell)> + 'v {
        v.modes
            .iter()
            .zip(&self.cells)
            .filter_map(|(m, c)| c.map(|c| (*m, c)))
    }

    /// `f` of `cell` divided by `f` of mode `none`, for figures the report has no ratio of;
    /// none for mode `none` itself, a missing baseline or a zero one.
    fn ratio(&self, v: &View, cell: &Cell, f: impl Fn(&Cell) -> f64) -> Option<f64> {
        if cell.mode == "none" {
            return None;
        }
        let base = self
            .present(v)
            .find(|(m, _)| *m == "none")
            .map(|(_, c)| f(c))?;
        (base != 0.0).then(|| f(cell) / base)
    }
}

/// The report's ratio of a figure, except for the baseline mode, whose ratios are all 1.
fn report_ratio(cell: &Cell, name: &str) -> Option<f64> {
    if cell.mode == "none" {
        None
    } else {
        cell.ratios.get(name).copied()
    }
}

/// A colour per pass name, the same in every mode's bar and timeline. Colours go by first
/// appearance, so passes next to each other in execution order get far-apart colours.
struct PassColours(BTreeMap<String, usize>);

impl PassColours {
    fn new(cells: &[Cell]) -> Self {
        let mut map = BTreeMap::new();
        for c in cells {
            let names = c.passes.iter().map(|p| &p.pass);
            for name in names.chain(c.timeline.iter().map(|s| &s.pass)) {
                let next = map.len();
                map.entry(name.clone()).or_insert(next);
            }
        }
        PassColours(map)
    }

    fn get(&self, name: &str) -> Swatch {
        pass_colour(self.0.get(name).copied().unwrap_or(0))
    }

    /// Pass names in order of first appearance.
    fn names(&self) -> Vec<&str> {
        let mut v: Vec<(&str, usize)> = self.0.iter().map(|(k, i)| (k.as_str(), *i)).collect();
        v.sort_by_key(|(_, i)| *i);
        v.into_iter().map(|(k, _)| k).collect()
    }
}

/// A fill and the text colour legible on it.
#[derive(Clone, Debug, PartialEq)]
struct Swatch {
    fill: String,
    ink: &'static str,
}

/// The `i`th pass colour. Golden-angle hue steps keep consecutive colours far apart for any
/// number of passes; three lightness levels separate the hues that come close after many steps.
fn pass_colour(i: usize) -> Swatch {
    let hue = (i as f64 * 137.508) % 360.0;
    let light = [0.62, 0.76, 0.48][i % 3];
    let sat = 0.58;
    // Black and white text contrast equally at a luminance of about 0.18.
    let ink = if luminance(hue, sat, light) < 0.18 {
        "#fff"
    } else {
        "#111"
    };
    Swatch {
        fill: format!("hsl({hue:.0}, {:.0}%, {:.0}%)", sat * 100.0, light * 100.0),
        ink,
    }
}

/// The relative luminance (sRGB, 0 black to 1 white) of hue `h` in degrees, saturation `s`
/// and lightness `l` in 0..=1.
fn luminance(h: f64, s: f64, l: f64) -> f64 {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let linear = |v: f64| {
        let v = v + m;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// A mode's colour in single-series charts; modes outside the known six cycle a spare set.
fn mode_colour(mode: &str, index: usize) -> &'static str {
    match mode {
        "none" => "#8b939e",
        "merge" => "#3b78c3",
        "memoryless" => "#2f9a74",
        "alias" => "#d9822b",
        "async" => "#8e63bf",
        "all" => "#cf3f5a",
        _ => ["#5a6b7d", "#a0813a", "#3c8f9e", "#b05a8c"][index % 4],
    }
}

// ---------------------------------------------------------------------------------------------
// Figures: names, units, formatting.

/// How a figure's value is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Micros,
    Bytes,
    Count,
}

/// Which way a figure improves, for colouring its ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Better {
    Lower,
    Higher,
    /// Moves with the schedule rather than with quality (async queue busy, subpasses).
    Neither,
}

/// A figure's label, table group, unit and direction.
#[derive(Clone, Copy, Debug)]
struct Meta<'a> {
    label: &'a str,
    group: &'a str,
    unit: Unit,
    better: Better,
}

/// The meta of a figure of [`Cell::figures`]; an unknown name is shown as itself.
fn meta(name: &str) -> Meta<'_> {
    use Better::{Higher, Lower, Neither};
    const GPU: &str = "GPU time (median over frames)";
    const CPU: &str = "CPU time";
    const MEM: &str = "Memory";
    const PLAN: &str = "Plan";
    let (label, group, better) = match name {
        "gpu_frame_us" => ("GPU frame", GPU, Lower),
        "gpu_graphics_busy_us" => ("Graphics queue busy", GPU, Lower),
        "gpu_async_busy_us" => ("Async-compute queue busy", GPU, Neither),
        "gpu_overlap_us" => ("Async overlapping graphics", GPU, Higher),
        "cpu_declare_us" => ("Declare graph", CPU, Lower),
        "cpu_compile_cached_us" => ("Compile (cached)", CPU, Lower),
        "cpu_compile_uncached_us" => ("Compile (from scratch)", CPU, Lower),
        "cpu_record_us" => ("Record", CPU, Lower),
        "cpu_submit_us" => ("Submit", CPU, Lower),
        "cpu_replan_us" => ("Re-plan after resize", CPU, Lower),
        "transient_aliased_bytes" => ("Transient memory bound", MEM, Lower),
        "transient_unaliased_bytes" => ("Transient memory unaliased", MEM, Lower),
        // Bytes kept in tile memory are bytes that never reach device memory.
        "memoryless_bytes" => ("Memoryless (tile) bytes", MEM, Higher),
        "allocations" => ("Allocations", MEM, Lower),
        "render_passes" => ("Render passes", PLAN, Lower),
        "subpasses" => ("Subpasses", PLAN, Neither),
        "barriers" => ("Pipeline barriers", PLAN, Lower),
        "semaphores" => ("Cross-queue semaphores", PLAN, Lower),
        "tile_planned_bytes" => ("Tile traffic planned", PLAN, Lower),
        "tile_naive_bytes" => ("Tile traffic naive", PLAN, Lower),
        _ => (name, "Other", Lower),
    };
    Meta {
        label,
        group,
        unit: unit_of(name),
        better,
    }
}

fn unit_of(name: &str) -> Unit {
    if name.ends_with("_us") {
        Unit::Micros
    } else if name.ends_with("bytes") {
        Unit::Bytes
    } else {
        Unit::Count
    }
}

const DASH: &str = "—";
const BYTE_UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];

fn fmt_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Micros => fmt_us(v),
        Unit::Bytes => fmt_bytes(v),
        Unit::Count => fmt_count(v),
    }
}

/// Microseconds with one decimal, or milliseconds with two from 1000 µs on.
fn fmt_us(us: f64) -> String {
    if !us.is_finite() {
        DASH.to_string()
    } else if us.abs() >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} µs")
    }
}

/// The power of 1024 that prints `bytes` below 1024 of its unit, after one-decimal rounding.
fn byte_power(bytes: f64) -> usize {
    let mut v = bytes.abs();
    let mut i = 0;
    while v >= 1023.95 && i + 1 < BYTE_UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    i
}

/// Whole bytes below 1 KiB, else binary units with one decimal.
fn fmt_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return DASH.to_string();
    }
    let b = bytes.round();
    if b.abs() < 1024.0 {
        return format!("{b:.0} B");
    }
    let i = byte_power(b);
    format!("{:.1} {}", b / 1024f64.powi(i as i32), BYTE_UNITS[i])
}

fn fmt_count(v: f64) -> String {
    if v.is_finite() {
        format!("{:.0}", v.round())
    } else {
        DASH.to_string()
    }
}

fn fmt_ratio(r: f64) -> String {
    format!("×{r:.2}")
}

/// The CSS class of a ratio: `good`, `bad`, or `same` where it prints as ×1.00 or the figure
/// has no better direction.
fn ratio_class(r: f64, better: Better) -> &'static str {
    if !r.is_finite() || (r - 1.0).abs() < 0.005 {
        return "same";
    }
    match (better, r < 1.0) {
        (Better::Lower, true) | (Better::Higher, false) => "good",
        (Better::Lower, false) | (Better::Higher, true) => "bad",
        (Better::Neither, _) => "same",
    }
}

/// Escapes text for HTML and SVG text and attribute values.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Average glyph width of the sans-serif labels, as a fraction of the font size; a guess that
/// errs wide so that a label said to fit does fit.
const GLYPH: f64 = 0.62;

/// `text` if it fits in `width` px at `font` px, else its longest prefix with an ellipsis
/// that does (at least three characters), else nothing.
fn fit_label(text: &str, width: f64, font: f64) -> Option<String> {
    let fits = |chars: usize| chars as f64 * font * GLYPH + 4.0 <= width;
    let n = text.chars().count();
    if fits(n) {
        return Some(text.to_string());
    }
    let keep = (3..n).rev().find(|k| fits(k + 1))?;
    Some(text.chars().take(keep).chain(['…']).collect())
}

// ---------------------------------------------------------------------------------------------
// Header and tables.

fn header(out: &mut String, r: &BenchReport, v: &View) -> fmt::Result {
    write!(
        out,
        "<header>\n<h1>tessera bench</h1>\n<p class=\"sub\">{} on {}</p>\n",
        esc(&r.scene),
        esc(&r.device)
    )?;
    if !r.note.is_empty() {
        writeln!(
            out,
            "<p class=\"note\"><strong>Note</strong> {}</p>",
            esc(&r.note)
        )?;
    }
    if r.validation {
        writeln!(
            out,
            "<p class=\"note warn\"><strong>Validation on</strong> {}; timings are not \
             representative.</p>",
            messages(r.validation_messages)
        )?;
    }
    let validation = if r.validation {
        format!("on, {}", messages(r.validation_messages))
    } else {
        "off".to_string()
    };
    let queue = if r.emulate_async {
        "emulated on the graphics queue"
    } else {
        "own queue"
    };
    let sizes: Vec<String> = v.sizes.iter().map(Size::label).collect();
    let items = [
        ("Device", esc(&r.device)),
        ("Vulkan API", esc(&r.api_version)),
        ("Date", esc(&r.date)),
        ("Scene", esc(&r.scene)),
        (
            "Frames / warm-up",
            format!("{} / {} per cell", r.frames, r.warmup),
        ),
        (
            "Async compute",
            format!("{queue} (emulate_async {})", r.emulate_async),
        ),
        ("Validation", validation),
        ("Sizes", esc(&sizes.join(", "))),
        ("Modes", esc(&v.modes.join(", "))),
    ];
    out.push_str("<dl class=\"meta\">\n");
    for (k, val) in items {
        writeln!(out, "<div><dt>{k}</dt><dd>{val}</dd></div>")?;
    }
    out.push_str("</dl>\n<dl class=\"modes\">\n");
    for m in &v.modes {
        if let Some(what) = mode_meaning(m) {
            writeln!(out, "<div><dt>{}</dt><dd>{what}</dd></div>", esc(m))?;
        }
    }
    out.push_str("</dl>\n</header>\n");
    Ok(())
}

fn messages(n: u64) -> String {
    format!("{n} message{}", if n == 1 { "" } else { "s" })
}

/// What each known mode switches on.
fn mode_meaning(mode: &str) -> Option<&'static str> {
    Some(match mode {
        "none" => "no graph optimisation: the baseline of every ratio",
        "merge" => "passes merged into subpasses of one render pass",
        "memoryless" => "attachments kept in tile memory where possible",
        "alias" => "transient resources share memory",
        "async" => "compute passes on the async-compute queue",
        "all" => "every optimisation at once",
        _ => return None,
    })
}

/// One size's table: a row per figure, a column per mode, each value with its ratio.
fn table(out: &mut String, v: &View, s: &Size) -> fmt::Result {
    let figures: Vec<Option<Vec<(&str, f64)>>> =
        s.cells.iter().map(|c| c.map(Cell::figures)).collect();
    let Some(names) = figures.iter().flatten().next() else {
        return Ok(());
    };
    let names: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    write!(
        out,
        "<table class=\"figs\">\n<caption>{}</caption>\n<thead><tr><th>Figure</th>",
        s.label()
    )?;
    for m in &v.modes {
        write!(out, "<th>{}</th>", esc(m))?;
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut group = "";
    for (i, name) in names.iter().enumerate() {
        let meta = meta(name);
        if meta.group != group {
            group = meta.group;
            writeln!(
                out,
                "<tr class=\"grp\"><th colspan=\"{}\">{}</th></tr>",
                v.modes.len() + 1,
                esc(group)
            )?;
        }
        write!(
            out,
            "<tr><th scope=\"row\">{}<code>{}</code></th>",
            esc(meta.label),
            esc(name)
        )?;
        for (cell, figs) in s.cells.iter().zip(&figures) {
            let value = figs.as_ref().and_then(|f| f.get(i)).map(|(_, x)| *x);
            let (Some(cell), Some(value)) = (cell, value) else {
                write!(out, "<td class=\"na\">{DASH}</td>")?;
                continue;
            };
            write!(
                out,
                "<td><span class=\"v\">{}</span>",
                fmt_value(value, meta.unit)
            )?;
            match report_ratio(cell, name) {
                Some(r) => write!(
                    out,
                    "<span class=\"r {}\">{}</span>",
                    ratio_class(r, meta.better),
                    fmt_ratio(r)
                )?,
                None => out.push_str("<span class=\"r\"></span>"),
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bar charts.

/// A linear axis from 0 to the data's maximum with round ticks, printed in one unit.
#[derive(Debug)]
struct Scale {
    top: f64,
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
    fn with_unit(max: f64, div: f64, suffix: &str, ticks: usize, whole: bool) -> Self {
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

    fn ticks(&self) -> impl Iterator<Item = f64> + '_ {
        let n = (self.top / self.step + 1e-9).floor() as usize;
        (0..=n).map(move |i| i as f64 * self.step)
    }

    fn label(&self, v: f64) -> String {
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
struct Seg {
    value: f64,
    colour: String,
    /// Tooltip.
    title: String,
    /// Drawn inside the segment where it fits, in the given text colour.
    label: Option<(String, &'static str)>,
}

/// One horizontal bar: stacked segments, an optional p10–p90 whisker and the text at its end.
#[derive(Debug, Default)]
struct Bar {
    segs: Vec<Seg>,
    whisker: Option<(f64, f64)>,
    text: String,
    ratio: Option<(f64, Better)>,
}

impl Bar {
    /// A bar of one segment printing its own value.
    fn one(value: f64, unit: Unit, colour: &str, what: &str) -> Self {
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

    fn with_ratio(mut self, r: Option<f64>, better: Better) -> Self {
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
struct Row {
    label: String,
    bars: Vec<Bar>,
}

/// One size's bars of one column of a chart, on their own scale: sizes differ too much to
/// share one, and the comparison that matters is between modes.
#[derive(Debug)]
struct Panel {
    unit: Unit,
    rows: Vec<Row>,
}

/// A figure of panels: a column per figure group, a row per size.
#[derive(Debug)]
struct Chart {
    id: Option<&'static str>,
    title: String,
    caption: String,
    legend: Vec<(String, String)>,
    columns: Vec<String>,
    sizes: Vec<(String, Vec<Panel>)>,
}

/// The SVG coordinate width of every chart; the page shows it at 100 % of its column.
const W: f64 = 1300.0;
const COL_GAP: f64 = 36.0;
const ROW_LABEL_W: f64 = 96.0;
const VALUE_W: f64 = 132.0;

fn chart(out: &mut String, c: &Chart) -> fmt::Result {
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

/// One panel per size from `row`, a function of a size and one of its cells.
fn panels(v: &View, unit: Unit, row: impl Fn(&Size, &Cell, usize) -> Vec<Bar>) -> Vec<Panel> {
    v.sizes
        .iter()
        .map(|s| Panel {
            unit,
            rows: s
                .present(v)
                .enumerate()
                .map(|(i, (m, c))| Row {
                    label: m.to_string(),
                    bars: row(s, c, i),
                })
                .collect(),
        })
        .collect()
}

/// Pairs each size's panels of several columns into chart rows.
fn by_size(v: &View, columns: Vec<Vec<Panel>>) -> Vec<(String, Vec<Panel>)> {
    let mut rows: Vec<(String, Vec<Panel>)> =
        v.sizes.iter().map(|s| (s.label(), Vec::new())).collect();
    for col in columns {
        for (row, p) in rows.iter_mut().zip(col) {
            row.1.push(p);
        }
    }
    rows
}

const C_ALIASED: &str = "#3b78c3";
const C_UNALIASED: &str = "#b9c0ca";
const C_MEMORYLESS: &str = "#2f9a74";

/// GPU frame time and transient memory: the two figures the optimisations are for.
fn main_chart(v: &View) -> Chart {
    let gpu = panels(v, Unit::Micros, |_, c, i| {
        let f = c.gpu.frame_us;
        let mut b = Bar::one(f.median, Unit::Micros, mode_colour(&c.mode, i), &c.mode)
            .with_ratio(report_ratio(c, "gpu_frame_us"), Better::Lower);
        b.whisker = Some((f.p10, f.p90));
        b.segs[0].title = format!(
            "{}: median {}, p10 {}, p90 {}",
            c.mode,
            fmt_us(f.median),
            fmt_us(f.p10),
            fmt_us(f.p90)
        );
        vec![b]
    });
    let mem = panels(v, Unit::Bytes, |_, c, _| {
        let m = &c.memory;
        let b = |x: u64, col, what, name| {
            Bar::one(x as f64, Unit::Bytes, col, what)
                .with_ratio(report_ratio(c, name), Better::Lower)
        };
        vec![
            b(
                m.unaliased_bytes,
                C_UNALIASED,
                "unaliased",
                "transient_unaliased_bytes",
            ),
            b(
                m.aliased_bytes,
                C_ALIASED,
                "aliased (bound)",
                "transient_aliased_bytes",
            ),
            Bar::one(
                m.memoryless_bytes as f64,
                Unit::Bytes,
                C_MEMORYLESS,
                "memoryless",
            ),
        ]
    });
    Chart {
        id: Some("main-chart"),
        title: "GPU frame time and transient memory".to_string(),
        caption: "per mode and size; the whisker spans p10–p90 of the measured frames, the \
                  ratio is against mode none."
            .to_string(),
        legend: vec![
            ("transient, unaliased".to_string(), C_UNALIASED.to_string()),
            (
                "transient, aliased (bound)".to_string(),
                C_ALIASED.to_string(),
            ),
            (
                "memoryless (tile memory)".to_string(),
                C_MEMORYLESS.to_string(),
            ),
        ],
        columns: vec![
            "GPU frame time (median)".to_string(),
            "Transient memory".to_string(),
        ],
        sizes: by_size(v, vec![gpu, mem]),
    }
}

/// Host time: the per-frame parts stacked, and the one-off compiles beside them.
fn cpu_chart(v: &View) -> Chart {
    const PARTS: [(&str, &str); 4] = [
        ("declare", "#4f7fd9"),
        ("compile (cached)", "#3aa89a"),
        ("record", "#e3a13b"),
        ("submit", "#cc5468"),
    ];
    const C_UNCACHED: &str = "#7561c9";
    const C_REPLAN: &str = "#b98650";
    let frame = |c: &Cell| {
        let p = &c.cpu;
        [p.declare_us, p.compile_cached_us, p.record_us, p.submit_us]
    };
    let per_frame = panels(v, Unit::Micros, |s, c, _| {
        let parts = frame(c);
        let total: f64 = parts.iter().sum();
        let segs = PARTS
            .iter()
            .zip(parts)
            .map(|((what, col), x)| Seg {
                value: x,
                colour: col.to_string(),
                title: format!("{}: {what} {}", c.mode, fmt_us(x)),
                label: None,
            })
            .collect();
        let ratio = s.ratio(v, c, |c| frame(c).iter().sum());
        vec![Bar {
            segs,
            text: fmt_us(total),
            ratio: ratio.map(|r| (r, Better::Lower)),
            ..Bar::default()
        }]
    });
    let one_off = panels(v, Unit::Micros, |_, c, _| {
        vec![
            Bar::one(
                c.cpu.compile_uncached_us,
                Unit::Micros,
                C_UNCACHED,
                "compile from scratch",
            )
            .with_ratio(report_ratio(c, "cpu_compile_uncached_us"), Better::Lower),
            Bar::one(
                c.cpu.replan_us,
                Unit::Micros,
                C_REPLAN,
                "re-plan after resize",
            )
            .with_ratio(report_ratio(c, "cpu_replan_us"), Better::Lower),
        ]
    });
    let mut legend: Vec<(String, String)> = PARTS
        .iter()
        .map(|(l, c)| (l.to_string(), c.to_string()))
        .collect();
    legend.push(("compile from scratch".to_string(), C_UNCACHED.to_string()));
    legend.push((
        "re-plan after resize (one sample)".to_string(),
        C_REPLAN.to_string(),
    ));
    Chart {
        id: None,
        title: "CPU time".to_string(),
        caption: "medians per frame; the one-off costs are drawn apart as they would dwarf \
                  the per-frame ones."
            .to_string(),
        legend,
        columns: vec![
            "Per frame: declare + compile (cached) + record + submit".to_string(),
            "One-off: compile from scratch, re-plan".to_string(),
        ],
        sizes: by_size(v, vec![per_frame, one_off]),
    }
}

/// The plan's counts and its tile-bandwidth model.
fn plan_chart(v: &View) -> Chart {
    const COUNTS: [(&str, &str, &str); 3] = [
        ("render passes", "render_passes", "#3b78c3"),
        ("pipeline barriers", "barriers", "#d9822b"),
        ("cross-queue semaphores", "semaphores", "#8e63bf"),
    ];
    const C_TILE: &str = "#2f9a74";
    let counts = panels(v, Unit::Count, |_, c, _| {
        let p = &c.plan;
        COUNTS
            .iter()
            .zip([p.render_passes, p.barriers, p.semaphores])
            .map(|((what, name, col), x)| {
                Bar::one(x as f64, Unit::Count, col, what)
                    .with_ratio(report_ratio(c, name), Better::Lower)
            })
            .collect()
    });
    let tile = panels(v, Unit::Bytes, |_, c, _| {
        vec![
            Bar::one(c.plan.tile_bytes as f64, Unit::Bytes, C_TILE, "planned")
                .with_ratio(report_ratio(c, "tile_planned_bytes"), Better::Lower),
            Bar::one(
                c.plan.tile_bytes_naive as f64,
                Unit::Bytes,
                C_UNALIASED,
                "naive",
            ),
        ]
    });
    let mut legend: Vec<(String, String)> = COUNTS
        .iter()
        .map(|(l, _, c)| (l.to_string(), c.to_string()))
        .collect();
    legend.push(("tile traffic planned".to_string(), C_TILE.to_string()));
    legend.push(("tile traffic naive".to_string(), C_UNALIASED.to_string()));
    Chart {
        id: None,
        title: "Plan".to_string(),
        caption: "what the compiled graph asks of the device; tile traffic is the model's \
                  attachment bytes loaded and stored per frame, planned against no merging \
                  and every load and store."
            .to_string(),
        legend,
        columns: vec![
            "Render passes, barriers, semaphores".to_string(),
            "Tile traffic per frame".to_string(),
        ],
        sizes: by_size(v, vec![counts, tile]),
    }
}

/// Each mode's pass medians stacked in execution order.
fn pass_chart(v: &View) -> Chart {
    let colours = &v.colours;
    let sum = |c: &Cell| c.passes.iter().map(|p| p.median_us).sum::<f64>();
    let rows = panels(v, Unit::Micros, |s, c, _| {
        let segs = c
            .passes
            .iter()
            .map(|p| {
                let sw = colours.get(&p.pass);
                Seg {
                    value: p.median_us,
                    colour: sw.fill,
                    title: format!(
                        "{} ({}): {}",
                        p.pass,
                        p.queue.replace('_', " "),
                        fmt_us(p.median_us)
                    ),
                    label: Some((p.pass.clone(), sw.ink)),
                }
            })
            .collect();
        vec![Bar {
            segs,
            text: fmt_us(sum(c)),
            ratio: s.ratio(v, c, sum).map(|r| (r, Better::Lower)),
            ..Bar::default()
        }]
    });
    // Async passes are marked in the legend: their time overlaps graphics, so the stack can
    // be longer than the frame.
    let on_async: Vec<&str> = v
        .sizes
        .iter()
        .flat_map(|s| s.cells.iter().flatten())
        .flat_map(|c| c.passes.iter())
        .filter(|p| p.queue != "graphics")
        .map(|p| p.pass.as_str())
        .collect();
    let legend = colours
        .names()
        .into_iter()
        .map(|n| {
            let mark = if on_async.contains(&n) {
                " ⁽ᵃ⁾"
            } else {
                ""
            };
            (format!("{n}{mark}"), colours.get(n).fill)
        })
        .collect();
    Chart {
        id: None,
        title: "GPU time per pass".to_string(),
        caption: "median of each pass, stacked in execution order; ⁽ᵃ⁾ marks passes that run on \
                  the async-compute queue in some mode, whose time overlaps graphics, so a stack \
                  can be longer than the frame."
            .to_string(),
        legend,
        columns: Vec::new(),
        sizes: by_size(v, vec![rows]),
    }
}

// ---------------------------------------------------------------------------------------------
// Queue timelines.

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
fn timeline(out: &mut String, v: &View, s: &Size) -> fmt::Result {
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

// ---------------------------------------------------------------------------------------------

/// The page's style: plain system fonts, a 1340 px column, charts that scale with it, and
/// print rules that keep colours and keep each table and chart on one page.
const CSS: &str = r#"
:root { --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --soft: #f6f8fa;
  --good: #116329; --good-bg: #dcf5e3; --bad: #a40e26; --bad-bg: #fde2e4; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1340px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 28px; margin: 0; letter-spacing: -0.01em; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--fg); }
code { font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--muted); }
.sub { margin: 2px 0 12px; color: var(--muted); font-size: 15px; }
.lead { margin: 4px 0 12px; color: var(--muted); }
.note { margin: 10px 0; padding: 10px 14px; border-left: 5px solid #d4a72c; background: #fff8c5;
  font-size: 15px; }
.note strong { margin-right: 6px; }
.note.warn { border-color: #cf222e; background: #ffebe9; }
dl { margin: 0; }
.meta { display: grid; grid-template-columns: repeat(3, 1fr); gap: 6px 24px; margin: 14px 0 10px; }
.meta div, .modes div { display: flex; gap: 8px; min-width: 0; }
.meta dt { color: var(--muted); min-width: 118px; }
.meta dd, .modes dd { margin: 0; overflow-wrap: anywhere; }
.modes { display: grid; grid-template-columns: repeat(3, 1fr); gap: 2px 24px; font-size: 13px;
  color: var(--muted); padding-top: 8px; border-top: 1px solid var(--line); }
.modes dt { font-weight: 600; color: var(--fg); min-width: 84px; }
table.figs { width: 100%; border-collapse: collapse; margin: 8px 0 24px; font-size: 13px;
  font-variant-numeric: tabular-nums; }
table.figs caption { text-align: left; font-weight: 700; font-size: 16px; padding: 4px 0; }
table.figs th, table.figs td { padding: 3px 8px; border-bottom: 1px solid var(--line); }
table.figs thead th { text-align: right; background: var(--soft); border-bottom: 2px solid #afb8c1; }
table.figs thead th:first-child { text-align: left; }
table.figs tbody th { text-align: left; font-weight: 500; white-space: nowrap; }
table.figs tbody th code { margin-left: 8px; }
table.figs tr.grp th { background: var(--soft); font-weight: 700; font-size: 12px; color: var(--muted);
  text-transform: uppercase; letter-spacing: 0.04em; padding-top: 6px; }
table.figs td { text-align: right; white-space: nowrap; }
table.figs td.na { color: var(--muted); }
.r { display: inline-block; min-width: 48px; margin-left: 6px; padding: 0 4px; border-radius: 3px;
  font-size: 11.5px; text-align: center; color: var(--muted); }
.r:empty { background: none; }
.r.good { color: var(--good); background: var(--good-bg); font-weight: 600; }
.r.bad { color: var(--bad); background: var(--bad-bg); font-weight: 600; }
figure.chart { margin: 12px 0 28px; }
figcaption { margin-bottom: 6px; color: var(--muted); }
figcaption strong { color: var(--fg); font-size: 16px; margin-right: 4px; }
.legend { list-style: none; margin: 0 0 8px; padding: 0; display: flex; flex-wrap: wrap; gap: 3px 16px;
  font-size: 12.5px; }
.legend li { display: flex; align-items: center; gap: 5px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; }
svg { display: block; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  font-size: 11px; fill: var(--fg); overflow: visible; }
svg .col { font-size: 13px; font-weight: 700; }
svg .size { font-size: 14px; font-weight: 700; }
svg .rule { stroke: var(--line); }
svg .grid { stroke: #e6eaef; }
svg .axis { stroke: #8c959f; }
svg .tick { fill: var(--muted); font-size: 10px; text-anchor: middle; }
svg .rowlabel { text-anchor: end; font-size: 12px; }
svg .seg { stroke: #fff; stroke-width: 0.6; }
svg .inlabel { pointer-events: none; }
svg .whisker { stroke: #24292f; stroke-width: 1.3; fill: none; }
svg .val { font-variant-numeric: tabular-nums; }
svg .good { fill: var(--good); font-weight: 700; }
svg .bad { fill: var(--bad); font-weight: 700; }
svg .same { fill: var(--muted); }
svg .tlmode { font-size: 13px; font-weight: 700; }
svg .lane { fill: var(--muted); font-size: 11px; text-anchor: end; }
svg .lanebg { fill: var(--soft); }
svg .end { stroke: #24292f; stroke-width: 1; stroke-dasharray: 3 2; }
@media print {
  @page { size: A4 landscape; margin: 10mm; }
  body { font-size: 11px; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  table.figs, svg, header { break-inside: avoid; }
  figcaption, .legend { break-after: avoid; }
  table.figs { font-size: 10px; }
}
"#;

#[cfg(test)]
mod tests {
    use super::super::report::{
        fill_ratios, CpuFigures, GpuFigures, MemoryFigures, PassFigure, PlanFigures, Span, Spread,
    };
    use super::*;

    const ODD: &str = "a <&> \"pass\" 'x'";

    fn spread(m: f64) -> Spread {
        Spread {
            median: m,
            p10: m * 0.9,
            p90: m * 1.2,
        }
    }

    fn cell(width: u32, height: u32, mode: &str, k: f64) -> Cell {
        let pass = |name: &str, queue: &str, us: f64| PassFigure {
            pass: name.to_string(),
            queue: queue.to_string(),
            median_us: us,
        };
        let span = |name: &str, queue: &str, a: f64, b: f64| Span {
            pass: name.to_string(),
            queue: queue.to_string(),
            start_us: a,
            end_us: b,
        };
        Cell {
            width,
            height,
            mode: mode.to_string(),
            gpu: GpuFigures {
                frame_us: spread(1500.0 * k),
                graphics_busy_us: spread(1400.0 * k),
                async_busy_us: spread(100.0 * k),
                overlap_us: spread(50.0 / k),
            },
            cpu: CpuFigures {
                declare_us: 20.0,
                compile_cached_us: 5.0 * k,
                compile_uncached_us: 300.0,
                record_us: 80.0,
                submit_us: 40.0,
                replan_us: 2000.0,
            },
            memory: MemoryFigures {
                aliased_bytes: (64.0 * 1048576.0 * k) as u64,
                unaliased_bytes: 96 << 20,
                memoryless_bytes: 1536,
                allocations: 12,
                bytes_by_type: BTreeMap::new(),
            },
            plan: PlanFigures {
                passes: 3,
                render_passes: 3,
                subpasses: 3,
                barriers: 10,
                semaphores: 1,
                semaphore_candidates: 2,
                tile_bytes: 1 << 30,
                tile_bytes_naive: 2 << 30,
            },
            passes: vec![
                pass("gbuffer", "graphics", 900.0 * k),
                pass(ODD, "async_compute", 100.0 * k),
                pass("tonemap", "graphics", 500.0 * k),
            ],
            timeline: vec![
                span("gbuffer", "graphics", 0.0, 900.0 * k),
                span(ODD, "async_compute", 300.0, 300.0 + 100.0 * k),
                span("tonemap", "graphics", 900.0 * k, 1400.0 * k),
            ],
            ratios: BTreeMap::new(),
        }
    }

    fn report() -> BenchReport {
        let mut cells = Vec::new();
        for (w, h) in [(640, 360), (1280, 720)] {
            cells.push(cell(w, h, "none", 1.0));
            cells.push(cell(w, h, "alias", 0.8));
        }
        fill_ratios(&mut cells);
        BenchReport {
            date: "2026-12-02T14:00:00Z".to_string(),
            device: "llvmpipe".to_string(),
            api_version: "1.3.255".to_string(),
            note: "a CPU rasteriser's cost model".to_string(),
            scene: "sponza".to_string(),
            frames: 10,
            warmup: 2,
            emulate_async: false,
            validation: true,
            validation_messages: 3,
            modes: vec!["none".to_string(), "alias".to_string()],
            cells,
        }
    }

    #[test]
    fn page_shows_every_mode_figure_and_chart() {
        let r = report();
        let p = page(&r);
        assert!(p.starts_with("<!DOCTYPE html>"));
        for m in &r.modes {
            assert!(p.contains(&format!("<th>{m}</th>")), "mode {m}");
        }
        for (name, _) in r.cells[0].figures() {
            let label = meta(name).label;
            assert_ne!(label, name, "{name} has a label");
            assert!(p.contains(&esc(label)), "label of {name}");
            assert!(p.contains(&format!("<code>{name}</code>")), "{name}");
        }
        assert!(p.contains("a &lt;&amp;&gt; &quot;pass&quot; &#39;x&#39;"));
        assert!(!p.contains("<&>"));
        // Three group charts and the per-pass chart with an SVG per size, and a timeline
        // per size.
        assert_eq!(p.matches("<figure").count(), 4 + 2);
        assert_eq!(p.matches("<svg").count(), 4 * 2 + 2);
        assert_eq!(p.matches("<svg").count(), p.matches("</svg>").count());
        assert_eq!(p.matches("id=\"main-chart\"").count(), 1);
        let main = p.find("id=\"main-chart\"").unwrap_or(usize::MAX);
        assert_eq!(
            p.find("<svg").map(|s| s > main),
            Some(true),
            "main chart comes first"
        );
        assert!(!p.to_lowercase().contains("<script"));
        assert!(!p.contains("http"));
        assert!(p.contains(&r.note.replace('\'', "&#39;")));
        assert!(p.contains("3 messages"));
        assert!(p.contains("640 × 360") && p.contains("1280 × 720"));
    }

    #[test]
    fn ratios_are_badged_except_for_the_baseline() {
        let p = page(&report());
        // alias: frame ×0.80 (better), overlap ×1.25 (better: higher is better).
        assert!(p.contains("<span class=\"r good\">×0.80</span>"));
        assert!(p.contains("<span class=\"r good\">×1.25</span>"));
        assert!(!p.contains("class=\"r bad\""));
    }

    #[test]
    fn charts_find_every_ratio_they_show() {
        // Per non-baseline cell: frame, unaliased, aliased; CPU per frame, uncached, re-plan;
        // render passes, barriers, semaphores, tile planned; the pass sum. A renamed figure
        // would drop its badge.
        let p = page(&report());
        assert_eq!(p.matches("dx=\"5\">×").count(), 2 * 11);
    }

    #[test]
    fn pass_labels_get_legible_ink() {
        assert!((luminance(0.0, 0.0, 1.0) - 1.0).abs() < 1e-9);
        assert!(luminance(0.0, 0.0, 0.0).abs() < 1e-9);
        // Dark blue takes white text, light yellow black.
        assert!(luminance(240.0, 0.6, 0.45) < 0.18);
        assert!(luminance(60.0, 0.6, 0.75) > 0.18);
        for i in 0..30 {
            let sw = pass_colour(i);
            assert!(sw.ink == "#fff" || sw.ink == "#111");
        }
    }

    #[test]
    fn same_pass_same_colour_in_every_mode() {
        let r = report();
        let c = PassColours::new(&r.cells);
        assert_eq!(c.names(), vec!["gbuffer", ODD, "tonemap"]);
        let p = page(&r);
        let fill = format!("fill=\"{}\"><title>tonemap", c.get("tonemap").fill);
        // Per-pass bars (4 cells) and timelines (4 cells).
        assert_eq!(p.matches(&fill).count(), 8);
        assert_ne!(pass_colour(0), pass_colour(1));
    }

    #[test]
    fn empty_and_partial_reports_render() {
        let mut r = report();
        r.cells.clear();
        let p = page(&r);
        assert!(p.ends_with("</html>\n"));
        assert!(!p.contains("NaN") && !p.contains("inf"));
        // A size without mode none: no ratios, nothing divided by zero.
        let mut r = report();
        r.cells.retain(|c| c.mode != "none");
        for c in &mut r.cells {
            c.ratios.clear();
        }
        let p = page(&r);
        assert!(!p.contains("NaN") && !p.contains("inf"));
        assert!(!p.contains("class=\"r good\""));
    }

    #[test]
    fn formatters_print_exactly() {
        assert_eq!(fmt_bytes(0.0), "0 B");
        assert_eq!(fmt_bytes(1023.0), "1023 B");
        assert_eq!(fmt_bytes(1536.0), "1.5 KiB");
        assert_eq!(fmt_bytes(1048575.0), "1.0 MiB");
        assert_eq!(fmt_bytes(3.0 * 1073741824.0), "3.0 GiB");
        assert_eq!(fmt_bytes(f64::NAN), "—");
        assert_eq!(fmt_us(0.0), "0.0 µs");
        assert_eq!(fmt_us(12.34), "12.3 µs");
        assert_eq!(fmt_us(999.9), "999.9 µs");
        assert_eq!(fmt_us(1500.0), "1.50 ms");
        assert_eq!(fmt_count(12.0), "12");
        assert_eq!(fmt_ratio(0.834), "×0.83");
        assert_eq!(fmt_value(2048.0, unit_of("tile_planned_bytes")), "2.0 KiB");
        assert_eq!(fmt_value(3.0, unit_of("barriers")), "3");
    }

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
        assert_eq!(esc("plain µs"), "plain µs");
    }

    #[test]
    fn ratio_colour_follows_direction() {
        assert_eq!(ratio_class(0.8, Better::Lower), "good");
        assert_eq!(ratio_class(1.2, Better::Lower), "bad");
        assert_eq!(ratio_class(1.2, Better::Higher), "good");
        assert_eq!(ratio_class(0.8, Better::Higher), "bad");
        assert_eq!(ratio_class(1.004, Better::Lower), "same");
        assert_eq!(ratio_class(0.5, Better::Neither), "same");
        assert_eq!(meta("gpu_overlap_us").better, Better::Higher);
    }

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

    #[test]
    fn labels_fit_or_shorten() {
        assert_eq!(fit_label("ssao", 100.0, 10.0).as_deref(), Some("ssao"));
        assert_eq!(
            fit_label("luminance histogram", 50.0, 10.0).as_deref(),
            Some("lumina…")
        );
        assert_eq!(fit_label("ssao blur", 10.0, 10.0), None);
    }
}
