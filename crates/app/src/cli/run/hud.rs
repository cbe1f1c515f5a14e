//! The figures the overlay shows, smoothed over frames, and the overlay's lines.
//!
//! The executor reports each pass's mean GPU time over the frames its plan has run; the
//! last frame's time is the difference of the running sums, smoothed here with an
//! exponential moving average (a re-plan restarts the sums, and the averages follow).
//!
//! The switch rows are laid out once, in [`layout`], which records where each switch's
//! cell lands on the wrapped lines; [`Hud::switch_at`] maps a tapped pixel to a cell the
//! way `overlay.frag` maps a pixel to a character, so what is drawn and what is hit cannot
//! disagree.

use super::actions::{binding, Action, BINDINGS, MOVEMENT_HELP};
use super::toggles::{mib, Figures, Switches};
use std::collections::HashMap;
use std::ops::Range;
use tessera_render::frame::overlay::{
    scale_for, OverlayLine, OverlayText, COLUMNS, GLYPH, LINE_HEIGHT, MARGIN, PADDING, ROWS,
};
use tessera_render::FrameStats;
use tessera_vk::executor::PassTiming;

/// Weight of the newest frame in the moving averages.
const SMOOTHING: f64 = 0.1;

/// Colours of the overlay's lines.
pub const WHITE: [u8; 3] = [235, 235, 235];
const GREY: [u8; 3] = [170, 170, 170];
const YELLOW: [u8; 3] = [255, 220, 90];
const RED: [u8; 3] = [255, 90, 80];
const CYAN: [u8; 3] = [120, 210, 255];

/// The CPU work of a frame in ms: declaring, preparing and recording it; the time blocked
/// in `vkQueueSubmit2` is left out (lavapipe runs the frame's work there).
pub fn cpu_ms(cpu: &FrameStats) -> f64 {
    (cpu.declare_us + cpu.prepare_us + cpu.record_us - cpu.submit_us) / 1000.0
}

fn ema(old: &mut Option<f64>, new: f64) {
    *old = Some(match *old {
        Some(o) => o + (new - o) * SMOOTHING,
        None => new,
    });
}

/// Frame rate, CPU and GPU times, smoothed.
#[derive(Debug, Default)]
pub struct Stats {
    /// Seconds between presented frames.
    interval: Option<f64>,
    /// CPU work per frame (declare + prepare + record, without blocking in submit), ms.
    cpu_ms: Option<f64>,
    declare_us: Option<f64>,
    prepare_us: Option<f64>,
    record_us: Option<f64>,
    submit_us: Option<f64>,
    /// Per pass: the executor's running (sum µs, frames), and the smoothed ms.
    gpu: HashMap<String, ((f64, u64), Option<f64>)>,
    /// Passes in execution order (the last timings').
    order: Vec<String>,
}

impl Stats {
    /// Takes one presented frame: `dt` seconds since the previous one.
    pub fn frame(&mut self, dt: f64, cpu: &FrameStats, timings: &[PassTiming]) {
        if dt > 0.0 {
            ema(&mut self.interval, dt);
        }
        ema(&mut self.cpu_ms, cpu_ms(cpu));
        ema(&mut self.declare_us, cpu.declare_us);
        ema(&mut self.prepare_us, cpu.prepare_us);
        ema(&mut self.record_us, cpu.record_us - cpu.submit_us);
        ema(&mut self.submit_us, cpu.submit_us);
        self.order.clear();
        for t in timings {
            self.order.push(t.pass.clone());
            let sum = t.mean_us * t.frames as f64;
            let entry = self.gpu.entry(t.pass.clone()).or_insert(((0.0, 0), None));
            let ((old_sum, old_frames), smoothed) = entry;
            if t.frames > *old_frames {
                let last = (sum - *old_sum) / (t.frames - *old_frames) as f64;
                ema(smoothed, last / 1000.0);
            } else if t.frames < *old_frames {
                // A new plan: its counters start again.
                if t.frames > 0 {
                    ema(smoothed, t.mean_us / 1000.0);
                }
            }
            *entry = ((sum, t.frames), *smoothed);
        }
    }

