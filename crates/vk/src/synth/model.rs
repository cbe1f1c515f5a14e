//! The CPU model of a frame of synthetic passes: the same semantics as the shaders (`desc`),
//! plus what the plan says about content: transient resources start every frame undefined
//! (`None`), render passes apply their load operations (`clear` gives 0, `dont_care`
//! forgets) and store operations (`dont_care` and memoryless forget at the end), imported
//! resources keep their content across frames. Reading an undefined value makes the result
//! undefined; undefined values are never compared.

use super::desc::{copy_source, Shape, SynthPass};
use super::values::{key, mix, HEADER};
use tessera_graph::access::Access;
use tessera_graph::plan::{LoadOp, StoreOp};
use tessera_graph::{Graph, PassKind, Plan};

/// Contents of one resource: pixel values (row-major, mip 0 layer 0) or buffer words.
pub type Content = Vec<Option<u32>>;

#[derive(Clone, Debug)]
struct RenderPassOps {
    first: String,
    last: String,
    loads: Vec<(usize, LoadOp)>,
    forget_at_end: Vec<usize>,
}

/// The model of a graph under a plan.
#[derive(Clone, Debug)]
pub struct Model {
    shapes: Vec<Shape>,
    transient: Vec<bool>,
    passes: Vec<SynthPass>,
    rps: Vec<RenderPassOps>,
    /// Current contents, indexed by resource.
    pub content: Vec<Content>,
}

/// Initial content of an imported resource (what the executor uploads before frame 0):
/// images are cleared to one value, buffers get the header and distinct words.
pub fn initial(name: &str, shape: &Shape) -> Content {
    match *shape {
        Shape::Image { w, h, .. } => vec![Some(mix(key(name), 0) & 31); (w * h) as usize],
        Shape::Buffer { words } => (0..words)
            .map(|i| {
                Some(if i < 4 {
                    HEADER[i as usize]
                } else {
                    mix(key(name), i)
                })
            })
            .collect(),
    }
}

fn len(shape: &Shape) -> usize {
    match *shape {
        Shape::Image { w, h, .. } => (w * h) as usize,
        Shape::Buffer { words } => words as usize,
    }
}

impl Model {
    /// The model before frame 0.
    pub fn new(graph: &Graph, plan: &Plan, passes: Vec<SynthPass>) -> Model {
        let shapes: Vec<Shape> = graph.resources.iter().map(|r| Shape::of(&r.kind)).collect();
        let transient: Vec<bool> = graph.resources.iter().map(|r| !r.imported).collect();
        let content = graph
            .resources
            .iter()
            .zip(&shapes)
            .map(|(r, s)| {
                if r.imported {
                    initial(&r.name, s)
                } else {
                    vec![None; len(s)]
                }
            })
            .collect();
        let rps = plan
            .render_passes
            .iter()
            .filter(|rp| !rp.subpasses.is_empty())
            .map(|rp| {
                let idx = |n: &str| graph.find_resource(n).map(|r| r.index());
                RenderPassOps {
                    first: rp.subpasses[0].to_string(),
                    last: rp.subpasses[rp.subpasses.len() - 1].to_string(),
                    loads: rp
                        .attachments
                        .iter()
                        .filter_map(|a| Some((idx(&a.resource)?, a.load_op)))
                        .collect(),
                    forget_at_end: rp
                        .attachments
                        .iter()
                        .filter(|a| a.store_op == StoreOp::DontCare || a.memoryless)
                        .filter_map(|a| idx(&a.resource))
                        .collect(),
                }
            })
            .collect();
        Model {
            shapes,
            transient,
            passes,
            rps,
            content,
        }
    }

