//! `overlay`: lines of text over the output, top left (the desktop app's FPS, timings, plan
//! figures and switches), drawn through the graph as the frame's last raster pass.
//!
//! The text changes every frame, the graph must not: a changed graph re-plans. So what the
//! pass declares never depends on the text. The text is packed into a fixed-size grid of
//! [`COLUMNS`] × [`ROWS`] character codes with one colour per row, plus the 8×8 glyph bits
//! of the `font8x8` crate (ASCII 0–127, 1 KiB), one uniform buffer of [`GRID_BYTES`]
//! (`overlay text`) that the frame's `frame constants` pass writes with the other per-frame
//! data. Longer lines are cut, further lines dropped, characters outside printable ASCII
//! shown as `?`. The glyphs travel with the text (1 KiB per frame) rather than as a
//! persistent buffer: nothing for the renderer to own or import.
//!
//! The pass (`overlay.frag`, a full-screen triangle) loads the output and blends over it: a
//! translucent dark panel behind the lines, the glyphs opaque in their line's colour,
//! scaled by an integer factor of the output's shorter side ([`scale_for`]). Outside the panel it
//! discards, so those pixels keep their bytes exactly. The panel's rectangle is part of the
//! grid (data, not declaration): [`OverlayText::panel`] says where it is.

use crate::builder::{BufferRef, ImageRef};
use crate::gpu::descriptors::{declared_sets, declared_types};
use crate::gpu::frame_data::update_buffer;
use crate::gpu::pass::{FrameBuilder, PassContext};
use crate::RenderError;
use tessera_graph::PassKind;

/// Characters per line the grid holds (longer lines are cut).
pub const COLUMNS: usize = 120;
/// Lines the grid holds (further lines are dropped).
pub const ROWS: usize = 48;
/// Pixels per glyph side at scale 1.
pub const GLYPH: u32 = 8;
/// Pixels per line at scale 1 (a glyph and two rows of spacing).
pub const LINE_HEIGHT: u32 = 10;
/// Pixels between the panel's edge and the text at scale 1.
pub const PADDING: u32 = 4;
/// Pixels between the output's top-left corner and the panel at scale 1.
pub const MARGIN: u32 = 8;
/// What stands for a character the font does not have.
pub const REPLACEMENT: u8 = b'?';

/// `u32` words of the grid: header (4), panel (4), colours (one per row), glyphs (2 per
/// ASCII code), text (4 codes per word); every block a whole number of `uvec4`s (std140).
pub const GRID_WORDS: usize = 4 + 4 + ROWS + 128 * 2 + ROWS * COLUMNS / 4;
/// Bytes of the `overlay text` uniform buffer.
pub const GRID_BYTES: u64 = (GRID_WORDS * 4) as u64;

const COLORS_AT: usize = 8;
const FONT_AT: usize = COLORS_AT + ROWS;
const TEXT_AT: usize = FONT_AT + 128 * 2;
const _: () = assert!(
    (ROWS * COLUMNS).is_multiple_of(16) && ROWS.is_multiple_of(4) && GRID_BYTES <= 16384,
    "the grid's blocks are whole uvec4s and fit every device's uniform range"
);

/// Text the overlay pass draws over the output, top-left, one entry per line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayText {
    /// The lines, top to bottom.
    pub lines: Vec<OverlayLine>,
}

/// One line of the overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct OverlayLine {
    /// The text (printable ASCII; anything else is drawn as `?`).
    pub text: String,
    /// sRGB colour of the glyphs.
    pub color: [u8; 3],
}

impl OverlayLine {
    /// A line of `text` in `color`.
    pub fn new(text: impl Into<String>, color: [u8; 3]) -> OverlayLine {
        OverlayLine {
            text: text.into(),
            color,
        }
    }
}

/// A rectangle of the output in pixels (origin top left).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl Rect {
    /// Whether pixel (`x`, `y`) is inside.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x && y >= self.y && x - self.x < self.width && y - self.y < self.height
    }
}

/// The glyph scale for an output of `width` × `height` pixels: 2 when its shorter side is
/// over 720 px, else 1. The shorter side, so that a portrait phone screen keeps enough
/// columns for the overlay's lines.
pub fn scale_for(width: u32, height: u32) -> u32 {
    if width.min(height) <= 720 {
        1
    } else {
        2
    }
}

/// The grid code of `c`: printable ASCII as is, anything else [`REPLACEMENT`].
fn code(c: char) -> u8 {
    if (' '..='~').contains(&c) {
        c as u8
    } else {
        REPLACEMENT
    }
}

impl OverlayText {
    /// The lines the grid keeps, each as the characters it keeps.
    fn kept(&self) -> impl Iterator<Item = (&OverlayLine, usize)> {
        self.lines
            .iter()
            .take(ROWS)
            .map(|l| (l, l.text.chars().take(COLUMNS).count()))
    }

