//! Comparing two pictures, and the golden tolerance.
//!
//! Lavapipe compiles shaders for the host CPU, so a picture rendered on another CPU
//! differs in rounding: a little everywhere (a channel off by 1 or 2), and now and then a
//! lone pixel off by much more (a coverage or specular decision that flips). A golden
//! comparison has to accept both while still seeing a light go missing or a pass skipped,
//! which change whole regions. So the largest difference that counts is that of the
//! difference map after a 3×3 median: a spike of a few pixels vanishes, a region stays.
//! Two pictures made in one run on one machine are compared bit for bit instead
//! (`Difference::max == 0`).

use crate::png_out::Picture;

/// How two pictures of the same size differ.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Difference {
    /// Largest difference of one channel (0–255), over every pixel.
    pub max: u8,
    /// Largest difference left once lone pixels are discounted: the maximum of the 3×3
    /// median of the per-pixel difference (its largest channel).
    pub regional_max: u8,
    /// Pixels with some channel differing by more than [`Difference::NOISE`].
    pub pixels: u64,
    /// Pixels with some channel differing by more than [`Difference::REGION`].
    pub outliers: u64,
    /// Mean absolute difference over every channel.
    pub mean: f64,
}

impl Difference {
    /// Channel differences up to this are rounding everywhere.
    pub const NOISE: u8 = 2;
    /// The largest difference a region may have; a pixel off by more is an outlier.
    pub const REGION: u8 = 24;

    /// Whether the pictures match within the golden tolerance (`total_pixels` in each):
    /// - no region off by more than [`Difference::REGION`] (lone pixels may be);
    /// - at most 1 pixel in 2000 (and at least 8 may be) an outlier, off by more than that;
    /// - at most 0.5% of the pixels off by more than [`Difference::NOISE`];
    /// - a mean below 0.25 (of 255).
    pub fn within_tolerance(&self, total_pixels: u64) -> bool {
        self.regional_max <= Self::REGION
            && self.outliers <= (total_pixels / 2000).max(8)
            && self.pixels * 200 <= total_pixels
            && self.mean <= 0.25
    }
}

impl Picture {
    /// The difference to `other`; `None` when the sizes differ.
    pub fn difference(&self, other: &Picture) -> Option<Difference> {
        if (self.width, self.height) != (other.width, other.height)
            || self.rgba.len() != other.rgba.len()
        {
            return None;
        }
        let mut d = Difference::default();
        let mut sum = 0u64;
        let mut per_pixel = Vec::with_capacity(self.rgba.len() / 4);
        for (a, b) in self.rgba.chunks_exact(4).zip(other.rgba.chunks_exact(4)) {
            let mut worst = 0u8;
            for (x, y) in a.iter().zip(b) {
                let diff = x.abs_diff(*y);
                worst = worst.max(diff);
                sum += u64::from(diff);
            }
            d.max = d.max.max(worst);
            d.pixels += u64::from(worst > Difference::NOISE);
            d.outliers += u64::from(worst > Difference::REGION);
            per_pixel.push(worst);
        }
        d.mean = sum as f64 / self.rgba.len().max(1) as f64;
        d.regional_max = median_3x3_max(&per_pixel, self.width as usize, self.height as usize);
        Some(d)
    }

    /// This picture as another CPU's lavapipe might round it, for testing a tolerance: 1%
    /// of the pixels off by 1–2, and ten lone pixels off by 25–61 with neighbours off by
    /// 3–5 (what an AMD EPYC gave against a golden blessed on another x86-64 CPU).
    pub fn with_another_cpus_rounding(&self) -> Picture {
        let mut q = self.clone();
        let (w, h) = (self.width, self.height);
        if w < 16 || h < 12 {
            return q;
        }
        for i in 0..(w * h / 100) {
            let k = i.wrapping_mul(2_654_435_761) % (w * h);
            q.bump(k % w, k / w, if i % 2 == 0 { 2 } else { -1 });
        }
        for s in 0..10u32 {
            let (x, y) = (7 + s * 29 % (w - 14), 5 + s * 17 % (h - 10));
            q.bump(x, y, 25 + 4 * s as i16);
            q.bump(x + 1, y, 4);
            q.bump(x, y + 1, -5);
            q.bump(x - 1, y - 1, 3);
        }
        q
    }