    /// Frames per second.
    pub fn fps(&self) -> f64 {
        self.interval.map_or(0.0, |i| 1.0 / i.max(1e-9))
    }

    /// CPU ms per frame.
    pub fn cpu_ms(&self) -> f64 {
        self.cpu_ms.unwrap_or(0.0)
    }

    /// Smoothed GPU ms per pass, in execution order.
    pub fn gpu_ms(&self) -> Vec<(&str, f64)> {
        self.order
            .iter()
            .filter_map(|p| Some((p.as_str(), self.gpu.get(p)?.1?)))
            .collect()
    }
}

/// What the overlay says besides the figures.
#[derive(Debug, Default)]
pub struct Notes {
    /// Device, size, present mode.
    pub title: String,
    /// Camera mode and speed.
    pub camera: String,
    /// The last toggle and what it changed in the plan.
    pub change: Vec<String>,
    /// The last file written (screenshot, capture, plan).
    pub wrote: Option<String>,
    /// The last error to show (a shader that failed to compile).
    pub error: Option<String>,
}

/// The characters of an overlay line that fit an output `width` × `height` pixels wide
/// (glyphs at the overlay's scale, inside the panel's margin and padding on both sides),
/// at most the grid's.
pub fn columns(width: u32, height: u32) -> usize {
    let s = scale_for(width, height).max(1);
    let inside = width.saturating_sub(2 * (MARGIN + PADDING) * s);
    ((inside / (GLYPH * s)) as usize).clamp(16, COLUMNS)
}

/// Characters of a switch row at most (a narrower overlay packs fewer cells to a row).
const SWITCH_ROW: usize = 84;

/// The overlay's lines and where its switches are on them, from one [`layout`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hud {
    /// The lines, wrapped, with their colours.
    pub lines: Vec<(String, [u8; 3])>,
    /// The switches' cells on `lines`.
    pub cells: Vec<Cell>,
}

/// Where one switch's `[key] name state` stands in the overlay's text.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Index into [`Hud::lines`].
    pub row: usize,
    /// Character columns of the cell on that line.
    pub columns: Range<usize>,
    /// What a tap on it does.
    pub action: Action,
}

impl Hud {
    /// The text the overlay pass draws.
    pub fn overlay(&self) -> OverlayText {
        OverlayText {
            lines: self
                .lines
                .iter()
                .map(|(text, color)| OverlayLine::new(text.clone(), *color))
                .collect(),
        }
    }

    /// The switch whose cell holds pixel (`x`, `y`) (origin top left, as winit's touch
    /// location) of a `width` × `height` output, the overlay drawn from these lines.
    ///
    /// The pixel's character is found as `overlay.frag` finds it: inside the panel
    /// ([`OverlayText::panel`], clipped to the output), less the padding, divided by the
    /// scale, then by the glyph width and the line height. A line's whole height counts
    /// (the glyph and its spacing), so a tap between two rows lands on one of them.
    pub fn switch_at(&self, width: u32, height: u32, x: f64, y: f64) -> Option<Action> {
        let panel = self.overlay().panel(width, height)?;
        if !(x >= 0.0 && y >= 0.0) {
            // Negative or NaN; infinities saturate below and miss the panel.
            return None;
        }
        // gl_FragCoord of pixel (i, j) is (i + 0.5, j + 0.5): the pixel is the floor.
        let (px, py) = (x as u32, y as u32);
        if !panel.contains(px, py) {
            return None;
        }
        let s = scale_for(width, height).max(1);
        let qx = ((px - panel.x) / s).checked_sub(PADDING)?;
        let qy = ((py - panel.y) / s).checked_sub(PADDING)?;
        let (row, col) = ((qy / LINE_HEIGHT) as usize, (qx / GLYPH) as usize);
        if row >= self.lines.len().min(ROWS) || col >= COLUMNS {
            return None;
        }
        self.cells
            .iter()
            .find(|c| c.row == row && c.columns.contains(&col))
            .map(|c| c.action)
    }

