//! The page's bar charts, one per figure group: GPU frame time and transient memory first,
//! then CPU time, the plan, and each mode's GPU time per pass. Each turns the report's cells
//! into panels of bars, with their ratio against mode `none` where the report has one.

use super::colour::mode_colour;
use super::format::{fmt_us, Better, Unit};
use super::svg::{Bar, Chart, Panel, Row, Seg};
use super::view::{report_ratio, Size, View};
use crate::cli::bench::report::Cell;

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
pub(super) fn main_chart(v: &View) -> Chart {
    let gpu = panels(v, Unit::Micros, |_, c, i| {
        let f = c.gpu.frame_us;
        let mut b = Bar::one(f.median, Unit::Micros, mode_colour(&c.mode, i), &c.column())
            .with_ratio(report_ratio(c, "gpu_frame_us"), Better::Lower);
        b.whisker = Some((f.p10, f.p90));
        b.segs[0].title = format!(
            "{}: median {}, p10 {}, p90 {}",
            c.column(),
            fmt_us(f.median),
            fmt_us(f.p10),
            fmt_us(f.p90)
        );
        let period = c.gpu.frame_period_us.median;
        if period > 0.0 {
            b.segs[0].title += &format!("; frame period (back to back) {}", fmt_us(period));
        }
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
pub(super) fn cpu_chart(v: &View) -> Chart {
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
                title: format!("{}: {what} {}", c.column(), fmt_us(x)),
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
pub(super) fn plan_chart(v: &View) -> Chart {
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
pub(super) fn pass_chart(v: &View) -> Chart {
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

#[cfg(test)]
mod tests {
    use super::super::page;
    use super::super::testdata::report;

    #[test]
    fn charts_find_every_ratio_they_show() {
        // Per non-baseline cell: frame, unaliased, aliased; CPU per frame, uncached, re-plan;
        // render passes, barriers, semaphores, tile planned; the pass sum. A renamed figure
        // would drop its badge.
        let p = page(&report());
        assert_eq!(p.matches("dx=\"5\">×").count(), 2 * 11);
    }
}
