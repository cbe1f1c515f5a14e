//! Random realistic frame graphs for memory-aliasing tests, benchmarks and the quality
//! report (shared by `tests/`, `benches/` and `examples/` through `#[path]`).
//!
//! A frame is built pass by pass at one of the usual output resolutions (720p to 4K):
//! raster passes write one to three colour targets (full, half or quarter resolution,
//! typical G-buffer/HDR/post formats), sometimes with a depth buffer, sometimes 4x MSAA with
//! a resolve, or render a shadow map (2K/4K depth); compute passes write storage images
//! (some with full mip chains, as bloom and downsample chains do) or buffers (4 KiB to
//! 64 MiB: light lists, indirect arguments, particles); transfer passes copy. Passes read
//! earlier results, mostly recent ones and now and then old ones (long-lived G-buffers and
//! depth). Every pass is kept (side effects), and a last pass writes the imported
//! swapchain. With `two_queues`, about half the compute passes ask for async compute.

#![allow(dead_code)]

use tessera_graph::access::Access;
use tessera_graph::graph::Origin;
use tessera_graph::graph::{Graph, ImageDesc, QueueKind, ResourceId};
use tessera_graph::{Capabilities, Format};

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// Output resolutions of real frames.
pub const RESOLUTIONS: &[(u32, u32)] = &[
    (1280, 720),
    (1600, 900),
    (1920, 1080),
    (2560, 1440),
    (3840, 2160),
];

const COLOR: &[Format] = &[
    Format::R8G8B8A8_UNORM,
    Format::R8G8B8A8_SRGB,
    Format::A2B10G10R10_UNORM_PACK32,
    Format::R16G16B16A16_SFLOAT,
    Format::B10G11R11_UFLOAT_PACK32,
    Format::R16G16_SFLOAT,
    Format::R8_UNORM,
    Format::R32_SFLOAT,
];
const STORAGE: &[Format] = &[
    Format::R16G16B16A16_SFLOAT,
    Format::R32_SFLOAT,
    Format::R16_SFLOAT,
    Format::R8G8B8A8_UNORM,
    Format::R16G16_SFLOAT,
    Format::R32G32B32A32_SFLOAT,
];
const DEPTH: &[Format] = &[
    Format::D32_SFLOAT,
    Format::D24_UNORM_S8_UINT,
    Format::D32_SFLOAT_S8_UINT,
];
const BUFFER_SIZES: &[u64] = &[
    4 << 10,
    64 << 10,
    256 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
    64 << 20,
];

/// What an earlier resource can be read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Made {
    /// Single-sampled colour or storage image.
    Image,
    /// Depth image (extent kept for reuse as an attachment).
    Depth(u32, u32),
    /// Multisampled image: only attachments and sampling.
    Msaa,
    /// Buffer.
    Buffer,
}

/// A random frame with exactly `resources` transient resources (plus the swapchain), and
/// the device it is compiled for (`desktop`, whose async compute queue is used only when
/// `two_queues`).
pub fn frame(seed: u64, resources: usize, two_queues: bool) -> (Graph, Capabilities) {
    let mut rng = Rng::new(seed);
    let (w, h) = rng.pick(RESOLUTIONS);
    let mut g = Graph::new(format!("random-{seed}"));
    let mut made: Vec<(ResourceId, Made)> = Vec::new();
    let mut caps = Capabilities::desktop();
    caps.async_compute = two_queues;
    let mut pass_no = 0usize;
    while made.len() < resources {
        pass_no += 1;
        let name = format!("p{pass_no}");
        let left = resources - made.len();
        let reads = pick_reads(&mut rng, &made);
        let roll = rng.below(100);
        if roll < 55 {
            raster(&mut g, &mut rng, &mut made, &name, (w, h), left, &reads);
        } else if roll < 92 || made.is_empty() {
            let queue = if two_queues && rng.chance(0.5) {
                QueueKind::AsyncCompute
            } else {
                QueueKind::Graphics
            };
            compute(
                &mut g,
                &mut rng,
                &mut made,
                &name,
                (w, h),
                left,
                &reads,
                queue,
            );
        } else {
            transfer(&mut g, &mut rng, &mut made, &name);
        }
    }
    let swap = g.image("swapchain", ImageDesc::new(Format::B8G8R8A8_SRGB, w, h));
    g.resource_mut(swap).origin = Origin::IMPORTED;
    g.resource_mut(swap).output = true;
    let mut last = g.raster("present").uses(swap, Access::ColorWriteAll);
    if let Some(&(r, Made::Image)) = made.last() {
        last = last.uses(r, Access::Sampled);
    }
    last.side_effects();
    (g, caps)
}