    /// Where the panel lies on an output of `width` × `height` (clipped to it); `None` when
    /// there are no lines (nothing is drawn).
    pub fn panel(&self, width: u32, height: u32) -> Option<Rect> {
        let (lines, longest) = self
            .kept()
            .fold((0u32, 0u32), |(n, m), (_, c)| (n + 1, m.max(c as u32)));
        if lines == 0 {
            return None;
        }
        let s = scale_for(width, height);
        let (x, y) = (MARGIN * s, MARGIN * s);
        let w = (longest * GLYPH + 2 * PADDING) * s;
        let h = (lines * LINE_HEIGHT + 2 * PADDING) * s;
        let r = Rect {
            x,
            y,
            width: w.min(width.saturating_sub(x)),
            height: h.min(height.saturating_sub(y)),
        };
        (r.width > 0 && r.height > 0).then_some(r)
    }
}

/// The packed grid `overlay.frag` reads (std140, [`GRID_WORDS`] words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverlayGrid {
    words: Vec<u32>,
}

impl OverlayGrid {
    /// Packs `text` for an output of `width` × `height`.
    pub fn pack(text: &OverlayText, width: u32, height: u32) -> OverlayGrid {
        let mut words = vec![0u32; GRID_WORDS];
        let panel = text.panel(width, height).unwrap_or_default();
        let mut longest = 0;
        let mut lines = 0;
        for (row, (line, kept)) in text.kept().enumerate() {
            lines += 1;
            longest = longest.max(kept);
            let [r, g, b] = line.color;
            words[COLORS_AT + row] = u32::from_le_bytes([r, g, b, 0]);
            for (col, c) in line.text.chars().take(COLUMNS).enumerate() {
                let i = row * COLUMNS + col;
                words[TEXT_AT + i / 4] |= u32::from(code(c)) << (8 * (i % 4));
            }
        }
        words[..4].copy_from_slice(&[lines, longest as u32, scale_for(width, height), 0]);
        words[4..8].copy_from_slice(&[panel.x, panel.y, panel.width, panel.height]);
        for (g, rows) in font8x8::legacy::BASIC_LEGACY.iter().enumerate() {
            let at = FONT_AT + 2 * g;
            words[at] = u32::from_le_bytes([rows[0], rows[1], rows[2], rows[3]]);
            words[at + 1] = u32::from_le_bytes([rows[4], rows[5], rows[6], rows[7]]);
        }
        OverlayGrid { words }
    }

    /// The words as uploaded.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Lines kept.
    pub fn lines(&self) -> usize {
        self.words[0] as usize
    }

    /// The longest kept line, in characters.
    pub fn longest(&self) -> usize {
        self.words[1] as usize
    }

    /// The glyph scale.
    pub fn scale(&self) -> u32 {
        self.words[2]
    }

    /// The panel's rectangle (0 × 0 without lines).
    pub fn panel(&self) -> Rect {
        let p = &self.words[4..8];
        Rect {
            x: p[0],
            y: p[1],
            width: p[2],
            height: p[3],
        }
    }

    /// The code at `row`, `col` (0: nothing there).
    pub fn code(&self, row: usize, col: usize) -> u8 {
        if row >= ROWS || col >= COLUMNS {
            return 0;
        }
        let i = row * COLUMNS + col;
        (self.words[TEXT_AT + i / 4] >> (8 * (i % 4))) as u8
    }

    /// Row `row`'s text as packed (codes up to the first 0).
    pub fn row_text(&self, row: usize) -> String {
        (0..COLUMNS)
            .map(|c| self.code(row, c))
            .take_while(|&c| c != 0)
            .map(char::from)
            .collect()
    }

    /// Row `row`'s colour.
    pub fn color(&self, row: usize) -> [u8; 3] {
        let [r, g, b, _] = self.words[COLORS_AT + row.min(ROWS - 1)].to_le_bytes();
        [r, g, b]
    }
}

/// The transient `overlay text` uniform buffer, written by `frame constants`.
pub fn declare_buffer(fb: &mut FrameBuilder<'_>) -> BufferRef {
    fb.buffer("overlay text", GRID_BYTES)
}

/// Records the grid into `buffer` (in a transfer pass that declared `copy_to(buffer)`).
pub fn upload(
    pc: &PassContext<'_, '_, '_>,
    buffer: BufferRef,
    grid: &OverlayGrid,
) -> Result<(), RenderError> {
    update_buffer(
        pc.gpu,
        pc.cmd,
        pc.buffer(buffer)?,
        bytemuck::cast_slice(grid.words()),
    );
    Ok(())
}

