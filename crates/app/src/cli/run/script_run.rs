//! `--script` as it runs: the steps not yet due, and a scripted resize being waited for.

use super::script::{Script, Step};
use std::time::{Duration, Instant};

/// How long a scripted resize waits for the window system before drawing on.
const RESIZE_WAIT: Duration = Duration::from_secs(5);

/// `--script N:resize=WxH` asked for a size the window does not have yet.
#[derive(Debug)]
struct ScriptedResize {
    size: (u32, u32),
    deadline: Instant,
}

/// The script's state between frames.
#[derive(Debug, Default)]
pub struct ScriptRun {
    script: Script,
    /// A scripted resize the window system has not applied yet: no frame is drawn until it
    /// is, so the frame a script step names sees the size it asked for however late the
    /// window system answers (a loaded machine answers late).
    resizing: Option<ScriptedResize>,
}

impl ScriptRun {
    pub fn new(script: Script) -> ScriptRun {
        ScriptRun {
            script,
            resizing: None,
        }
    }

    /// The steps due after `rendered` frames, taken.
    pub fn due(&mut self, rendered: u64) -> Vec<Step> {
        self.script.due(rendered)
    }

    /// Waits (up to [`RESIZE_WAIT`]) for the window to take `size`.
    pub fn wait_for(&mut self, size: (u32, u32)) {
        self.resizing = Some(ScriptedResize {
            size,
            deadline: Instant::now() + RESIZE_WAIT,
        });
    }

    /// The window took `size`: the wait for it, if any, ends.
    pub fn resized(&mut self, size: (u32, u32)) {
        if self.resizing.as_ref().is_some_and(|r| r.size == size) {
            self.resizing = None;
        }
    }

    /// Whether the next frame waits for a scripted resize; past the deadline it says so
    /// and draws at the size the window has.
    pub fn waiting(&mut self) -> bool {
        if let Some(r) = &self.resizing {
            if Instant::now() < r.deadline {
                return true;
            }
            log::warn!(
                "the window system did not resize the window to {}x{} within {} s; \
                 drawing at the size it has",
                r.size.0,
                r.size.1,
                RESIZE_WAIT.as_secs()
            );
            self.resizing = None;
        }
        false
    }
}
