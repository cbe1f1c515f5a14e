//! Colours: one per pass, the same in every bar and timeline so a pass can be followed
//! across modes, legible text on each, and a fixed colour per mode.

use crate::cli::bench::report::Cell;
use std::collections::BTreeMap;

/// A colour per pass name, the same in every mode's bar and timeline. Colours go by first
/// appearance, so passes next to each other in execution order get far-apart colours.
pub(super) struct PassColours(BTreeMap<String, usize>);

impl PassColours {
    pub(super) fn new(cells: &[Cell]) -> Self {
        let mut map = BTreeMap::new();
        for c in cells {
            let names = c.passes.iter().map(|p| &p.pass);
            for name in names
                .chain(c.timeline.iter().map(|s| &s.pass))
                .chain(c.timeline_two_frames.iter().map(|s| &s.pass))
            {
                let next = map.len();
                map.entry(name.clone()).or_insert(next);
            }
        }
        PassColours(map)
    }

    pub(super) fn get(&self, name: &str) -> Swatch {
        pass_colour(self.0.get(name).copied().unwrap_or(0))
    }

    /// Pass names in order of first appearance.
    pub(super) fn names(&self) -> Vec<&str> {
        let mut v: Vec<(&str, usize)> = self.0.iter().map(|(k, i)| (k.as_str(), *i)).collect();
        v.sort_by_key(|(_, i)| *i);
        v.into_iter().map(|(k, _)| k).collect()
    }
}

/// A fill and the text colour legible on it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Swatch {
    pub(super) fill: String,
    pub(super) ink: &'static str,
}

/// The `i`th pass colour. Golden-angle hue steps keep consecutive colours far apart for any
/// number of passes; three lightness levels separate the hues that come close after many steps.
fn pass_colour(i: usize) -> Swatch {
    let hue = (i as f64 * 137.508) % 360.0;
    let light = [0.62, 0.76, 0.48][i % 3];
    let sat = 0.58;
    // Black and white text contrast equally at a luminance of about 0.18.
    let ink = if luminance(hue, sat, light) < 0.18 {
        "#fff"
    } else {
        "#111"
    };
    Swatch {
        fill: format!("hsl({hue:.0}, {:.0}%, {:.0}%)", sat * 100.0, light * 100.0),
        ink,
    }
}

/// The relative luminance (sRGB, 0 black to 1 white) of hue `h` in degrees, saturation `s`
/// and lightness `l` in 0..=1.
fn luminance(h: f64, s: f64, l: f64) -> f64 {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let linear = |v: f64| {
        let v = v + m;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// A mode's colour in single-series charts; modes outside the known seven cycle a spare set.
pub(super) fn mode_colour(mode: &str, index: usize) -> &'static str {
    match mode {
        "none" => "#8b939e",
        "merge" => "#3b78c3",
        "memoryless" => "#2f9a74",
        "alias" => "#d9822b",
        "async" => "#8e63bf",
        "overlap" => "#3c8f9e",
        "all" => "#cf3f5a",
        _ => ["#5a6b7d", "#a0813a", "#3c8f9e", "#b05a8c"][index % 4],
    }
}

#[cfg(test)]
mod tests {
    use super::super::page;
    use super::super::testdata::{report, ODD};
    use super::*;

    #[test]
    fn pass_labels_get_legible_ink() {
        assert!((luminance(0.0, 0.0, 1.0) - 1.0).abs() < 1e-9);
        assert!(luminance(0.0, 0.0, 0.0).abs() < 1e-9);
        // Dark blue takes white text, light yellow black.
        assert!(luminance(240.0, 0.6, 0.45) < 0.18);
        assert!(luminance(60.0, 0.6, 0.75) > 0.18);
        for i in 0..30 {
            let sw = pass_colour(i);
            assert!(sw.ink == "#fff" || sw.ink == "#111");
        }
    }

    #[test]
    fn same_pass_same_colour_in_every_mode() {
        let r = report();
        let c = PassColours::new(&r.cells);
        assert_eq!(c.names(), vec!["gbuffer", ODD, "tonemap"]);
        let p = page(&r);
        let fill = format!("fill=\"{}\"><title>tonemap", c.get("tonemap").fill);
        // Per-pass bars (4 cells) and timelines (4 cells).
        assert_eq!(p.matches(&fill).count(), 8);
        assert_ne!(pass_colour(0), pass_colour(1));
    }
}