    /// The pixel at the centre of `action`'s cell on a `width` × `height` output (the
    /// inverse of [`Hud::switch_at`]; `--script tap=NAME` taps there), if it is shown.
    pub fn cell_centre(&self, width: u32, height: u32, action: Action) -> Option<(f64, f64)> {
        let cell = self.cells.iter().find(|c| c.action == action)?;
        let panel = self.overlay().panel(width, height)?;
        let s = f64::from(scale_for(width, height).max(1));
        let col = (cell.columns.start + cell.columns.end) as f64 / 2.0;
        let x = f64::from(panel.x) + s * (f64::from(PADDING) + col * f64::from(GLYPH));
        let y = f64::from(panel.y)
            + s * (f64::from(PADDING) + (cell.row as f64 + 0.5) * f64::from(LINE_HEIGHT));
        (self.switch_at(width, height, x, y) == Some(action)).then_some((x, y))
    }
}

/// The overlay's lines wrapped to `columns` characters, and where the switches are.
///
/// The switch rows are packed to fit `columns` (at most [`SWITCH_ROW`]), so wrapping never
/// splits or moves a cell and the recorded columns are those drawn; only a single cell
/// wider than the overlay is wrapped, and its row then records no cells.
pub fn layout(
    stats: &Stats,
    figures: &Figures,
    switches: &Switches,
    notes: &Notes,
    columns: usize,
) -> Hud {
    let mut l = vec![(notes.title.clone(), CYAN)];
    l.push((
        format!(
            "{:.1} FPS  CPU {:.2} ms/frame (declare {:.0} us, prepare {:.0} us, record {:.0} us; \
             blocked in submit {:.1} ms)",
            stats.fps(),
            stats.cpu_ms(),
            stats.declare_us.unwrap_or(0.0),
            stats.prepare_us.unwrap_or(0.0),
            stats.record_us.unwrap_or(0.0),
            stats.submit_us.unwrap_or(0.0) / 1000.0
        ),
        WHITE,
    ));
    l.push((
        format!(
            "plan: {} passes, {} render passes ({} subpasses), {} barriers, {} semaphores",
            figures.passes,
            figures.render_passes,
            figures.subpasses,
            figures.barriers,
            figures.semaphores
        ),
        WHITE,
    ));
    l.push((
        format!(
            "transient memory: {} aliased, {} unaliased, {} memoryless",
            mib(figures.aliased),
            mib(figures.unaliased),
            mib(figures.memoryless)
        ),
        WHITE,
    ));
    l.push((
        format!(
            "tile bandwidth model: {} planned, {} naive per frame",
            mib(figures.bandwidth),
            mib(figures.naive_bandwidth)
        ),
        WHITE,
    ));
    l.push((notes.camera.clone(), GREY));
    if !notes.change.is_empty() {
        let mut text = String::from("changed: ");
        text.push_str(&notes.change.join(", "));
        l.push((text, YELLOW));
    }
    if let Some(w) = &notes.wrote {
        l.push((format!("wrote {w}"), YELLOW));
    }
    if let Some(e) = &notes.error {
        for (i, line) in e.lines().take(4).enumerate() {
            let prefix = if i == 0 { "error: " } else { "  " };
            l.push((format!("{prefix}{line}"), RED));
        }
    }
    // Lines before the switch rows, which record their cells: (text, colour, cells).
    let mut l: Vec<_> = l.into_iter().map(|(t, c)| (t, c, Vec::new())).collect();
    // The switches with their keys, as many to a row as fit.
    let fit = SWITCH_ROW.min(columns);
    let mut row = String::new();
    let mut cells = Vec::new();
    for (name, state) in switches.states() {
        let bound = BINDINGS.iter().find(|b| b.name == name);
        let key = bound.map(|b| b.key.label()).unwrap_or_default();
        let cell = format!("[{key}] {name} {state}");
        let at = row.chars().count();
        if at > 0 && at + 2 + cell.chars().count() > fit {
            l.push((std::mem::take(&mut row), GREY, std::mem::take(&mut cells)));
        }
        if !row.is_empty() {
            row.push_str("  ");
        }
        let start = row.chars().count();
        row.push_str(&cell);
        if let Some(b) = bound {
            cells.push((start..row.chars().count(), b.action));
        }
    }
    if !row.is_empty() {
        l.push((row, GREY, cells));
    }
    let keys: Vec<String> = [
        Action::AllOptimisations,
        Action::CameraMode,
        Action::Pause,
        Action::Overlay,
        Action::Screenshot,
        Action::Capture,
        Action::ReloadShaders,
        Action::DumpPlan,
        Action::Quit,
    ]
    .iter()
    .map(|&a| {
        let b = binding(a);
        format!("[{}] {}", b.key.label(), b.name)
    })
    .collect();
    l.push((keys.join("  "), GREY, Vec::new()));
    l.push((MOVEMENT_HELP.into(), GREY, Vec::new()));
    // The per-pass times last: the longest part, the first the bottom of a small output
    // cuts off, so the switches (which a tap reaches) stay in view. Pass names are cut to
    // keep each time on its line on a narrow overlay.
    l.push(("GPU ms per pass (smoothed):".into(), GREY, Vec::new()));
    let gpu = stats.gpu_ms();
    let total: f64 = gpu.iter().map(|(_, ms)| ms).sum();
    let name = columns.saturating_sub(11).clamp(8, 28);
    for (pass, ms) in gpu.into_iter().chain([("total", total)]) {
        l.push((
            format!("  {pass:<name$.name$} {ms:>7.3}"),
            WHITE,
            Vec::new(),
        ));
    }
    let mut hud = Hud::default();
    for (text, color, cells) in l {
        let wrapped = wrap(&text, columns);
        if wrapped.len() == 1 {
            // Unchanged by wrapping: the cells stand where they were put.
            let row = hud.lines.len();
            hud.cells
                .extend(cells.into_iter().map(|(columns, action)| Cell {
                    row,
                    columns,
                    action,
                }));
        }
        hud.lines.extend(wrapped.into_iter().map(|t| (t, color)));
    }
    hud
}