    /// Runs one frame.
    pub fn frame(&mut self) {
        for (i, c) in self.content.iter_mut().enumerate() {
            if self.transient[i] {
                c.iter_mut().for_each(|v| *v = None);
            }
        }
        let passes = std::mem::take(&mut self.passes);
        for p in &passes {
            if let Some(rp) = self.rps.iter().find(|r| r.first == p.name).cloned() {
                for (r, op) in rp.loads {
                    match op {
                        LoadOp::Load => {}
                        LoadOp::Clear => self.content[r].iter_mut().for_each(|v| *v = Some(0)),
                        LoadOp::DontCare => self.content[r].iter_mut().for_each(|v| *v = None),
                    }
                }
            }
            match p.kind {
                PassKind::Transfer => self.transfer(p),
                _ => self.shader(p),
            }
            if let Some(rp) = self.rps.iter().find(|r| r.last == p.name).cloned() {
                for r in rp.forget_at_end {
                    self.content[r].iter_mut().for_each(|v| *v = None);
                }
            }
        }
        self.passes = passes;
    }

    fn transfer(&mut self, p: &SynthPass) {
        for d in p.uses.iter().filter(|u| u.access == Access::TransferDst) {
            match copy_source(p, d) {
                Some(s) => match (s.shape, d.shape) {
                    (Shape::Buffer { words: a }, Shape::Buffer { .. }) => {
                        let n = (a as usize).min(self.content[d.resource].len());
                        for i in 0..n {
                            self.content[d.resource][i] = self.content[s.resource][i];
                        }
                    }
                    (Shape::Image { w: sw, h: sh, .. }, Shape::Image { w: dw, h: dh, .. }) => {
                        for y in 0..sh.min(dh) {
                            for x in 0..sw.min(dw) {
                                self.content[d.resource][(x + y * dw) as usize] =
                                    self.content[s.resource][(x + y * sw) as usize];
                            }
                        }
                    }
                    _ => {}
                },
                None => {
                    let v = mix(key(&p.name), d.j);
                    let c = &mut self.content[d.resource];
                    match d.shape {
                        Shape::Image { .. } => c.iter_mut().for_each(|x| *x = Some(v & 31)),
                        Shape::Buffer { .. } => {
                            for (i, x) in c.iter_mut().enumerate() {
                                *x = Some(if i < 4 { HEADER[i] } else { v });
                            }
                        }
                    }
                }
            }
        }
    }

