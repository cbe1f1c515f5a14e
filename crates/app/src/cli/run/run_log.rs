//! What the run records for its summary on exit: re-plans, minimised and suspended periods,
//! per-frame CPU times, surfaces and swapchains made, validation messages. The window tests
//! read the summary, so its lines are kept exactly.

use super::clock::Clock;
use super::visibility::MinimisedPeriod;
use std::process::ExitCode;

/// The run's records, printed when it ends.
#[derive(Debug, Default)]
pub struct RunLog {
    /// Re-plans made: (reason, ms).
    pub replans: Vec<(String, f64)>,
    /// Minimised periods.
    pub minimise_log: Vec<MinimisedPeriod>,
    /// Suspended periods, ms.
    pub suspend_log: Vec<f64>,
    /// CPU ms of each presented frame ([`super::ui::timing::cpu_ms`]), and the ms blocked in submit.
    pub cpu_ms: Vec<f64>,
    pub submit_ms: Vec<f64>,
    /// Window surfaces made (the first one included).
    pub surfaces: u64,
    /// Swapchains created (the first one included).
    pub swapchains: u64,
    /// The last swapchain's extent.
    pub extent: (u32, u32),
    /// What the UI says of its cost and of the GPU times' freshness.
    pub ui: Option<String>,
    /// Validation messages: how many, and their texts.
    pub messages: (u64, Vec<String>),
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

impl RunLog {
    /// Prints the summary; the exit status is a failure when validation (if on) said
    /// anything.
    pub fn print(&self, clock: &Clock, validation: bool) -> ExitCode {
        // FPS after the first frame (which opens everything and compiles the first plan).
        let secs = clock
            .first_presented
            .map_or(0.0, |t| t.elapsed().as_secs_f64());
        let after_first = clock.presented.saturating_sub(1);
        println!(
            "presented {} frames; {:.1} FPS after the first frame; CPU {:.2} ms per frame \
             (median of declare + prepare + record; {:.2} ms more blocked in vkQueueSubmit2)",
            clock.presented,
            after_first as f64 / secs.max(1e-9),
            median(self.cpu_ms.get(1..).unwrap_or_default()),
            median(self.submit_ms.get(1..).unwrap_or_default())
        );
        for (reason, ms) in &self.replans {
            println!("re-plan: {reason}: {ms:.2} ms");
        }
        if let Some(ui) = &self.ui {
            println!("{ui}");
        }
        for (ms, redraws, drawn, cpu) in &self.minimise_log {
            println!(
                "minimised for {ms:.0} ms: {redraws} redraws, {drawn} frames drawn, CPU {}",
                cpu.map_or("unknown".to_string(), |c| format!("{c:.0} ms"))
            );
        }
        for ms in &self.suspend_log {
            println!(
                "suspended for {ms:.0} ms: swapchain and surface dropped, made again on resume"
            );
        }
        println!(
            "window surfaces created: {}; swapchains created: {} (last {}x{})",
            self.surfaces, self.swapchains, self.extent.0, self.extent.1
        );
        let (count, texts) = &self.messages;
        if validation {
            println!("validation messages: {count}");
            for t in texts {
                println!("  {t}");
            }
            if *count > 0 {
                return ExitCode::FAILURE;
            }
        }
        ExitCode::SUCCESS
    }
}