/// Declares the `overlay` pass: reads `text` (uniform), blends over `output` (loaded).
pub fn declare(fb: &mut FrameBuilder<'_>, output: ImageRef, text: BufferRef) {
    fb.pass("overlay", PassKind::Raster, |p| {
        p.uniform(text).blend(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let types = declared_types(pc, 0)?;
            let pipeline = pc.pipelines()?.borrow_mut().shaders.screen_over(
                pc.gpu,
                "overlay.frag",
                &types,
                0,
                (rp, sp),
            )?;
            let sets = declared_sets(pc, &[pipeline.set_layout])?;
            pipeline.draw_fullscreen(pc, extent, sets[0], &[]);
            Ok(())
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[&str]) -> OverlayText {
        OverlayText {
            lines: lines
                .iter()
                .enumerate()
                .map(|(i, t)| OverlayLine::new(*t, [i as u8, 2, 3]))
                .collect(),
        }
    }

    #[test]
    fn the_scale_follows_the_shorter_side() {
        for ((w, h), scale) in [
            ((1280, 720), 1),
            ((1920, 1080), 2),
            ((1080, 2400), 2),
            ((540, 960), 1),
            ((720, 1280), 1),
        ] {
            assert_eq!(scale_for(w, h), scale, "{w}x{h}");
        }
    }

    #[test]
    fn lines_are_packed_with_their_colours() {
        let g = OverlayGrid::pack(&text(&["FPS 60", "", "gpu 1.5 ms"]), 320, 180);
        assert_eq!(g.words().len(), GRID_WORDS);
        assert_eq!((g.lines(), g.longest(), g.scale()), (3, 10, 1));
        assert_eq!(g.row_text(0), "FPS 60");
        assert_eq!(g.row_text(1), "");
        assert_eq!(g.row_text(2), "gpu 1.5 ms");
        assert_eq!(g.row_text(3), "");
        assert_eq!(g.color(2), [2, 2, 3]);
        // The font went along: 'A' has pixels, ' ' none.
        let glyph = |c: usize| &g.words()[FONT_AT + 2 * c..FONT_AT + 2 * c + 2];
        assert_ne!(glyph(b'A' as usize), [0, 0]);
        assert_eq!(glyph(b' ' as usize), [0, 0]);
        assert_eq!(
            g.panel(),
            Rect {
                x: MARGIN,
                y: MARGIN,
                width: 10 * GLYPH + 2 * PADDING,
                height: 3 * LINE_HEIGHT + 2 * PADDING,
            }
        );
    }

    #[test]
    fn long_lines_are_cut_and_extra_rows_dropped() {
        let long = "x".repeat(COLUMNS + 30);
        let many: Vec<String> = (0..ROWS + 5).map(|i| format!("line {i}")).collect();
        let mut t = text(&many.iter().map(String::as_str).collect::<Vec<_>>());
        t.lines[1].text = long;
        let g = OverlayGrid::pack(&t, 1920, 1080);
        assert_eq!(g.lines(), ROWS);
        assert_eq!(g.longest(), COLUMNS);
        assert_eq!(g.row_text(1), "x".repeat(COLUMNS));
        assert_eq!(g.row_text(ROWS - 1), format!("line {}", ROWS - 1));
        assert_eq!(g.code(ROWS, 0), 0, "no row past the grid");
        assert_eq!(g.scale(), 2, "above 720 px the glyphs double");
        // 48 lines fit 1080 rows at 2×; 120 columns do not fit 1920: the panel is clipped.
        let p = g.panel();
        assert_eq!((p.x, p.y), (2 * MARGIN, 2 * MARGIN));
        assert_eq!(p.width, 1920 - 2 * MARGIN);
        assert_eq!(p.height, (ROWS as u32 * LINE_HEIGHT + 2 * PADDING) * 2);
    }

    #[test]
    fn non_ascii_becomes_a_question_mark() {
        let g = OverlayGrid::pack(&text(&["GPU 2,5 µs\tünd ✓~"]), 640, 360);
        assert_eq!(g.row_text(0), "GPU 2,5 ?s??nd ?~");
        // A multi-byte character counts once towards the cut.
        let t = text(&[&"é".repeat(COLUMNS + 1)]);
        let g = OverlayGrid::pack(&t, 640, 360);
        assert_eq!(g.row_text(0), "?".repeat(COLUMNS));
        assert_eq!(t.panel(640, 360).unwrap().width, 640 - MARGIN, "clipped");
    }

    #[test]
    fn no_lines_no_panel() {
        let empty = OverlayText::default();
        assert_eq!(empty.panel(320, 180), None);
        let g = OverlayGrid::pack(&empty, 320, 180);
        assert_eq!(g.panel(), Rect::default());
        assert_eq!(g.lines(), 0);
        // A tiny output clips the panel away.
        assert_eq!(text(&["a"]).panel(4, 4), None);
    }

    #[test]
    fn the_grid_does_not_depend_on_the_text_size() {
        let a = OverlayGrid::pack(&text(&["a"]), 320, 180);
        let long = "b".repeat(500);
        let b = OverlayGrid::pack(&text(&[long.as_str(); 100]), 320, 180);
        assert_eq!(a.words().len(), b.words().len());
    }
}
