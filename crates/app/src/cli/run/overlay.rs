//! What the overlay shows (figures, notes, the title), whether it is shown, and the layout
//! last drawn, which a tap is hit-tested against.

use super::actions::Action;
use super::hud::{self, Notes, Stats};
use super::toggles::{Figures, Switches};
use tessera_render::frame::overlay::OverlayText;

/// The overlay's state between frames.
#[derive(Default)]
pub struct Overlay {
    /// Tab: the overlay is drawn.
    pub shown: bool,
    pub stats: Stats,
    pub notes: Notes,
    /// Scene and device, the overlay's first words.
    pub title: String,
    /// The steady plan's figures.
    pub figures: Figures,
    /// The overlay last drawn and the output size it was laid out for: what a tap hits.
    drawn: Option<(hud::Hud, (u32, u32))>,
}

impl Overlay {
    pub fn new(shown: bool) -> Overlay {
        Overlay {
            shown,
            ..Overlay::default()
        }
    }

    /// Lays the overlay out for an output of `extent` (none when hidden): the text the
    /// overlay pass draws.
    pub fn lay_out(&mut self, switches: &Switches, extent: (u32, u32)) -> Option<OverlayText> {
        self.drawn = self.shown.then(|| {
            let columns = hud::columns(extent.0, extent.1);
            let drawn = hud::layout(&self.stats, &self.figures, switches, &self.notes, columns);
            (drawn, extent)
        });
        self.drawn.as_ref().map(|(drawn, _)| drawn.overlay())
    }

    /// The switch whose cell holds window pixel (`x`, `y`) in the overlay last drawn.
    pub fn switch_at(&self, x: f64, y: f64) -> Option<Action> {
        let (drawn, (width, height)) = self.drawn.as_ref()?;
        drawn.switch_at(*width, *height, x, y)
    }

    /// The centre of `action`'s cell in the overlay last drawn (`--script tap=NAME`).
    pub fn cell_centre(&self, action: Action, name: &str) -> anyhow::Result<(f64, f64)> {
        let Some((drawn, (width, height))) = &self.drawn else {
            anyhow::bail!("--script tap={name}: the overlay is hidden, nothing to tap");
        };
        drawn.cell_centre(*width, *height, action).ok_or_else(|| {
            anyhow::anyhow!("--script tap={name}: the overlay shows no switch '{name}'")
        })
    }
}