    /// Adds `by` to the colour channels of pixel (`x`, `y`), saturating.
    fn bump(&mut self, x: u32, y: u32, by: i16) {
        let i = ((y * self.width + x) * 4) as usize;
        for c in &mut self.rgba[i..i + 3] {
            *c = (i16::from(*c) + by).clamp(0, 255) as u8;
        }
    }
}

/// The largest value of the 3×3 median filter of `map` (`width × height`, rows first);
/// at the border the window is clamped to the picture.
fn median_3x3_max(map: &[u8], width: usize, height: usize) -> u8 {
    let mut best = 0u8;
    let mut window = Vec::with_capacity(9);
    for y in 0..height {
        for x in 0..width {
            window.clear();
            for ny in y.saturating_sub(1)..(y + 2).min(height) {
                for nx in x.saturating_sub(1)..(x + 2).min(width) {
                    window.push(map[ny * width + nx]);
                }
            }
            let mid = window.len() / 2;
            let (_, median, _) = window.select_nth_unstable(mid);
            best = best.max(*median);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture with gradients and hard edges, like a rendered frame.
    fn scene(width: u32, height: u32) -> Picture {
        let mut rgba = Vec::with_capacity((width * height * 4) as usize);
        for y in 0..height {
            for x in 0..width {
                let edge = if (x / 16 + y / 16) % 2 == 0 { 60 } else { 0 };
                rgba.extend_from_slice(&[
                    (x * 255 / width) as u8 / 2 + edge,
                    (y * 255 / height) as u8 / 2 + edge,
                    128,
                    255,
                ]);
            }
        }
        Picture {
            width,
            height,
            rgba,
        }
    }

    #[test]
    fn another_cpus_rounding_is_within_the_tolerance() {
        let golden = scene(320, 180);
        let d = golden
            .with_another_cpus_rounding()
            .difference(&golden)
            .unwrap();
        assert!(d.max >= 25, "the perturbation has its spikes: {d:?}");
        assert!(d.within_tolerance(320 * 180), "{d:?}");
    }

    #[test]
    fn a_region_off_fails_even_among_rounding() {
        let golden = scene(320, 180);
        // A small light gone: a 6×6 patch darker by 30.
        let mut missing = golden.with_another_cpus_rounding();
        for y in 100..106 {
            for x in 200..206 {
                missing.bump(x, y, -30);
            }
        }
        let d = missing.difference(&golden).unwrap();
        assert!(d.regional_max > Difference::REGION, "{d:?}");
        assert!(!d.within_tolerance(320 * 180), "{d:?}");
        // A broad, faint change (a pass's contribution gone): many pixels off by 4.
        let mut faint = golden.clone();
        for y in 40..80 {
            for x in 40..120 {
                faint.bump(x, y, 4);
            }
        }
        let d = faint.difference(&golden).unwrap();
        assert!(!d.within_tolerance(320 * 180), "{d:?}");
        // Many scattered spikes are not rounding either.
        let mut speckled = golden.clone();
        for i in 0..40 {
            speckled.bump(3 + i * 7, 3 + i * 4, 80);
        }
        let d = speckled.difference(&golden).unwrap();
        assert_eq!(d.regional_max, 0, "{d:?}");
        assert!(!d.within_tolerance(320 * 180), "{d:?}");
    }

    #[test]
    fn the_median_keeps_regions_and_drops_spikes() {
        let mut map = vec![0u8; 10 * 10];
        map[5 * 10 + 5] = 200;
        map[5 * 10 + 6] = 100;
        assert_eq!(median_3x3_max(&map, 10, 10), 0);
        for y in 2..5 {
            for x in 2..5 {
                map[y * 10 + x] = 50;
            }
        }
        assert_eq!(median_3x3_max(&map, 10, 10), 50);
    }
}
