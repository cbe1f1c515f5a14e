//! How figures read on the page: their labels, groups, units and better direction, the
//! number, byte and ratio formats shared by tables and charts, and escaping for HTML and SVG.

/// How a figure's value is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unit {
    Micros,
    Bytes,
    Count,
}

/// Which way a figure improves, for colouring its ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Better {
    Lower,
    Higher,
    /// Moves with the schedule rather than with quality (async queue busy, subpasses).
    Neither,
}

/// A figure's label, table group, unit and direction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Meta<'a> {
    pub(super) label: &'a str,
    pub(super) group: &'a str,
    pub(super) unit: Unit,
    pub(super) better: Better,
}

/// The meta of a figure of [`Cell::figures`](crate::cli::bench::report::Cell::figures); an unknown name is shown as itself.
pub(super) fn meta(name: &str) -> Meta<'_> {
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
        // Frames submitted back to back: the time from one frame's start to the next's, which
        // overlapping frames shorten below the frame time.
        "gpu_frame_period_us" => ("GPU frame period (back to back)", GPU, Lower),
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

pub(super) const DASH: &str = "—";
pub(super) const BYTE_UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];

pub(super) fn fmt_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Micros => fmt_us(v),
        Unit::Bytes => fmt_bytes(v),
        Unit::Count => fmt_count(v),
    }
}

/// Microseconds with one decimal, or milliseconds with two from 1000 µs on.
pub(super) fn fmt_us(us: f64) -> String {
    if !us.is_finite() {
        DASH.to_string()
    } else if us.abs() >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} µs")
    }
}

/// The power of 1024 that prints `bytes` below 1024 of its unit, after one-decimal rounding.
pub(super) fn byte_power(bytes: f64) -> usize {
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

pub(super) fn fmt_ratio(r: f64) -> String {
    format!("×{r:.2}")
}

/// The CSS class of a ratio: `good`, `bad`, or `same` where it prints as ×1.00 or the figure
/// has no better direction.
pub(super) fn ratio_class(r: f64, better: Better) -> &'static str {
    if !r.is_finite() || (r - 1.0).abs() < 0.005 {
        return "same";
    }
    match (better, r < 1.0) {
        (Better::Lower, true) | (Better::Higher, false) => "good",
        (Better::Lower, false) | (Better::Higher, true) => "bad",
        (Better::Neither, _) => "same",
    }
}

/// Escapes text for HTML and SVG text and attribute values (the viewer's escaping: the
/// same five characters).
pub(super) use tessera_viewer::html::escape as esc;

/// Average glyph width of the sans-serif labels, as a fraction of the font size; a guess that
/// errs wide so that a label said to fit does fit.
const GLYPH: f64 = 0.62;

/// `text` if it fits in `width` px at `font` px, else its longest prefix with an ellipsis
/// that does (at least three characters), else nothing.
pub(super) fn fit_label(text: &str, width: f64, font: f64) -> Option<String> {
    let fits = |chars: usize| chars as f64 * font * GLYPH + 4.0 <= width;
    let n = text.chars().count();
    if fits(n) {
        return Some(text.to_string());
    }
    let keep = (3..n).rev().find(|k| fits(k + 1))?;
    Some(text.chars().take(keep).chain(['…']).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn labels_fit_or_shorten() {
        assert_eq!(fit_label("ssao", 100.0, 10.0).as_deref(), Some("ssao"));
        assert_eq!(
            fit_label("luminance histogram", 50.0, 10.0).as_deref(),
            Some("lumina…")
        );
        assert_eq!(fit_label("ssao blur", 10.0, 10.0), None);
    }
}
