//! The report regrouped for drawing: cells by output size and mode, in column order, so that
//! tables, charts and timelines agree on which mode goes where and which ratio they show.

use super::colour::PassColours;
use crate::cli::bench::report::{BenchReport, Cell};

/// The report's cells by size and mode, plus the pass colours shared by every chart.
pub(super) struct View<'a> {
    pub(super) modes: Vec<&'a str>,
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
    pub(super) fn label(&self) -> String {
        format!("{} × {}", self.width, self.height)
    }

    /// The modes that were run at this size, in column order.
    pub(super) fn present<'v>(
        &'v self,
        v: &'v View<'a>,
    ) -> impl Iterator<Item = (&'a str, &'a Cell)> + 'v {
        v.modes
            .iter()
            .zip(&self.cells)
            .filter_map(|(m, c)| c.map(|c| (*m, c)))
    }

    /// `f` of `cell` divided by `f` of mode `none`, for figures the report has no ratio of;
    /// none for mode `none` itself, a missing baseline or a zero one.
    pub(super) fn ratio(&self, v: &View, cell: &Cell, f: impl Fn(&Cell) -> f64) -> Option<f64> {
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
pub(super) fn report_ratio(cell: &Cell, name: &str) -> Option<f64> {
    if cell.mode == "none" {
        None
    } else {
        cell.ratios.get(name).copied()
    }
}
