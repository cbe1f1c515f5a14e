//! Progress of long work (rendering many frames, benchmarking): a bar on standard error when
//! it is a terminal, else an `info` log line every few seconds. Progress is not a warning.

use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

/// How often progress is logged where no bar is drawn.
const LOG_EVERY: Duration = Duration::from_secs(2);

/// One piece of long work, `total` steps of `unit` ("frame", "round").
#[derive(Debug)]
pub struct Progress {
    what: String,
    unit: &'static str,
    total: u64,
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    last_log: Instant,
}

impl Progress {
    /// Starts showing progress of `what` ("render 1280x720").
    pub fn new(what: impl Into<String>, unit: &'static str, total: u64) -> Progress {
        let what = what.into();
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total);
            let style = indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(what.clone());
            bar.set_message(format!("{unit}s"));
            bar
        });
        let now = Instant::now();
        Progress {
            what,
            unit,
            total,
            bar,
            started: now,
            last_log: now,
        }
    }

    /// `done` steps of the total are done.
    pub fn set(&mut self, done: u64) {
        match &self.bar {
            Some(bar) => bar.set_position(done),
            None if self.last_log.elapsed() >= LOG_EVERY || done == self.total => {
                log::info!(
                    "{}: {} {done}/{} ({:.1} s)",
                    self.what,
                    self.unit,
                    self.total,
                    self.started.elapsed().as_secs_f32()
                );
                self.last_log = Instant::now();
            }
            None => {}
        }
    }
}

impl Drop for Progress {
    /// The bar leaves the terminal once the work is over (the result follows on stdout).
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
