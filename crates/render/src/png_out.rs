//! Writing the rendered picture as PNG.

use crate::RenderError;
use std::path::Path;

/// An 8-bit RGBA picture, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
}

impl Picture {
    /// Writes it to `path` as an sRGB PNG (written beside, then renamed: an existing file is
    /// never left half-written).
    pub fn write_png(&self, path: &Path) -> Result<(), RenderError> {
        let err =
            |e: &dyn std::fmt::Display| RenderError::Output(format!("{}: {e}", path.display()));
        let tmp = path.with_extension("png.partial");
        let file = std::fs::File::create(&tmp).map_err(|e| err(&e))?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let result = enc
            .write_header()
            .and_then(|mut w| w.write_image_data(&self.rgba).and_then(|()| w.finish()))
            .map_err(|e| err(&e));
        if let Err(e) = result {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        std::fs::rename(&tmp, path).map_err(|e| err(&e))
    }

    /// Reads a PNG written by [`Picture::write_png`] (8-bit RGBA).
    pub fn read_png(path: &Path) -> Result<Picture, RenderError> {
        let err =
            |e: &dyn std::fmt::Display| RenderError::Output(format!("{}: {e}", path.display()));
        let file = std::fs::File::open(path).map_err(|e| err(&e))?;
        let mut dec = png::Decoder::new(std::io::BufReader::new(file));
        dec.set_transformations(png::Transformations::EXPAND);
        let mut reader = dec.read_info().map_err(|e| err(&e))?;
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
        if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
            return Err(err(&"not an 8-bit RGBA PNG"));
        }
        buf.truncate(info.buffer_size());
        Ok(Picture {
            width: info.width,
            height: info.height,
            rgba: buf,
        })
    }
}

/// How two pictures of the same size differ.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Difference {
    /// Largest difference of one channel (0–255).
    pub max: u8,
    /// Pixels with some channel differing by more than [`Difference::NOISE`].
    pub pixels: u64,
    /// Mean absolute difference over every channel.
    pub mean: f64,
}

impl Difference {
    /// Channel differences up to this are rounding (a rasteriser built with another LLVM).
    pub const NOISE: u8 = 2;

    /// Whether the pictures match within the golden tolerance: no channel off by more than
    /// 24, at most 0.5% of the pixels off by more than [`Difference::NOISE`], mean below
    /// 0.25 (of 255).
    pub fn within_tolerance(&self, total_pixels: u64) -> bool {
        self.max <= 24 && self.pixels * 200 <= total_pixels && self.mean <= 0.25
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
        for (a, b) in self.rgba.chunks_exact(4).zip(other.rgba.chunks_exact(4)) {
            let mut worst = 0u8;
            for (x, y) in a.iter().zip(b) {
                let diff = x.abs_diff(*y);
                worst = worst.max(diff);
                sum += u64::from(diff);
            }
            d.max = d.max.max(worst);
            d.pixels += u64::from(worst > Difference::NOISE);
        }
        d.mean = sum as f64 / self.rgba.len().max(1) as f64;
        Some(d)
    }
}
