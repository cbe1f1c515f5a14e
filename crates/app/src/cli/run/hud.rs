//! The figures the overlay shows, smoothed over frames, and the overlay's lines.
//!
//! The executor reports each pass's mean GPU time over the frames its plan has run; the
//! last frame's time is the difference of the running sums, smoothed here with an
//! exponential moving average (a re-plan restarts the sums, and the averages follow).

use super::actions::{binding, Action, BINDINGS, MOVEMENT_HELP};
use super::toggles::{mib, Figures, Switches};
use std::collections::HashMap;
use tessera_render::frame::overlay::{scale_for, COLUMNS};
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
/// (8-pixel glyphs at the overlay's scale), at most the grid's.
pub fn columns(width: u32, height: u32) -> usize {
    let glyph = 8 * scale_for(height).max(1);
    ((width / glyph) as usize).clamp(16, COLUMNS)
}

/// The overlay's lines, wrapped to `columns` characters.
pub fn lines(
    stats: &Stats,
    figures: &Figures,
    switches: &Switches,
    notes: &Notes,
    columns: usize,
) -> Vec<(String, [u8; 3])> {
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
    l.push(("GPU ms per pass (smoothed):".into(), GREY));
    let gpu = stats.gpu_ms();
    let total: f64 = gpu.iter().map(|(_, ms)| ms).sum();
    for (pass, ms) in gpu {
        l.push((format!("  {pass:<28} {ms:>7.3}"), WHITE));
    }
    l.push((format!("  {:<28} {total:>7.3}", "total"), WHITE));
    // The switches with their keys, a few to a line.
    let states = switches.states();
    let mut row = String::new();
    for (name, state) in &states {
        let key = BINDINGS
            .iter()
            .find(|b| b.name == *name)
            .map(|b| b.key.label())
            .unwrap_or_default();
        let cell = format!("[{key}] {name} {state}");
        if row.len() + cell.len() + 2 > 84 {
            l.push((std::mem::take(&mut row), GREY));
        }
        if !row.is_empty() {
            row.push_str("  ");
        }
        row.push_str(&cell);
    }
    if !row.is_empty() {
        l.push((row, GREY));
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
    l.push((keys.join("  "), GREY));
    l.push((MOVEMENT_HELP.into(), GREY));
    l.into_iter()
        .flat_map(|(text, color)| wrap(&text, columns).into_iter().map(move |t| (t, color)))
        .collect()
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
        assert_eq!(columns(1600, 900), 100);
        assert_eq!(columns(320, 180), 40);
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
        let text: Vec<String> = lines(&s, &f, &sw, &notes, COLUMNS)
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
