//! Why nothing is drawn: a minimised (or occluded) window, or a suspended app. Kept
//! together because both stop the drawing, make the loop sleep in the event wait, and end
//! by a timer (`--script`) or by the platform.

use std::time::{Duration, Instant};
use winit::event_loop::ControlFlow;

/// Why nothing is drawn, and so what restores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hidden {
    /// The window is 0×0: a non-zero resize restores it.
    ZeroSize,
    /// The platform says it is occluded: `Occluded(false)` restores it.
    Occluded,
    /// The window manager iconified it (X11 reports neither of the above): any event
    /// after which it is no longer minimised restores it.
    Iconified,
    /// `--script minimise=MS`: restores itself at that time.
    Until(Instant),
}

/// A minimised (or occluded) window: nothing is drawn until it is restored.
#[derive(Debug)]
struct Minimised {
    since: Instant,
    why: Hidden,
    /// Process CPU time when it began.
    cpu: Option<Duration>,
    /// Redraws that came while minimised (none is drawn).
    redraws: u64,
    /// Frames presented when it began.
    presented: u64,
}

/// The app is suspended: the platform took the native window away (Android's `Suspended`,
/// or `--script suspend=MS`), so the swapchain and the surface are gone and nothing is
/// drawn until `resumed` makes a new surface. The device, the pipelines, the scene and the
/// plan-lifetime resources stay.
#[derive(Debug)]
struct Suspension {
    since: Instant,
    /// `--script suspend=MS`: resumes itself at that time; `None`: when the platform says.
    until: Option<Instant>,
}

/// A minimised period as the run's summary prints it: (ms, redraws, frames drawn, CPU ms).
pub type MinimisedPeriod = (f64, u64, u64, Option<f64>);

/// Whether the window is minimised and whether the app is suspended.
#[derive(Debug, Default)]
pub struct Visibility {
    minimised: Option<Minimised>,
    suspension: Option<Suspension>,
}

/// This process's CPU time (user + system) from `/proc/self/stat`, where there is one.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the name), in
    // clock ticks of USER_HZ (100 on Linux).
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

impl Visibility {
    /// Starts a minimised period (`presented` frames so far), unless one is on.
    pub fn minimise(&mut self, why: Hidden, presented: u64) {
        if self.minimised.is_none() {
            log::info!("minimised ({why:?}): drawing nothing until restored");
            self.minimised = Some(Minimised {
                since: Instant::now(),
                why,
                cpu: process_cpu(),
                redraws: 0,
                presented,
            });
        }
    }

    pub fn hidden(&self) -> Option<Hidden> {
        self.minimised.as_ref().map(|m| m.why)
    }

    /// Ends the minimised period, if any (`presented` frames so far): what it was.
    pub fn restore(&mut self, presented: u64) -> Option<MinimisedPeriod> {
        let m = self.minimised.take()?;
        let ms = m.since.elapsed().as_secs_f64() * 1e3;
        let cpu = match (m.cpu, process_cpu()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a).as_secs_f64() * 1e3),
            _ => None,
        };
        log::info!("restored after {ms:.0} ms minimised");
        Some((ms, m.redraws, presented - m.presented, cpu))
    }

    /// A scripted minimise is due to end.
    pub fn restore_due(&self) -> bool {
        matches!(self.hidden(), Some(Hidden::Until(t)) if Instant::now() >= t)
    }

    /// Starts a suspension (resuming itself at `until`); false when one is already on.
    pub fn suspend(&mut self, until: Option<Instant>) -> bool {
        if self.suspension.is_some() {
            return false;
        }
        log::info!("suspended: dropping the swapchain and the window surface");
        self.suspension = Some(Suspension {
            since: Instant::now(),
            until,
        });
        true
    }

    /// Ends the suspension, if any: how long it was, ms.
    pub fn resume(&mut self) -> Option<f64> {
        let s = self.suspension.take()?;
        let ms = s.since.elapsed().as_secs_f64() * 1e3;
        log::info!("resumed after {ms:.0} ms suspended: making a new window surface");
        Some(ms)
    }

    /// A scripted suspension is due to end.
    pub fn resume_due(&self) -> bool {
        let due = |s: &Suspension| s.until.is_some_and(|t| Instant::now() >= t);
        self.suspension.as_ref().is_some_and(due)
    }

    /// Whether a redraw draws nothing (suspended or minimised); a minimised window's
    /// redraws are counted.
    pub fn skip_redraw(&mut self) -> bool {
        if self.suspension.is_some() {
            return true;
        }
        if let Some(m) = &mut self.minimised {
            m.redraws += 1;
            return true;
        }
        false
    }

    /// How the loop waits while nothing is drawn: in the event wait, until a scripted end
    /// is due. `None` when drawing.
    pub fn control_flow(&self) -> Option<ControlFlow> {
        if let Some(s) = &self.suspension {
            // No surface: sleep in the event wait until resumed.
            return Some(match s.until {
                Some(t) => ControlFlow::WaitUntil(t),
                None => ControlFlow::Wait,
            });
        }
        // Minimised: sleep in the event wait (until a scripted restore is due).
        self.minimised.as_ref().map(|m| match m.why {
            Hidden::Until(t) => ControlFlow::WaitUntil(t),
            _ => ControlFlow::Wait,
        })
    }
}