    fn shader(&mut self, p: &SynthPass) {
        let (dw, dh) = p.domain;
        let before = self.content.clone();
        let k = key(&p.name);
        for y in 0..dh {
            for x in 0..dw {
                let mut acc = Some(mix(k, x + y * 65536));
                for u in &p.uses {
                    let c = &before[u.resource];
                    let read = match (u.access, u.shape) {
                        (Access::Sampled, Shape::Image { w, h, .. }) => {
                            Some(c[(x.min(w - 1) + y.min(h - 1) * w) as usize].map(|v| v + 1))
                        }
                        (Access::InputAttachment, Shape::Image { w, .. }) => {
                            Some(c[(x + y * w) as usize].map(|v| v + 1))
                        }
                        (
                            Access::StorageRead | Access::StorageReadWrite,
                            Shape::Image { w, h, .. },
                        ) => Some(if x < w && y < h {
                            c[(x + y * w) as usize].map(|v| v + 1)
                        } else {
                            Some(0)
                        }),
                        (Access::StorageRead, Shape::Buffer { .. }) => {
                            let n = u.shape.data_words();
                            Some(c.get((4 + (x + y * dw) % n) as usize).copied().flatten())
                        }
                        _ => None,
                    };
                    if let Some(r) = read {
                        acc = match (acc, r) {
                            (Some(a), Some(r)) => Some(mix(a, r)),
                            _ => None,
                        };
                    }
                }
                for u in &p.uses {
                    let val = acc.map(|a| mix(a, u.j));
                    let c = &mut self.content[u.resource];
                    match (u.access, u.shape) {
                        (
                            Access::ColorWrite
                            | Access::ColorWriteAll
                            | Access::ColorReadWrite
                            | Access::DepthWrite
                            | Access::StorageWrite
                            | Access::StorageReadWrite,
                            Shape::Image { w, h, .. },
                        ) if x < w && y < h => {
                            c[(x + y * w) as usize] = val.map(|v| v & 31);
                        }
                        (Access::StorageWrite | Access::StorageReadWrite, Shape::Buffer { .. }) => {
                            let n = u.shape.data_words();
                            if x == 0 && y == 0 {
                                for (i, h) in HEADER.iter().enumerate() {
                                    if let Some(w) = c.get_mut(i) {
                                        *w = Some(*h);
                                    }
                                }
                            }
                            let idx = x + y * dw;
                            if u.access == Access::StorageWrite {
                                if idx < n {
                                    if let Some(w) = c.get_mut((4 + idx) as usize) {
                                        *w = val;
                                    }
                                }
                            } else if let Some(w) = c.get_mut((4 + idx % n) as usize) {
                                *w = match (*w, val) {
                                    (Some(old), Some(v)) => Some(old.wrapping_add(v & 0xFFFF)),
                                    _ => None,
                                };
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        // Resolves copy the (uniform per pixel) multisampled value.
        for u in p.uses.iter().filter(|u| u.access == Access::Resolve) {
            if let Some(from) = u.from {
                let src = self.content[from].clone();
                let n = self.content[u.resource].len().min(src.len());
                self.content[u.resource][..n].copy_from_slice(&src[..n]);
            }
        }
    }

    /// The shape of a resource.
    pub fn shape(&self, r: usize) -> Shape {
        self.shapes[r]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_graph::{compile, Capabilities, CompileOptions, Format, ImageDesc};

    fn uav_graph() -> Graph {
        let mut g = Graph::new("uav");
        let b = g.buffer("counts", 64);
        g.resource_mut(b).output = true;
        g.transfer("clear").clears(b, Access::TransferDst).id();
        g.compute("accumulate")
            .uses(b, Access::StorageReadWrite)
            .id();
        g
    }

    #[test]
    fn clear_then_accumulate_is_exact_and_frame_independent() {
        let g = uav_graph();
        let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
        let passes = crate::synth::desc::passes(&g, &plan).unwrap();
        let mut m = Model::new(&g, &plan, passes);
        m.frame();
        let first = m.content[0].clone();
        assert_eq!(&first[..4], &HEADER.map(Some));
        // Data words: the clear value plus the sum of the accumulations that hit them.
        let clear = mix(key("clear"), 0);
        let n = 12u32;
        let mut expect = vec![clear; n as usize];
        for x in 0..64u32 {
            let acc = mix(key("accumulate"), x);
            expect[(x % n) as usize] = expect[(x % n) as usize].wrapping_add(mix(acc, 0) & 0xFFFF);
        }
        assert_eq!(
            first[4..].to_vec(),
            expect.into_iter().map(Some).collect::<Vec<_>>()
        );
        m.frame();
        assert_eq!(m.content[0], first, "the clear makes every frame the same");
    }

    #[test]
    fn dont_care_store_forgets_and_transients_start_undefined() {
        let mut g = Graph::new("t");
        let a = g.image("a", ImageDesc::new(Format::R8G8B8A8_UNORM, 4, 4));
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 4, 4));
        g.resource_mut(out).output = true;
        g.raster("p").uses(a, Access::ColorWriteAll).id();
        g.raster("q")
            .uses(a, Access::Sampled)
            .uses(out, Access::ColorWriteAll)
            .id();
        let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
        let passes = crate::synth::desc::passes(&g, &plan).unwrap();
        let mut m = Model::new(&g, &plan, passes);
        m.frame();
        assert!(m.content[out.index()].iter().all(|v| v.is_some()));
        // Sampled reads at the same pixel here (same size): out depends on a's value.
        let a0 = m.content[a.index()][0].unwrap();
        let acc = mix(mix(key("q"), 0), a0 + 1);
        assert_eq!(m.content[out.index()][0], Some(mix(acc, 1) & 31));
    }
}
