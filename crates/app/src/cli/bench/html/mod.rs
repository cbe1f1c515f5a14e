//! The HTML view of a [`BenchReport`]: one self-contained page (inline CSS and SVG, no script,
//! nothing fetched) so that a run can be archived, mailed or printed as a single file.
//!
//! Top to bottom: the run's header and note, a table per size of every figure with its ratio
//! against mode `none`, bar charts per figure group (the first, `#main-chart`, is GPU frame
//! time and transient memory), each mode's GPU time per pass, each mode's queue timeline
//! of one frame and, where recorded, of two consecutive frames back to back.

mod charts;
mod colour;
mod format;
mod svg;
#[cfg(test)]
mod testdata;
mod timeline;
mod view;

use super::report::{BenchReport, Cell};
use charts::{cpu_chart, main_chart, pass_chart, plan_chart};
use format::{esc, fmt_ratio, fmt_value, meta, ratio_class, DASH};
use std::fmt::{self, Write};
use svg::chart;
use timeline::{timeline, two_frame_timeline};
use view::{report_ratio, Size, View};

/// The page's style: plain system fonts, a 1340 px column, charts that scale with it, and
/// print rules that keep colours and keep each table and chart on one page.
const CSS: &str = include_str!("style.css");

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
    if r.cells.iter().any(|c| !c.timeline_two_frames.is_empty()) {
        out.push_str(
            "<h3>Two frames back to back</h3>\n<p class=\"lead\">Two consecutive frames \
             submitted back to back, for the modes that recorded them: where the next frame's \
             graphics work starts while this frame's async tail still runs. Frame 1's passes \
             are hatched.</p>\n",
        );
        for (i, s) in v.sizes.iter().enumerate() {
            two_frame_timeline(out, &v, s, i)?;
        }
    }
    out.push_str("</section>\n</main>\n</body>\n</html>\n");
    Ok(())
}

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
        "overlap" => {
            "async compute, with the next frame's graphics work beside this frame's async tail"
        }
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
            // A report from before the frame period was measured has 0 there: not measured.
            let value = value.filter(|x| !(*name == "gpu_frame_period_us" && *x == 0.0));
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

#[cfg(test)]
mod tests {
    use super::testdata::{report, report_with_two_frames};
    use super::*;

    #[test]
    fn two_frame_timelines_draw_both_frames_where_recorded() {
        // Without two-frame spans: no such drawing.
        let p = page(&report());
        assert!(!p.contains("two-frames") && !p.contains("Two frames back to back"));
        let r = report_with_two_frames();
        let p = page(&r);
        assert_eq!(p.matches("<figure class=\"chart two-frames\"").count(), 1);
        let at = p.find("<figure class=\"chart two-frames\"").unwrap();
        let fig = &p[at..at + p[at..].find("</figure>").unwrap()];
        // Only the cell that recorded them: mode alias at 640 × 360.
        assert!(fig.contains("<strong>640 × 360</strong>"), "{fig}");
        assert!(fig.contains(">alias</text>") && !fig.contains(">none</text>"));
        // Both frames' passes, frame 1 hatched, and the frame boundary.
        assert_eq!(fig.matches("<g class=\"f0\">").count(), 3);
        assert_eq!(fig.matches("<g class=\"f1\">").count(), 3);
        assert_eq!(fig.matches("fill=\"url(#hatch2f-0)\"").count(), 3);
        for f in [0, 1] {
            for pass in [
                "gbuffer",
                "tonemap",
                "a &lt;&amp;&gt; &quot;pass&quot; &#39;x&#39;",
            ] {
                assert!(
                    fig.contains(&format!("<title>frame {f}: {pass} (")),
                    "frame {f} {pass}"
                );
            }
        }
        assert!(fig.contains(">frame 0</text>"));
        assert!(fig.contains("frame 1 starts 1.13 ms"), "{fig}");
        assert!(fig.contains("class=\"fbound\""));
        assert!(fig.contains("Frame period (back to back): alias"));
        assert_eq!(p.matches("<svg").count(), p.matches("</svg>").count());
    }

    #[test]
    fn a_report_from_before_two_frame_timelines_loads_and_renders() {
        let mut json = serde_json::to_value(report()).unwrap();
        for c in json["cells"].as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("timeline_two_frames");
            c["gpu"].as_object_mut().unwrap().remove("frame_period_us");
        }
        let r: BenchReport = serde_json::from_value(json).expect("an older report loads");
        assert!(r.cells.iter().all(|c| c.timeline_two_frames.is_empty()));
        let p = page(&r);
        assert!(p.ends_with("</html>\n") && !p.contains("two-frames"));
        assert!(!p.contains("frame period (back to back) "));
    }

    #[test]
    fn the_frame_period_is_labelled_and_absent_when_not_measured() {
        let p = page(&report());
        assert!(p.contains("GPU frame period (back to back)<code>gpu_frame_period_us</code>"));
        assert!(
            p.contains("frame period (back to back) "),
            "beside the frame time"
        );
        let mut r = report();
        for c in &mut r.cells {
            c.gpu.frame_period_us = Default::default();
        }
        let p = page(&r);
        let row = p.find("<code>gpu_frame_period_us</code>").unwrap();
        let row = &p[row..row + p[row..].find("</tr>").unwrap()];
        assert!(
            row.contains("class=\"na\"") && !row.contains("class=\"v\""),
            "{row}"
        );
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
}
