//! Image sizes relative to the output, so a resize re-plans with no renderer code.

use ash::vk;

/// The size of an image: a fraction of the render size, the output's size, or fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// `num / den` of the render size (the output's size times the resolution scale),
    /// rounded up, at least 1 pixel.
    Render {
        /// Numerator.
        num: u32,
        /// Denominator.
        den: u32,
    },
    /// The output's size (what the last pass writes and the window shows).
    Output,
    /// Fixed pixels.
    Fixed(u32, u32),
}

impl Size {
    /// The render size.
    pub const FULL: Size = Size::Render { num: 1, den: 1 };
    /// Half the render size.
    pub const HALF: Size = Size::Render { num: 1, den: 2 };
    /// A quarter of the render size.
    pub const QUARTER: Size = Size::Render { num: 1, den: 4 };

    /// `1 / 2^level` of the render size (mip `level` of a chain).
    pub fn mip(level: u32) -> Size {
        Size::Render {
            num: 1,
            den: 1 << level.min(16),
        }
    }

    /// Pixels for a render size of `render` and an output of `output`.
    pub fn resolve(self, render: vk::Extent2D, output: vk::Extent2D) -> (u32, u32) {
        match self {
            Size::Render { num, den } => {
                let f = |x: u32| (u64::from(x) * u64::from(num)).div_ceil(u64::from(den.max(1)));
                (
                    f(render.width).max(1) as u32,
                    f(render.height).max(1) as u32,
                )
            }
            Size::Output => (output.width.max(1), output.height.max(1)),
            Size::Fixed(w, h) => (w.max(1), h.max(1)),
        }
    }
}

/// The render size for an output of `output` at `scale` (each side rounded, at least 1).
pub fn render_extent(output: vk::Extent2D, scale: f32) -> vk::Extent2D {
    let f = |x: u32| ((x as f32 * scale).round() as u32).max(1);
    vk::Extent2D {
        width: f(output.width),
        height: f(output.height),
    }
}