/// Earlier results a new pass reads: mostly recent ones, sometimes old ones.
fn pick_reads(rng: &mut Rng, made: &[(ResourceId, Made)]) -> Vec<(ResourceId, Made)> {
    let mut out: Vec<(ResourceId, Made)> = Vec::new();
    if made.is_empty() {
        return out;
    }
    let count = 1 + rng.below(3);
    for _ in 0..count {
        let i = if rng.chance(0.15) {
            rng.below(made.len())
        } else {
            let back = (rng.below(4) + rng.below(4)).min(made.len() - 1);
            made.len() - 1 - back
        };
        if !out.iter().any(|(r, _)| *r == made[i].0) {
            out.push(made[i]);
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn raster(
    g: &mut Graph,
    rng: &mut Rng,
    made: &mut Vec<(ResourceId, Made)>,
    name: &str,
    (w, h): (u32, u32),
    left: usize,
    reads: &[(ResourceId, Made)],
) {
    let shadow = rng.chance(0.08);
    if shadow {
        let s = rng.pick(&[2048u32, 4096]);
        let d = g.image(
            format!("{name}_shadow"),
            ImageDesc::new(Format::D32_SFLOAT, s, s),
        );
        g.raster(name).clears(d, Access::DepthWrite).side_effects();
        made.push((d, Made::Depth(s, s)));
        return;
    }
    let div = rng.pick(&[1u32, 1, 1, 2, 2, 4]);
    let (ew, eh) = ((w / div).max(1), (h / div).max(1));
    let msaa = div == 1 && rng.chance(0.08) && left >= 3;
    let mut uses: Vec<(ResourceId, Access, bool, Option<ResourceId>)> = Vec::new();
    let mut new: Vec<(ResourceId, Made)> = Vec::new();
    if msaa {
        let f = rng.pick(&[Format::R8G8B8A8_UNORM, Format::R16G16B16A16_SFLOAT]);
        let c = g.image(format!("{name}_msaa"), ImageDesc::new(f, ew, eh).samples(4));
        let d = g.image(
            format!("{name}_msaa_depth"),
            ImageDesc::new(Format::D32_SFLOAT, ew, eh).samples(4),
        );
        let r = g.image(format!("{name}_resolved"), ImageDesc::new(f, ew, eh));
        uses.push((c, Access::ColorWriteAll, true, None));
        uses.push((d, Access::DepthWrite, true, None));
        uses.push((r, Access::Resolve, false, Some(c)));
        new.extend([(c, Made::Msaa), (d, Made::Msaa), (r, Made::Image)]);
    } else {
        let targets = 1 + rng.below(3).min(left.saturating_sub(1));
        for k in 0..targets {
            let f = rng.pick(COLOR);
            let c = g.image(format!("{name}_c{k}"), ImageDesc::new(f, ew, eh));
            let clear = rng.chance(0.3);
            uses.push((
                c,
                if clear {
                    Access::ColorWrite
                } else {
                    Access::ColorWriteAll
                },
                clear,
                None,
            ));
            new.push((c, Made::Image));
        }
        let reuse = made
            .iter()
            .rev()
            .find(|(_, m)| *m == Made::Depth(ew, eh))
            .map(|&(r, _)| r);
        match reuse {
            Some(d) if rng.chance(0.6) => uses.push((
                d,
                if rng.chance(0.5) {
                    Access::DepthRead
                } else {
                    Access::DepthWrite
                },
                false,
                None,
            )),
            _ if new.len() < left && rng.chance(0.35) => {
                let d = g.image(
                    format!("{name}_depth"),
                    ImageDesc::new(rng.pick(DEPTH), ew, eh),
                );
                uses.push((d, Access::DepthWrite, true, None));
                new.push((d, Made::Depth(ew, eh)));
            }
            _ => {}
        }
    }
    for &(r, m) in reads {
        if uses.iter().any(|u| u.0 == r) {
            continue;
        }
        match m {
            Made::Image | Made::Depth(..) | Made::Msaa => {
                uses.push((r, Access::Sampled, false, None))
            }
            Made::Buffer => uses.push((
                r,
                if rng.chance(0.3) {
                    Access::Indirect
                } else {
                    Access::StorageRead
                },
                false,
                None,
            )),
        }
    }
    let mut b = g.raster(name);
    for (r, a, clear, from) in uses {
        b = match (from, clear) {
            (Some(f), _) => b.resolves(r, f),
            (None, true) => b.clears(r, a),
            (None, false) => b.uses(r, a),
        };
    }
    b.side_effects();
    made.extend(new);
}

#[allow(clippy::too_many_arguments)]
fn compute(
    g: &mut Graph,
    rng: &mut Rng,
    made: &mut Vec<(ResourceId, Made)>,
    name: &str,
    (w, h): (u32, u32),
    left: usize,
    reads: &[(ResourceId, Made)],
    queue: QueueKind,
) {
    let outputs = 1 + rng.below(2).min(left.saturating_sub(1));
    let mut b_uses: Vec<(ResourceId, Access)> = Vec::new();
    for k in 0..outputs {
        if rng.chance(0.3) {
            let size = rng.pick(BUFFER_SIZES);
            let r = g.buffer(format!("{name}_b{k}"), size);
            b_uses.push((r, Access::StorageWrite));
            made.push((r, Made::Buffer));
        } else {
            let div = rng.pick(&[1u32, 2, 2, 4, 8]);
            let (ew, eh) = ((w / div).max(1), (h / div).max(1));
            let mut d = ImageDesc::new(rng.pick(STORAGE), ew, eh);
            if rng.chance(0.2) {
                d = d.mips(32 - ew.max(eh).leading_zeros());
            }
            let r = g.image(format!("{name}_s{k}"), d);
            b_uses.push((r, Access::StorageWrite));
            made.push((r, Made::Image));
        }
    }
    for &(r, m) in reads {
        match m {
            Made::Image => b_uses.push((
                r,
                if rng.chance(0.7) {
                    Access::Sampled
                } else {
                    Access::StorageRead
                },
            )),
            Made::Depth(..) | Made::Msaa => b_uses.push((r, Access::Sampled)),
            Made::Buffer => b_uses.push((
                r,
                if rng.chance(0.2) {
                    Access::StorageReadWrite
                } else {
                    Access::StorageRead
                },
            )),
        }
    }
    let mut b = g.compute(name).on_queue(queue);
    for (r, a) in b_uses {
        b = b.uses(r, a);
    }
    b.side_effects();
}

fn transfer(g: &mut Graph, rng: &mut Rng, made: &mut Vec<(ResourceId, Made)>, name: &str) {
    let sources: Vec<(ResourceId, Made)> = made
        .iter()
        .copied()
        .filter(|(_, m)| matches!(m, Made::Image | Made::Buffer))
        .collect();
    let Some(&(src, m)) = sources.get(
        rng.below(sources.len().max(1))
            .min(sources.len().saturating_sub(1)),
    ) else {
        let r = g.buffer(format!("{name}_b"), rng.pick(BUFFER_SIZES));
        g.transfer(name)
            .clears(r, Access::TransferDst)
            .side_effects();
        made.push((r, Made::Buffer));
        return;
    };
    let dst = match m {
        Made::Buffer => g.buffer(format!("{name}_copy"), rng.pick(BUFFER_SIZES)),
        _ => {
            let d = *g
                .resource(src)
                .image_desc()
                .expect("images were made as images");
            g.image(format!("{name}_copy"), d)
        }
    };
    g.transfer(name)
        .uses(src, Access::TransferSrc)
        .uses(dst, Access::TransferDst)
        .side_effects();
    made.push((dst, m));
}
