//! Writing the rendered picture as PNG.

use crate::RenderError;
use std::io::Write as _;
use std::path::Path;
use tessera_fsio::Output;

/// The largest PNG file read (a 16384² RGBA picture, uncompressed, is 1 GiB).
const MAX_PNG_BYTES: u64 = 1 << 30;

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
    /// Writes it to `path` as an sRGB PNG, checking the path as an output first (see
    /// [`Picture::write_png_to`]).
    pub fn write_png(&self, path: &Path) -> Result<(), RenderError> {
        let out =
            Output::new("the picture", path).map_err(|e| RenderError::Output(e.to_string()))?;
        self.write_png_to(&out)
    }

    /// Writes it as an sRGB PNG to `out`, checked by the caller before rendering: through a
    /// temporary file renamed over the target, so an existing file is never left
    /// half-written and a failed write leaves no temporary file behind.
    pub fn write_png_to(&self, out: &Output) -> Result<(), RenderError> {
        out.write_with(|file| {
            let mut buffered = std::io::BufWriter::new(file);
            let mut enc = png::Encoder::new(&mut buffered, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
            enc.write_header()
                .and_then(|mut w| w.write_image_data(&self.rgba).and_then(|()| w.finish()))
                .map_err(std::io::Error::other)?;
            buffered.flush()
        })
        .map_err(|e| RenderError::Output(e.to_string()))
    }

    /// Reads a PNG written by [`Picture::write_png`] (8-bit RGBA).
    pub fn read_png(path: &Path) -> Result<Picture, RenderError> {
        let err =
            |e: &dyn std::fmt::Display| RenderError::Output(format!("{}: {e}", path.display()));
        let bytes = tessera_fsio::read_limited(path, MAX_PNG_BYTES, "PNG pictures")
            .map_err(|e| RenderError::Output(e.to_string()))?;
        let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
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

    /// The picture turned a quarter turn clockwise `turns` times: what a presentation
    /// engine shows of an image presented with that surface transform (the Vulkan
    /// specification's `ROTATE_*_BIT_KHR`). The top row becomes the right column.
    pub fn turned_cw(&self, turns: u32) -> Picture {
        let mut p = self.clone();
        for _ in 0..turns % 4 {
            let (w, h) = (p.width as usize, p.height as usize);
            let mut rgba = vec![0u8; w * h * 4];
            // Source (x, y) lands at (h - 1 - y, x) of the h × w result.
            for y in 0..h {
                for x in 0..w {
                    let d = (x * h + (h - 1 - y)) * 4;
                    rgba[d..d + 4].copy_from_slice(&p.rgba[(y * w + x) * 4..][..4]);
                }
            }
            p = Picture {
                width: h as u32,
                height: w as u32,
                rgba,
            };
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::Picture;

    #[test]
    fn a_quarter_turn_makes_the_top_row_the_right_column() {
        // 2×1: pixels A, B; turned once: 1×2, A above B; four turns: itself.
        let p = Picture {
            width: 2,
            height: 1,
            rgba: vec![1, 1, 1, 1, 2, 2, 2, 2],
        };
        let q = p.turned_cw(1);
        assert_eq!((q.width, q.height), (1, 2));
        assert_eq!(q.rgba, [1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(p.turned_cw(4), p);
        let r = Picture {
            width: 1,
            height: 2,
            rgba: vec![1, 1, 1, 1, 2, 2, 2, 2],
        };
        // A above B, turned clockwise: B left of A.
        assert_eq!(r.turned_cw(1).rgba, [2, 2, 2, 2, 1, 1, 1, 1]);
        assert_eq!(r.turned_cw(4), r);
    }
}
