//! The report regrouped for drawing: cells by output size and mode, in column order, so that
//! tables, charts and timelines agree on which mode goes where and which ratio they show.

use super::colour::PassColours;
use crate::cli::bench::report::{BenchReport, Cell};

/// The report's cells by size and mode, plus the pass colours shared by every chart.
pub(super) struct View<'a> {
    /// Column labels: the modes, or mode/lighting with `--lighting-paths`.
    pub(super) modes: Vec<String>,
    pub(super) sizes: Vec<Size<'a>>,
    pub(super) colours: PassColours,
}

/// One output size with its cell per mode (`None` where that mode was not run).
pub(super) struct Size<'a> {
    width: u32,
    height: u32,
    pub(super) cells: Vec<Option<&'a Cell>>,
}

impl<'a> View<'a> {
    pub(super) fn new(r: &'a BenchReport) -> Self {
        // The declared order first; a cell of an undeclared mode still gets a column.
        // Columns are modes, or mode/lighting with `--lighting-paths`.
        let by_lighting = r.cells.iter().any(|c| c.lighting.is_some());
        let mut modes: Vec<String> = if by_lighting {
            Vec::new()
        } else {
            r.modes.clone()
        };
        for c in &r.cells {
            let column = c.column();
            if !modes.contains(&column) {
                modes.push(column);
            }
        }
        let mut sizes: Vec<Size> = Vec::new();
        for c in &r.cells {
            let Some(m) = modes.iter().position(|m| *m == c.column()) else {
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
    pub(super) fn label(&self) -> String {
        format!("{} × {}", self.width, self.height)
    }

    /// The modes that were run at this size, in column order.
    pub(super) fn present<'v>(
        &'v self,
        v: &'v View<'a>,
    ) -> impl Iterator<Item = (&'v str, &'a Cell)> + 'v {
        v.modes
            .iter()
            .zip(&self.cells)
            .filter_map(|(m, c)| c.map(|c| (m.as_str(), c)))
    }

    /// `f` of `cell` divided by `f` of mode `none`, for figures the report has no ratio of;
    /// none for mode `none` itself, a missing baseline or a zero one.
    pub(super) fn ratio(&self, v: &View, cell: &Cell, f: impl Fn(&Cell) -> f64) -> Option<f64> {
        if cell.mode == "none" {
            return None;
        }
        let base = self
            .present(v)
            .find(|(_, c)| c.is_baseline_of(cell))
            .map(|(_, c)| f(c))?;
        (base != 0.0).then(|| f(cell) / base)
    }
}

/// The report's ratio of a figure, except for the baseline mode, whose ratios are all 1.
pub(super) fn report_ratio(cell: &Cell, name: &str) -> Option<f64> {
    if cell.mode == "none" {
        None
    } else {
        cell.ratios.get(name).copied()
    }
}
