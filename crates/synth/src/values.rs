//! The value vocabulary shared by the synthetic shaders and the CPU model: the hash, the
//! per-pass key, how a 5-bit pixel value is stored in each format and read back.
//!
//! Every image pixel holds a value in `0..32` in its first channel (depth for depth
//! formats): float-like formats store `v / 31`, integer formats store `v`. Five bits survive
//! every format the synthetic passes accept (8-bit UNORM and sRGB, 10/11-bit floats,
//! 16-bit depth), so decoding by rounding is exact. Buffers hold 32-bit words: a 4-word
//! header `[3, 1, 1, 0]` (valid indirect draw and dispatch arguments, rewritten by every
//! writer) followed by data words.

use tessera_graph::Format;

/// Pixel values are in `0..VALUES`.
pub const VALUES: u32 = 32;
/// The buffer header: indirect arguments that draw one fullscreen triangle or dispatch
/// three workgroups.
pub const HEADER: [u32; 4] = [3, 1, 1, 0];

/// GLSL source of [`mix`], kept identical to it.
pub const GLSL_MIX: &str = include_str!("../../../shaders/synth_common.glsl");

/// The 32-bit mixing function of the synthetic passes (same as `mix` in
/// `shaders/synth_common.glsl`).
pub fn mix(a: u32, b: u32) -> u32 {
    let mut h = a ^ b.wrapping_mul(0x9E37_79B9);
    h ^= h >> 16;
    h = h.wrapping_mul(0x7FEB_352D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846C_A68B);
    h ^= h >> 16;
    h
}

/// The key of a pass: FNV-1a of its name.
pub fn key(name: &str) -> u32 {
    name.bytes().fold(0x811C_9DC5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The salt of [`untouched`] (spelled the same in the generated GLSL).
pub const UNTOUCHED_SALT: u32 = 0x5EED_0000;

/// Whether a partial colour write (use `j` of the pass with key `pass_key`) leaves pixel
/// `(x, y)` untouched: a quarter of the pixels, by position and use only (never by values
/// read, so the model knows it even where content is undefined).
pub fn untouched(pass_key: u32, j: u32, x: u32, y: u32) -> bool {
    mix(mix(pass_key, x + y * 65536), UNTOUCHED_SALT | j) & 3 == 0
}

/// How a format's first channel is read and written by shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Floating point, UNORM, SNORM, sRGB and depth: `v / 31`.
    Float,
    /// Unsigned integer: `v`.
    Uint,
    /// Signed integer: `v`.
    Sint,
}

/// The shader class of a format.
pub fn class(f: Format) -> Class {
    use Format::*;
    match f {
        R8_UINT | R8G8B8A8_UINT | R16_UINT | R32_UINT | R32G32_UINT | R32G32B32A32_UINT
        | S8_UINT => Class::Uint,
        R32_SINT => Class::Sint,
        _ => Class::Float,
    }
}

/// GLSL storage-image format qualifier, `None` where GLSL has none (sRGB, BGRA, ...).
pub fn storage_qualifier(f: Format) -> Option<&'static str> {
    use Format::*;
    Some(match f {
        R8_UNORM => "r8",
        R8_UINT => "r8ui",
        R8G8_UNORM => "rg8",
        R8G8B8A8_UNORM => "rgba8",
        R8G8B8A8_SNORM => "rgba8_snorm",
        R8G8B8A8_UINT => "rgba8ui",
        A2B10G10R10_UNORM_PACK32 => "rgb10_a2",
        B10G11R11_UFLOAT_PACK32 => "r11f_g11f_b10f",
        R16_UNORM => "r16",
        R16_SFLOAT => "r16f",
        R16_UINT => "r16ui",
        R16G16_UNORM => "rg16",
        R16G16_SNORM => "rg16_snorm",
        R16G16_SFLOAT => "rg16f",
        R16G16B16A16_UNORM => "rgba16",
        R16G16B16A16_SFLOAT => "rgba16f",
        R32_SFLOAT => "r32f",
        R32_UINT => "r32ui",
        R32_SINT => "r32i",
        R32G32_SFLOAT => "rg32f",
        R32G32_UINT => "rg32ui",
        R32G32B32A32_SFLOAT => "rgba32f",
        R32G32B32A32_UINT => "rgba32ui",
        _ => return None,
    })
}

/// Bytes per texel of what `vkCmdCopyImageToBuffer` writes for the aspect the synthetic
/// passes use (depth only for depth/stencil formats); `None` for stencil-only formats.
pub fn copy_bytes(f: Format) -> Option<u32> {
    use Format::*;
    Some(match f {
        D16_UNORM => 2,
        D32_SFLOAT | X8_D24_UNORM_PACK32 | D24_UNORM_S8_UINT | D32_SFLOAT_S8_UINT => 4,
        S8_UINT => return None,
        other => other.bytes_per_texel(),
    })
}

fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1F);
    let m = f32::from(h & 0x3FF);
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 => f32::NAN,
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// A float with `mbits` mantissa bits and a 5-bit exponent (the packed small floats).
fn small_float(bits: u32, mbits: u32) -> f32 {
    let m = (bits & ((1 << mbits) - 1)) as f32;
    let e = ((bits >> mbits) & 0x1F) as i32;
    match e {
        0 => m / (1 << mbits) as f32 * 2f32.powi(-14),
        31 => f32::NAN,
        _ => (1.0 + m / (1 << mbits) as f32) * 2f32.powi(e - 15),
    }
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Decodes the value of one texel copied out of an image (see [`copy_bytes`]).
pub fn decode(f: Format, t: &[u8]) -> Option<u32> {
    use Format::*;
    let u8_ = |i: usize| t.get(i).copied();
    let u16_ = |i: usize| Some(u16::from_le_bytes([*t.get(i)?, *t.get(i + 1)?]));
    let u32_ = |i: usize| Some(u32::from_le_bytes(t.get(i..i + 4)?.try_into().ok()?));
    let fl = |x: f32| {
        let v = (x * (VALUES - 1) as f32).round();
        (v.is_finite() && (0.0..VALUES as f32).contains(&v)).then_some(v as u32)
    };
    match f {
        R8_UNORM | R8G8_UNORM | R8G8B8A8_UNORM => fl(f32::from(u8_(0)?) / 255.0),
        B8G8R8A8_UNORM => fl(f32::from(u8_(2)?) / 255.0),
        R8G8B8A8_SRGB => fl(srgb_to_linear(f32::from(u8_(0)?) / 255.0)),
        B8G8R8A8_SRGB => fl(srgb_to_linear(f32::from(u8_(2)?) / 255.0)),
        R8G8B8A8_SNORM => fl((f32::from(u8_(0)? as i8) / 127.0).max(-1.0)),
        R8_UINT | R8G8B8A8_UINT => Some(u32::from(u8_(0)?)),
        A2B10G10R10_UNORM_PACK32 => fl((u32_(0)? & 0x3FF) as f32 / 1023.0),
        A2R10G10B10_UNORM_PACK32 => fl(((u32_(0)? >> 20) & 0x3FF) as f32 / 1023.0),
        B10G11R11_UFLOAT_PACK32 => fl(small_float(u32_(0)? & 0x7FF, 6)),
        E5B9G9R9_UFLOAT_PACK32 => {
            let w = u32_(0)?;
            let e = (w >> 27) as i32;
            fl((w & 0x1FF) as f32 * 2f32.powi(e - 15 - 9))
        }
        R16_UNORM | R16G16_UNORM | R16G16B16A16_UNORM | D16_UNORM => {
            fl(f32::from(u16_(0)?) / 65535.0)
        }
        R16G16_SNORM => fl((f32::from(u16_(0)? as i16) / 32767.0).max(-1.0)),
        R16_SFLOAT | R16G16_SFLOAT | R16G16B16A16_SFLOAT => fl(half_to_f32(u16_(0)?)),
        R16_UINT => Some(u32::from(u16_(0)?)),
        R32_SFLOAT | R32G32_SFLOAT | R32G32B32A32_SFLOAT | D32_SFLOAT | D32_SFLOAT_S8_UINT => {
            fl(f32::from_le_bytes(t.get(0..4)?.try_into().ok()?))
        }
        R32_UINT | R32G32_UINT | R32G32B32A32_UINT => u32_(0),
        R32_SINT => u32_(0),
        X8_D24_UNORM_PACK32 | D24_UNORM_S8_UINT => fl((u32_(0)? & 0xFF_FFFF) as f32 / 16_777_215.0),
        S8_UINT => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glsl_and_rust_mix_are_the_same_formula() {
        // The GLSL file spells the same constants; a change on one side shows up here.
        for c in [
            "0x9E3779B9u",
            "0x7FEB352Du",
            "0x846CA68Bu",
            ">> 16",
            ">> 15",
        ] {
            assert!(GLSL_MIX.contains(c), "{c}");
        }
        assert_ne!(mix(1, 2), mix(2, 1));
        assert_eq!(key(""), 0x811C_9DC5);
        assert_ne!(key("gbuffer"), key("lighting"));
    }

    #[test]
    fn every_value_survives_the_formats() {
        // Encode as the GPU would (round to nearest representable) and decode.
        for v in 0..VALUES {
            let x = v as f32 / 31.0;
            assert_eq!(
                decode(
                    Format::R8G8B8A8_UNORM,
                    &[(x * 255.0).round() as u8, 0, 0, 0]
                ),
                Some(v)
            );
            let s = if x <= 0.003_130_8 {
                x * 12.92
            } else {
                1.055 * x.powf(1.0 / 2.4) - 0.055
            };
            assert_eq!(
                decode(Format::R8G8B8A8_SRGB, &[(s * 255.0).round() as u8, 0, 0, 0]),
                Some(v)
            );
            let w = (x * 1023.0).round() as u32;
            assert_eq!(
                decode(Format::A2B10G10R10_UNORM_PACK32, &w.to_le_bytes()),
                Some(v)
            );
            assert_eq!(decode(Format::D32_SFLOAT, &x.to_le_bytes()), Some(v));
            let d24 = (x * 16_777_215.0).round() as u32;
            assert_eq!(
                decode(Format::D24_UNORM_S8_UINT, &d24.to_le_bytes()),
                Some(v)
            );
            assert_eq!(decode(Format::R32_UINT, &v.to_le_bytes()), Some(v));
        }
        // 1.0 as a half float and as an 11-bit float.
        assert_eq!(
            decode(Format::R16_SFLOAT, &0x3C00u16.to_le_bytes()),
            Some(31)
        );
        assert_eq!(
            decode(Format::B10G11R11_UFLOAT_PACK32, &(15u32 << 6).to_le_bytes()),
            Some(31)
        );
        assert_eq!(decode(Format::B8G8R8A8_UNORM, &[0, 0, 255, 0]), Some(31));
    }
}
