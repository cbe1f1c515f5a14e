//! `tessera bench --ui`: the window's UI painted in every measured frame, built from the
//! mode's own plan and times as `tessera run` builds it, without a window or input.

use crate::cli::run::toggles::{Figures, Switches};
use crate::cli::run::ui::panels::Notes;
use crate::cli::run::ui::timing::Timing;
use crate::cli::run::ui::{Ui, View};
use tessera_render::{FrameStats, Renderer};

/// One mode's UI.
pub struct BenchUi {
    ui: Ui,
    timing: Timing,
    switches: Switches,
    notes: Notes,
}

impl BenchUi {
    /// The UI shown, with `r`'s switches.
    pub fn new(r: &Renderer) -> BenchUi {
        let s = r.settings();
        BenchUi {
            ui: Ui::new(true),
            timing: Timing::default(),
            switches: Switches {
                features: s.features.clone(),
                options: s.options,
            },
            notes: Notes::default(),
        }
    }

    /// Builds this frame's UI over `r`'s last plan and GPU times and hands it to `r`.
    pub fn paint(&mut self, r: &mut Renderer) -> anyhow::Result<()> {
        let figures = r.executor().plan().map(Figures::of).unwrap_or_default();
        self.timing
            .frame(1.0 / 60.0, &FrameStats::default(), r.newest_gpu_frame());
        let s = r.settings();
        let view = View {
            switches: &self.switches,
            greyed: &[],
            figures: &figures,
            timing: &self.timing,
            notes: &self.notes,
            scene_lights: r.scene().lights.len() as u32,
            animation: None,
            sun: None,
        };
        let frame = self.ui.frame_headless((s.width, s.height), &view);
        r.set_ui(Some(frame))?;
        Ok(())
    }

    /// The UI's CPU cost, in words.
    pub fn cost(&self) -> String {
        match self.ui.build_median_us() {
            Some((us, n)) => {
                format!("ui: build + tessellate {us:.0} us per frame (median of {n} frames)")
            }
            None => "ui: no frame built".into(),
        }
    }
}
