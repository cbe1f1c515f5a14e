//! The CPU model of a frame of synthetic passes: the oracle `tessera exec` compares the GPU
//! with. It is built from the graph as declared, never from the plan: every pass (culled
//! ones too) runs in declaration order ([`super::desc::declared`]) with the shaders'
//! semantics (`desc`), and content follows the frame format's rules: transient resources
//! start every frame undefined (`None`); imported resources keep their content across frames,
//! lose it before their first use with `clear_on_first_use` and after their last with
//! `discard_on_last_use`; a `clear` of an attachment gives 0 (what the executor clears to),
//! `color_write_all` and `resolve` replace every pixel (earlier content is gone), partial
//! writes (`color_write`, storage and transfer writes) keep what they do not write. A storage
//! `clear` is not run by the synthetic bodies: its content is undefined. Reading an undefined
//! value makes the result undefined; undefined values are never compared.
//!
//! So a plan that loads `DONT_CARE` where content is needed, reorders dependent passes, culls
//! a needed pass or discards content that survives the frame gives values that differ from
//! the model's, instead of fewer values to compare. Cost per frame: the domains of all passes
//! plus one copy of every resource's content per shader pass.

use super::desc::{copy_source, partial, Shape, SynthPass};
use super::values::{key, mix, untouched, HEADER};
use tessera_graph::access::Access;
use tessera_graph::{Graph, PassKind};

/// Contents of one resource: pixel values (row-major, mip 0 layer 0) or buffer words.
pub type Content = Vec<Option<u32>>;

/// The frame's content rules for one resource.
#[derive(Clone, Copy, Debug)]
struct Rules {
    /// Not imported: undefined at the start of every frame.
    transient: bool,
    /// Imported with `clear_on_first_use`: undefined before this pass (its first use).
    forget_before: Option<usize>,
    /// Imported with `discard_on_last_use`: undefined after this pass (its last use).
    forget_after: Option<usize>,
}

/// The model of a graph as declared.
#[derive(Clone, Debug)]
pub struct Model {
    shapes: Vec<Shape>,
    rules: Vec<Rules>,
    passes: Vec<SynthPass>,
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

fn forget(c: &mut Content) {
    c.iter_mut().for_each(|v| *v = None);
}

impl Model {
    /// The model before frame 0; `passes` are the graph's passes in declaration order
    /// ([`super::desc::declared`]).
    pub fn new(graph: &Graph, passes: Vec<SynthPass>) -> Model {
        let shapes: Vec<Shape> = graph.resources.iter().map(|r| Shape::of(&r.kind)).collect();
        let mut first = vec![None; shapes.len()];
        let mut last = vec![None; shapes.len()];
        for (i, p) in passes.iter().enumerate() {
            for u in &p.uses {
                first[u.resource].get_or_insert(i);
                last[u.resource] = Some(i);
            }
        }
        let rules = graph
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| Rules {
                transient: !r.is_imported(),
                // A per-frame import is a different object every frame: nothing at entry.
                forget_before: first[i]
                    .filter(|_| r.is_imported() && (r.clear_on_first_use() || r.is_per_frame())),
                forget_after: last[i].filter(|_| r.is_imported() && r.discard_on_last_use()),
            })
            .collect();
        let content = graph
            .resources
            .iter()
            .zip(&shapes)
            .map(|(r, s)| {
                if r.is_imported() {
                    initial(&r.name, s)
                } else {
                    vec![None; len(s)]
                }
            })
            .collect();
        Model {
            shapes,
            rules,
            passes,
            content,
        }
    }

    /// Runs one frame.
    pub fn frame(&mut self) {
        for (c, r) in self.content.iter_mut().zip(&self.rules) {
            if r.transient {
                forget(c);
            }
        }
        let passes = std::mem::take(&mut self.passes);
        for (i, p) in passes.iter().enumerate() {
            for u in &p.uses {
                let c = &mut self.content[u.resource];
                if self.rules[u.resource].forget_before == Some(i) {
                    forget(c);
                }
                match (u.access, u.clear) {
                    (
                        Access::ColorWrite
                        | Access::ColorWriteAll
                        | Access::ColorReadWrite
                        | Access::DepthWrite,
                        true,
                    ) => c.iter_mut().for_each(|v| *v = Some(0)),
                    (Access::StorageWrite, true) => forget(c),
                    (Access::ColorWriteAll | Access::Resolve, _) => forget(c),
                    _ => {}
                }
            }
            match p.kind {
                PassKind::Transfer => self.transfer(p),
                _ => self.shader(p),
            }
            for u in &p.uses {
                if self.rules[u.resource].forget_after == Some(i) {
                    forget(&mut self.content[u.resource]);
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
                        ) if x < w && y < h && !(partial(u) && untouched(k, u.j, x, y)) => {
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
    use tessera_graph::{Format, ImageDesc};

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
        let mut m = Model::new(&g, crate::desc::declared(&g));
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
        let mut m = Model::new(&g, crate::desc::declared(&g));
        m.frame();
        assert!(m.content[out.index()].iter().all(|v| v.is_some()));
        // Sampled reads at the same pixel here (same size): out depends on a's value.
        let a0 = m.content[a.index()][0].unwrap();
        let acc = mix(mix(key("q"), 0), a0 + 1);
        assert_eq!(m.content[out.index()][0], Some(mix(acc, 1) & 31));
    }

    #[test]
    fn color_write_keeps_the_untouched_pixels_of_earlier_content() {
        let mut g = Graph::new("t");
        let a = g.image("a", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
        g.resource_mut(a).output = true;
        g.transfer("fill").clears(a, Access::TransferDst).id();
        g.raster("paint").uses(a, Access::ColorWrite).id();
        let mut m = Model::new(&g, crate::desc::declared(&g));
        m.frame();
        let fill = mix(key("fill"), 0) & 31;
        let (mut kept, mut painted) = (0, 0);
        for y in 0..8 {
            for x in 0..8 {
                let v = m.content[a.index()][(x + 8 * y) as usize];
                if untouched(key("paint"), 0, x, y) {
                    assert_eq!(v, Some(fill), "({x}, {y}) keeps the fill");
                    kept += 1;
                } else {
                    let acc = mix(key("paint"), x + y * 65536);
                    assert_eq!(v, Some(mix(acc, 0) & 31), "({x}, {y}) is painted");
                    painted += 1;
                }
            }
        }
        assert!(kept > 0 && painted > 0, "{kept} kept, {painted} painted");
    }
}
