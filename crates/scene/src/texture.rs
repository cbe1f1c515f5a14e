//! Textures: CPU mip-chain generation (2×2 box filter, in linear space for sRGB data so
//! distant texels do not darken) and the procedural patterns scene files can name, so the
//! built-in scene needs no image files.

use crate::Texture;

/// Number of levels of a full chain down to 1×1: `floor(log2(max(w, h))) + 1`.
pub fn mip_count(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0 + 0.5) as u8
}

/// The full mip chain of an RGBA8 image, level 0 first (`level0` is moved in as is). Each
/// level halves (rounding down, at least 1) and averages the 2×2 texels above it, clamping at
/// odd edges. For `srgb` data RGB is averaged in linear space; alpha is always linear.
/// `level0.len()` must be `width * height * 4`.
pub fn mip_chain(level0: Vec<u8>, width: u32, height: u32, srgb: bool) -> Vec<Vec<u8>> {
    let lut: Vec<f32> = (0..=255u8).map(srgb_to_linear).collect();
    let mut levels = vec![level0];
    let (mut w, mut h) = (width.max(1) as usize, height.max(1) as usize);
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let src = &levels[levels.len() - 1];
        let mut dst = vec![0u8; nw * nh * 4];
        for y in 0..nh {
            let ys = [(2 * y).min(h - 1), (2 * y + 1).min(h - 1)];
            for x in 0..nw {
                let xs = [(2 * x).min(w - 1), (2 * x + 1).min(w - 1)];
                let mut sum = [0f32; 4];
                for sy in ys {
                    for sx in xs {
                        let o = (sy * w + sx) * 4;
                        for (c, s) in sum.iter_mut().enumerate() {
                            let v = src[o + c];
                            *s += if srgb && c < 3 {
                                lut[v as usize]
                            } else {
                                v as f32
                            };
                        }
                    }
                }
                let o = (y * nw + x) * 4;
                for c in 0..4 {
                    let avg = sum[c] / 4.0;
                    dst[o + c] = if srgb && c < 3 {
                        linear_to_srgb(avg)
                    } else {
                        (avg + 0.5) as u8
                    };
                }
            }
        }
        levels.push(dst);
        (w, h) = (nw, nh);
    }
    levels
}

impl Texture {
    /// A texture from RGBA8 level-0 data, with its mip chain generated.
    /// `rgba.len()` must be `width * height * 4`.
    pub fn from_rgba8(
        name: impl Into<String>,
        width: u32,
        height: u32,
        srgb: bool,
        rgba: Vec<u8>,
    ) -> Texture {
        Texture {
            name: name.into(),
            width,
            height,
            srgb,
            mips: mip_chain(rgba, width, height, srgb),
        }
    }
}

/// The procedural patterns a scene file's `texture = "..."` can name.
pub const PATTERNS: &[&str] = &["checker", "tiles", "bricks", "grid"];

/// Generates a procedural sRGB base-colour texture (`size`×`size`, a power of two) modulated
/// by the material's base colour in the shader: light/dark values around 1.0 and 0.6 so the
/// factor keeps its meaning. `None` for an unknown pattern name.
pub fn pattern(name: &str, size: u32) -> Option<Texture> {
    let s = size as usize;
    let mut rgba = vec![0u8; s * s * 4];
    let put = |rgba: &mut [u8], x: usize, y: usize, v: [u8; 3]| {
        let o = (y * s + x) * 4;
        rgba[o..o + 4].copy_from_slice(&[v[0], v[1], v[2], 255]);
    };
    let light = [235, 235, 235];
    let dark = [150, 150, 150];
    match name {
        "checker" => {
            let cell = (s / 8).max(1);
            for y in 0..s {
                for x in 0..s {
                    let on = ((x / cell) + (y / cell)) % 2 == 0;
                    put(&mut rgba, x, y, if on { light } else { dark });
                }
            }
        }
        "tiles" => {
            // 4×4 square tiles with thin dark grout and a slight per-tile shade.
            let cell = (s / 4).max(1);
            let grout = (s / 64).max(1);
            for y in 0..s {
                for x in 0..s {
                    let (tx, ty) = (x / cell, y / cell);
                    let in_grout = x % cell < grout || y % cell < grout;
                    let shade = 215 + ((tx * 7 + ty * 13) % 5) as u8 * 8;
                    put(
                        &mut rgba,
                        x,
                        y,
                        if in_grout {
                            [110, 105, 100]
                        } else {
                            [shade, shade, shade - 10]
                        },
                    );
                }
            }
        }
        "bricks" => {
            // Running bond: 8 rows of 4 bricks, every other row offset by half a brick.
            let (bh, bw) = ((s / 8).max(1), (s / 4).max(1));
            let mortar = (s / 64).max(1);
            for y in 0..s {
                let row = y / bh;
                let off = if row % 2 == 1 { bw / 2 } else { 0 };
                for x in 0..s {
                    let xx = (x + off) % s;
                    let col = xx / bw;
                    let in_mortar = y % bh < mortar || xx % bw < mortar;
                    let tint = ((row * 5 + col * 3) % 4) as u8 * 10;
                    put(
                        &mut rgba,
                        x,
                        y,
                        if in_mortar {
                            [200, 195, 185]
                        } else {
                            [180 + tint, 95 + tint / 2, 70]
                        },
                    );
                }
            }
        }
        "grid" => {
            let cell = (s / 8).max(1);
            let line = (s / 128).max(1);
            for y in 0..s {
                for x in 0..s {
                    let on = x % cell < line || y % cell < line;
                    put(&mut rgba, x, y, if on { [60, 60, 60] } else { light });
                }
            }
        }
        _ => return None,
    }
    Some(Texture::from_rgba8(name, size, size, true, rgba))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_chain_sizes() {
        for (w, h, n) in [
            (1, 1, 1),
            (2, 2, 2),
            (256, 256, 9),
            (300, 17, 9),
            (1, 64, 7),
            (5, 3, 3),
        ] {
            assert_eq!(mip_count(w, h), n, "{w}x{h}");
            let chain = mip_chain(vec![128; (w * h * 4) as usize], w, h, true);
            assert_eq!(chain.len(), n as usize, "{w}x{h}");
            for (i, level) in chain.iter().enumerate() {
                let (lw, lh) = ((w >> i).max(1), (h >> i).max(1));
                assert_eq!(level.len(), (lw * lh * 4) as usize, "{w}x{h} level {i}");
            }
            assert_eq!(chain.last().map(Vec::len), Some(4));
        }
    }

    #[test]
    fn srgb_average_is_linear() {
        // Black and white average to linear 0.5, which is sRGB 188, not 128.
        let level0 = [[0, 0, 0, 0], [255, 255, 255, 255]].concat();
        let srgb = mip_chain(level0.clone(), 2, 1, true);
        assert_eq!(srgb[1], vec![188, 188, 188, 128]);
        let linear = mip_chain(level0, 2, 1, false);
        assert_eq!(linear[1], vec![128, 128, 128, 128]);
    }

    #[test]
    fn conversions_round_trip() {
        for v in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(v)), v);
        }
    }

    #[test]
    fn patterns_generate() {
        for p in PATTERNS {
            let t = pattern(p, 64).unwrap();
            assert_eq!(t.mips.len(), 7);
            assert!(t.srgb);
            // Not a flat colour.
            assert!(t.mips[0].chunks(4).any(|c| c != &t.mips[0][..4]), "{p}");
        }
        assert!(pattern("plaid", 64).is_none());
    }
}
