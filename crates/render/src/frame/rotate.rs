//! Pre-rotation: the frame drawn upright into a presented image of the surface's native
//! orientation, which the presentation engine rotates back (Android's 90°/180°/270°
//! surfaces; Arm's and Google's guidance, Vulkan-Samples `surface_rotation`), so the
//! compositor has nothing to rotate.
//!
//! The frame renders at the logical (upright) size everywhere: the camera's aspect, the
//! UI's points and every image are those of the picture the user sees. The passes that
//! write the output write it turned, into the physical extent (sides swapped at 90° and
//! 270°): the last post pass (`post.frag`; `post.comp` and compute tone mapping direct
//! into a `post out` of the physical extent that `post copy` copies), the debug views, and
//! the UI (`ui.vert` turns positions, [`Rotation::rect`] the scissors). Pre-rotated, raster
//! tone mapping never writes the output directly (it reads HDR at its own pixel, as an
//! input attachment on a tiler): `compose` follows it. Each physical texel takes the
//! upright texel the presentation shows there (physical `p` shows upright `s`: at 90°
//! `s = (w - 1 - p.y, p.x)`, at 180° `(w - 1 - p.x, h - 1 - p.y)`, at 270°
//! `(p.y, h - 1 - p.x)`), an index remap with no filtering, so the physical picture
//! rotated back is the upright frame exactly (the UI's turned triangles may round an
//! antialiased edge texel one step apart). The rotation reaches the shaders as push
//! constants (turns and logical size): no variants.
//!
//! This replaced a `rotate` pass that copied an `upright` image into the output: one
//! full-screen read and write, 0.199 ms at 1080p and 1.071 ms at 4K on the H200.

/// The rotation the presentation engine applies to the presented image: quarter turns
/// clockwise (`VK_SURFACE_TRANSFORM_ROTATE_*_BIT_KHR`). The frame pre-rotates by its inverse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rotation {
    /// Upright: nothing rotates.
    #[default]
    R0,
    /// 90° clockwise.
    R90,
    /// 180°.
    R180,
    /// 270° clockwise (90° counter-clockwise).
    R270,
}

impl Rotation {
    /// The rotation of `degrees` (0, 90, 180 or 270).
    pub fn from_degrees(degrees: u32) -> Option<Rotation> {
        match degrees {
            0 => Some(Rotation::R0),
            90 => Some(Rotation::R90),
            180 => Some(Rotation::R180),
            270 => Some(Rotation::R270),
            _ => None,
        }
    }

    /// Its degrees, clockwise.
    pub fn degrees(self) -> u32 {
        self.turns() * 90
    }

    /// Its quarter turns, clockwise.
    pub fn turns(self) -> u32 {
        match self {
            Rotation::R0 => 0,
            Rotation::R90 => 1,
            Rotation::R180 => 2,
            Rotation::R270 => 3,
        }
    }

    /// Whether it swaps the sides (90°, 270°).
    pub fn swaps(self) -> bool {
        self.turns() % 2 == 1
    }

    /// The physical (presented) extent of a logical `(width, height)`, or the logical of a
    /// physical one (the same swap).
    pub fn swap(self, (w, h): (u32, u32)) -> (u32, u32) {
        if self.swaps() {
            (h, w)
        } else {
            (w, h)
        }
    }
}

impl Rotation {
    /// The physical rectangle `[x, y, width, height]` the presentation shows as the upright
    /// `rect` of a `logical` `(width, height)` (the rect inside it): the same index remap
    /// of the shaders', inverted.
    pub fn rect(self, (lw, lh): (u32, u32), [x, y, w, h]: [u32; 4]) -> [u32; 4] {
        match self {
            Rotation::R0 => [x, y, w, h],
            Rotation::R90 => [y, lw - x - w, h, w],
            Rotation::R180 => [lw - x - w, lh - y - h, w, h],
            Rotation::R270 => [lh - y - h, x, h, w],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degrees_round_trip_and_sides_swap_at_quarter_turns() {
        for d in [0, 90, 180, 270] {
            let r = Rotation::from_degrees(d).unwrap();
            assert_eq!(r.degrees(), d);
            assert_eq!(r.swap((4, 3)), if d % 180 == 90 { (3, 4) } else { (4, 3) });
        }
        assert_eq!(Rotation::from_degrees(45), None);
        assert_eq!(Rotation::from_degrees(360), None);
    }

    /// The physical texel of upright texel `(x, y)`, as the shaders map it back.
    fn physical(r: Rotation, (lw, lh): (u32, u32), (x, y): (u32, u32)) -> (u32, u32) {
        match r {
            Rotation::R0 => (x, y),
            Rotation::R90 => (y, lw - 1 - x),
            Rotation::R180 => (lw - 1 - x, lh - 1 - y),
            Rotation::R270 => (lh - 1 - y, x),
        }
    }

    #[test]
    fn a_turned_rect_holds_exactly_the_turned_texels() {
        let logical = (7, 5);
        let rect = [2, 1, 3, 2];
        for d in [0, 90, 180, 270] {
            let r = Rotation::from_degrees(d).unwrap();
            let [px, py, pw, ph] = r.rect(logical, rect);
            let (sw, sh) = r.swap(logical);
            assert!(
                px + pw <= sw && py + ph <= sh,
                "{d}: inside the physical extent"
            );
            let mut inside = Vec::new();
            for y in rect[1]..rect[1] + rect[3] {
                for x in rect[0]..rect[0] + rect[2] {
                    let (qx, qy) = physical(r, logical, (x, y));
                    assert!(
                        (px..px + pw).contains(&qx) && (py..py + ph).contains(&qy),
                        "{d}: upright ({x}, {y}) lands at ({qx}, {qy}) outside the rect"
                    );
                    inside.push((qx, qy));
                }
            }
            assert_eq!(inside.len() as u32, pw * ph, "{d}: the same area");
        }
    }
}