/// `text` broken at spaces into lines of at most `width` (> 2) characters, continuation
/// lines indented by two; a word longer than a line is cut.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.to_string();
    while rest.chars().count() > width {
        let head: String = rest.chars().take(width + 1).collect();
        let indent = head.len() - head.trim_start().len();
        // The last space that fits, past the indent (`head` is a prefix of `rest`).
        let (line, tail) = match head.trim_start().rfind(' ') {
            Some(i) => (
                rest[..indent + i].to_string(),
                rest[indent + i + 1..].to_string(),
            ),
            None => (
                rest.chars().take(width).collect(),
                rest.chars().skip(width).collect(),
            ),
        };
        out.push(line.trim_end().to_string());
        rest = format!("  {}", tail.trim_start());
    }
    out.push(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(pass: &str, mean_us: f64, frames: u64) -> PassTiming {
        PassTiming {
            pass: pass.into(),
            mean_us,
            frames,
        }
    }

    #[test]
    fn long_lines_wrap_at_spaces_within_the_overlay_width() {
        let w = wrap("aaa bbb ccc ddd", 8);
        assert_eq!(w, ["aaa bbb", "  ccc", "  ddd"]);
        assert!(w.iter().all(|l| l.chars().count() <= 8));
        assert_eq!(wrap("short", 8), ["short"]);
        // Leading spaces (the pass table's indent) are kept.
        assert_eq!(wrap("  lighting   1.0", 40), ["  lighting   1.0"]);
        assert_eq!(wrap("abcdefghijkl", 8), ["abcdefgh", "  ijkl"]);
    }

    #[test]
    fn lines_fit_the_window() {
        assert_eq!(columns(1280, 720), 120);
        assert_eq!(columns(1600, 900), 97);
        assert_eq!(columns(320, 180), 37);
        assert_eq!(columns(540, 960), 64);
        // A line of that many characters keeps its panel (margin, padding and all) inside
        // the output, unclipped, and one more character would not.
        for (w, h) in [
            (320, 180),
            (540, 960),
            (1080, 2400),
            (1600, 900),
            (2560, 1440),
        ] {
            let n = columns(w, h);
            let text = |n: usize| OverlayText {
                lines: vec![OverlayLine::new("x".repeat(n), WHITE)],
            };
            let s = scale_for(w, h);
            let panel = text(n).panel(w, h).expect("a panel");
            assert!(
                panel.x + panel.width + MARGIN * s <= w,
                "{w}x{h}: {panel:?}"
            );
            if n < COLUMNS {
                let wider = text(n + 1).panel(w, h).expect("a panel");
                assert!(wider.x + wider.width + MARGIN * s > w, "{w}x{h}");
            }
        }
    }

    #[test]
    fn gpu_times_are_the_last_frames_smoothed() {
        let mut s = Stats::default();
        let cpu = FrameStats::default();
        s.frame(1.0 / 60.0, &cpu, &[timing("a", 1000.0, 1)]);
        assert!((s.gpu_ms()[0].1 - 1.0).abs() < 1e-9);
        // The second frame took 3 ms: the running mean is 2 ms; the smoothed last-frame
        // time moves a tenth of the way from 1 to 3.
        s.frame(1.0 / 60.0, &cpu, &[timing("a", 2000.0, 2)]);
        assert!((s.gpu_ms()[0].1 - 1.2).abs() < 1e-9, "{:?}", s.gpu_ms());
        // A re-plan restarts the executor's counters.
        s.frame(1.0 / 60.0, &cpu, &[timing("a", 5000.0, 1)]);
        assert!((s.gpu_ms()[0].1 - (1.2 + (5.0 - 1.2) * 0.1)).abs() < 1e-9);
        assert!((s.fps() - 60.0).abs() < 1e-6);
    }

    fn switches() -> Switches {
        Switches {
            features: tessera_render::features::Features::default(),
            options: tessera_graph::CompileOptions::ALL,
        }
    }

    /// The overlay of a frame with an error and a change (lines before the switches).
    fn hud(columns: usize) -> Hud {
        let mut s = Stats::default();
        s.frame(
            0.02,
            &FrameStats::default(),
            &[timing("lighting", 2500.0, 1)],
        );
        let notes = Notes {
            title: "Tessera on a phone".into(),
            error: Some("post.frag:3: error: oops".into()),
            change: vec!["render passes 5 -> 7".into()],
            ..Notes::default()
        };
        layout(&s, &Figures::default(), &switches(), &notes, columns)
    }

    /// The centre of character (`row`, `col`) on a `height`-tall output, straight from the
    /// overlay's constants: margin, padding, 8-pixel glyphs, 10-pixel lines, all × scale.
    fn centre(row: usize, col: usize, width: u32, height: u32) -> (f64, f64) {
        let s = f64::from(scale_for(width, height));
        let x = f64::from(MARGIN + PADDING) * s + (col as f64 * 8.0 + 4.0) * s;
        let y = f64::from(MARGIN + PADDING) * s + (row as f64 * 10.0 + 5.0) * s;
        (x, y)
    }

    /// Row and column where `text` begins on the overlay's lines.
    fn find(hud: &Hud, text: &str) -> (usize, usize) {
        hud.lines
            .iter()
            .enumerate()
            .find_map(|(r, (l, _))| Some((r, l.find(text)?)))
            .unwrap_or_else(|| panic!("{text:?} not in {:#?}", hud.lines))
    }

    #[test]
    fn a_tap_on_a_switch_cell_finds_its_action_at_either_scale() {
        use super::super::actions::{Feature, Optimisation};
        for (width, height) in [(1280, 720), (1920, 1080), (1080, 2400)] {
            let hud = hud(columns(width, height));
            let at = |row, col| {
                let (x, y) = centre(row, col, width, height);
                hud.switch_at(width, height, x, y)
            };
            // The middle of "[7] ssao gbuffer", its first and last characters.
            let (row, col) = find(&hud, "[7] ssao gbuffer");
            let ssao = Some(Action::Feature(Feature::Ssao));
            assert_eq!(at(row, col + 8), ssao, "{width}x{height}");
            assert_eq!(at(row, col), ssao);
            assert_eq!(at(row, col + 15), ssao);
            let (row, col) = find(&hud, "[1] merge on");
            assert_eq!(
                at(row, col + 5),
                Some(Action::Optimisation(Optimisation::Merge))
            );
            let (row, col) = find(&hud, "[V] debug-view none");
            assert_eq!(at(row, col + 4), Some(Action::Feature(Feature::DebugView)));
            // The two spaces between cells, past the end of a row, the line above, the
            // keys line (not a switch), left of the text (padding) and outside the panel.
            let (row, col) = find(&hud, "  [2] memoryless");
            assert_eq!(at(row, col), None);
            assert_eq!(at(row, col + 1), None);
            assert_eq!(
                at(row, col + 2),
                Some(Action::Optimisation(Optimisation::Memoryless))
            );
            let end = hud.lines[row].0.len();
            assert_eq!(at(row, end), None, "past the row's end");
            assert_eq!(at(row - 1, col + 4), None, "the line above");
            let (keys, kc) = find(&hud, "[0] optimisations");
            assert_eq!(at(keys, kc + 4), None);
            let (x, y) = centre(row, col + 4, width, height);
            let s = f64::from(scale_for(width, height));
            let left = f64::from(MARGIN) * s + 1.0;
            assert_eq!(hud.switch_at(width, height, left, y), None, "padding");
            assert_eq!(hud.switch_at(width, height, 2.0, y), None, "margin");
            let below = centre(hud.lines.len().min(ROWS) + 1, col + 4, width, height).1;
            assert_eq!(hud.switch_at(width, height, x, below), None, "below");
            assert_eq!(hud.switch_at(width, height, f64::NAN, y), None);
            assert_eq!(hud.switch_at(width, height, x, f64::INFINITY), None);
            assert_eq!(hud.switch_at(width, height, -x, y), None);
        }
    }

    #[test]
    fn every_cell_centre_taps_its_own_switch() {
        for (width, height) in [(1280, 720), (1080, 2400)] {
            let hud = hud(columns(width, height));
            assert!(!hud.cells.is_empty());
            for cell in &hud.cells {
                let (x, y) = hud
                    .cell_centre(width, height, cell.action)
                    .unwrap_or_else(|| panic!("{:?} at {width}x{height}", cell.action));
                assert_eq!(hud.switch_at(width, height, x, y), Some(cell.action));
            }
        }
        // Rows the output cuts off (the panel is clipped to it) cannot be tapped.
        let small = hud(columns(320, 180));
        let last = small.cells.last().expect("cells");
        assert!(centre(last.row, last.columns.start, 320, 180).1 > 180.0);
        assert_eq!(small.cell_centre(320, 180, last.action), None);
        // A switch the overlay does not show has no centre.
        let empty = Hud::default();
        assert_eq!(empty.cell_centre(1280, 720, Action::Pause), None);
    }

    #[test]
    fn a_tap_uses_the_scale_of_the_output_it_was_drawn_on() {
        use super::super::actions::Feature;
        // Same lines, two outputs: the pixel of "[6] shadows" at 1× is elsewhere at 2×.
        let hud = hud(COLUMNS);
        let (row, col) = find(&hud, "[6] shadows on");
        let small = centre(row, col + 6, 1280, 720);
        let big = centre(row, col + 6, 1920, 1080);
        let shadows = Some(Action::Feature(Feature::Shadows));
        assert_eq!(hud.switch_at(1280, 720, small.0, small.1), shadows);
        assert_eq!(hud.switch_at(1920, 1080, big.0, big.1), shadows);
        assert_ne!(hud.switch_at(1920, 1080, small.0, small.1), shadows);
        // A pixel's character is its floor: the cell's last pixel hits, the next misses.
        let (x, y) = centre(row, col + "[6] shadows on".len(), 1280, 720);
        assert_eq!(hud.switch_at(1280, 720, x - 4.01, y), shadows);
        assert_eq!(hud.switch_at(1280, 720, x - 4.0, y), None);
    }

    #[test]
    fn switch_rows_fit_the_overlay_and_cells_name_their_switch() {
        for columns in [16, 40, 67, 84, 100, COLUMNS] {
            let hud = hud(columns);
            // Every switch has a cell, but for one wider than a tiny overlay (wrapped).
            if columns >= "[V] debug-view shadow0".len() {
                assert_eq!(hud.cells.len(), 13, "{columns}");
            } else {
                assert!(!hud.cells.is_empty() && hud.cells.len() < 13, "{columns}");
            }
            for c in &hud.cells {
                let line = &hud.lines[c.row].0;
                assert!(line.len() <= columns.min(SWITCH_ROW), "{line:?}");
                let b = binding(c.action);
                let cell = &line[c.columns.clone()];
                let head = format!("[{}] {} ", b.key.label(), b.name);
                assert!(cell.starts_with(&head), "{cell:?} {head:?}");
                assert!(!cell.ends_with(' ') && !cell.contains("  "), "{cell:?}");
            }
        }
        // A narrow overlay packs fewer cells to a row, more rows.
        let rows = |h: &Hud| {
            let mut r: Vec<_> = h.cells.iter().map(|c| c.row).collect();
            r.dedup();
            r.len()
        };
        assert!(rows(&hud(40)) > rows(&hud(COLUMNS)));
    }

    #[test]
    fn the_overlay_shows_figures_switches_keys_and_errors() {
        let mut s = Stats::default();
        s.frame(
            0.02,
            &FrameStats {
                declare_us: 100.0,
                prepare_us: 50.0,
                record_us: 850.0,
                ..FrameStats::default()
            },
            &[timing("lighting", 2500.0, 1)],
        );
        let f = Figures {
            render_passes: 5,
            subpasses: 9,
            aliased: 3 << 20,
            ..Figures::default()
        };
        let sw = Switches {
            features: tessera_render::features::Features::default(),
            options: tessera_graph::CompileOptions::ALL,
        };
        let notes = Notes {
            error: Some("post.frag:3: error: oops".into()),
            change: vec!["render passes 5 -> 7".into()],
            ..Notes::default()
        };
        let text: Vec<String> = layout(&s, &f, &sw, &notes, COLUMNS)
            .lines
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        let all = text.join("\n");
        assert!(all.contains("50.0 FPS"), "{all}");
        assert!(all.contains("CPU 1.00 ms/frame"), "{all}");
        assert!(all.contains("5 render passes (9 subpasses)"), "{all}");
        assert!(all.contains("3.0 MiB aliased"), "{all}");
        assert!(all.contains("lighting"), "{all}");
        assert!(all.contains("2.500"), "{all}");
        assert!(all.contains("[1] merge on"), "{all}");
        assert!(all.contains("[F12] screenshot"), "{all}");
        assert!(all.contains("error: post.frag:3"), "{all}");
        assert!(all.contains("changed: render passes 5 -> 7"), "{all}");
    }
}
