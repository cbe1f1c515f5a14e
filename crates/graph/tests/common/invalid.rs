//! Random invalid graphs: a valid graph plus one mutation that breaks a validation rule
//! (unknown or duplicate names, duplicate uses, accesses that do not fit the resource or the
//! pass kind, reads before any write, bad sizes, transient memory over the limit, bad
//! resolves, contradictory flags). Each mutation is invalid whatever the base graph is; the
//! offending pass goes at a random position, so the error can surface anywhere in the pass
//! list.

use super::graphs::valid_graph;
use proptest::prelude::*;
use tessera_graph::graph::ResourceKind;
use tessera_graph::graph::{
    ClearValue, Graph, ImageDesc, Origin, Pass, PassKind, PerFrameExit, PerFrameImport, QueueKind,
    Resource, ResourceId, Use,
};
use tessera_graph::{Access, Format};

/// Number of distinct mutations.
pub const MUTATIONS: u8 = 29;

/// An invalid graph and the name of the mutation that made it invalid.
pub fn invalid_graph() -> impl Strategy<Value = (Graph, &'static str)> {
    (valid_graph(), 0..MUTATIONS, any::<u16>(), any::<u8>())
        .prop_map(|(g, m, at, aux)| mutate(g, m, at, aux))
}

fn use_(resource: ResourceId, access: Access) -> Use {
    Use {
        resource,
        access,
        clear: false,
        from: None,
        resolve_mode: None,
        clear_value: None,
        previous: false,
        coverage: None,
    }
}

fn insert(g: &mut Graph, at: u16, name: &str, kind: PassKind, uses: Vec<Use>) {
    let pos = at as usize % (g.passes.len() + 1);
    let name = format!("{name}_{}", g.passes.len());
    g.passes.insert(
        pos,
        Pass {
            name: name.into(),
            kind,
            queue: QueueKind::Graphics,
            side_effects: true,
            uses,
        },
    );
}

fn image(g: &mut Graph, name: &str, desc: ImageDesc) -> ResourceId {
    let name = format!("{name}_{}", g.resources.len());
    g.image(name, desc)
}

fn buffer(g: &mut Graph, name: &str) -> ResourceId {
    let name = format!("{name}_{}", g.resources.len());
    g.buffer(name, 64)
}

/// Applies mutation `m` (see [`MUTATIONS`]); `at` places the offending pass, `aux` varies it.
pub fn mutate(mut g: Graph, m: u8, at: u16, aux: u8) -> (Graph, &'static str) {
    let color = ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16);
    let what = match m {
        0 => {
            let b = buffer(&mut g, "dup");
            let name = g.resource(b).name;
            g.add_resource(Resource::buffer(name, 32));
            "duplicate resource name"
        }
        1 => {
            insert(&mut g, at, "dup", PassKind::Compute, vec![]);
            let twin = g.passes[at as usize % g.passes.len()].clone();
            g.passes.push(twin);
            "duplicate pass name"
        }
        2 => {
            let mut other = Graph::new("other");
            for _ in 0..=g.resources.len() {
                other.buffer("x", 4);
            }
            let unknown = other.resource_ids().last().expect("one more resource");
            insert(
                &mut g,
                at,
                "unknown",
                PassKind::Compute,
                vec![use_(unknown, Access::StorageWrite)],
            );
            "unknown resource"
        }
        3 => {
            let b = buffer(&mut g, "twice");
            insert(
                &mut g,
                at,
                "twice",
                PassKind::Compute,
                vec![use_(b, Access::StorageWrite), use_(b, Access::StorageWrite)],
            );
            "duplicate use"
        }
        4 => {
            let i = image(&mut g, "colour", color);
            insert(
                &mut g,
                at,
                "depth_on_colour",
                PassKind::Raster,
                vec![use_(i, Access::DepthWrite)],
            );
            "depth access on a colour format"
        }
        5 => {
            let i = image(&mut g, "colour", color);
            insert(
                &mut g,
                at,
                "attachment_in_compute",
                PassKind::Compute,
                vec![use_(i, Access::ColorWriteAll)],
            );
            "attachment access in a compute pass"
        }
        6 => {
            let b = buffer(&mut g, "buf");
            let kind = if aux & 1 == 0 {
                PassKind::Raster
            } else {
                PassKind::Compute
            };
            insert(
                &mut g,
                at,
                "transfer_in_shader_pass",
                kind,
                vec![use_(b, Access::TransferDst)],
            );
            "transfer access outside a transfer pass"
        }
        7 => {
            let b = buffer(&mut g, "unwritten");
            let access = [
                Access::StorageRead,
                Access::StorageReadWrite,
                Access::Indirect,
                Access::Sampled,
            ][aux as usize % 4];
            let (r, access) = if access == Access::Sampled {
                (image(&mut g, "unwritten_img", color), access)
            } else {
                (b, access)
            };
            insert(
                &mut g,
                at,
                "read_before_write",
                PassKind::Compute,
                vec![use_(r, access)],
            );
            "read of a transient resource before any write"
        }
        8 => {
            match aux % 6 {
                0 => image(&mut g, "zero_width", ImageDesc::new(Format::R8_UNORM, 0, 4)),
                1 => image(
                    &mut g,
                    "three_samples",
                    ImageDesc::new(Format::R8_UNORM, 4, 4).samples(3),
                ),
                2 => image(
                    &mut g,
                    "too_many_mips",
                    ImageDesc::new(Format::R8_UNORM, 4, 4).mips(9),
                ),
                3 => image(
                    &mut g,
                    "no_layers",
                    ImageDesc::new(Format::R8_UNORM, 4, 4).layers(0),
                ),
                4 => image(&mut g, "huge", ImageDesc::new(Format::R8_UNORM, 70000, 4)),
                _ => {
                    let name = format!("empty_{}", g.resources.len());
                    g.buffer(name, 0)
                }
            };
            "bad size"
        }
        9 => {
            let i = image(&mut g, "colour", color);
            insert(
                &mut g,
                at,
                "raster_async",
                PassKind::Raster,
                vec![use_(i, Access::ColorWriteAll)],
            );
            let p = g
                .passes
                .iter_mut()
                .find(|p| p.name.starts_with("raster_async"))
                .expect("just inserted");
            p.queue = QueueKind::AsyncCompute;
            "raster pass on the async queue"
        }
        10 => {
            let i = image(&mut g, "colour", color);
            let mut sampled = use_(i, Access::Sampled);
            sampled.clear = true;
            insert(
                &mut g,
                at,
                "clear_sampled",
                PassKind::Compute,
                vec![sampled],
            );
            insert(
                &mut g,
                0,
                "writer",
                PassKind::Raster,
                vec![use_(i, Access::ColorWriteAll)],
            );
            "clear on an access that cannot clear"
        }
        11 => {
            let i = image(&mut g, "target", color);
            insert(
                &mut g,
                at,
                "resolve_no_from",
                PassKind::Raster,
                vec![use_(i, Access::Resolve)],
            );
            "resolve without a source"
        }
        12 => {
            let i = image(&mut g, "colour", color);
            let j = image(&mut g, "other", color);
            let mut u = use_(i, Access::ColorWriteAll);
            u.from = Some(j);
            insert(&mut g, at, "from_on_write", PassKind::Raster, vec![u]);
            "'from' on an access that is not a resolve"
        }
        // (An import declared memoryless, and import flags on a transient, cannot be built:
        // `Origin` has no such variant. The frame-file loader's tests cover their words.)
        13 => {
            let i = image(&mut g, "memoryless_output", color);
            let r = g.resource_mut(i);
            r.origin = Origin::MEMORYLESS;
            r.output = true;
            "output declared memoryless"
        }
        14 => {
            let b = buffer(&mut g, "memoryless_buffer");
            let r = g.resource_mut(b);
            r.origin = Origin::MEMORYLESS;
            r.output = aux & 1 == 0;
            "buffer declared memoryless"
        }
        15 => {
            if aux & 1 == 0 {
                g.add_resource(Resource::buffer("", 4));
            } else {
                insert(&mut g, at, "", PassKind::Compute, vec![]);
                let p = g
                    .passes
                    .iter_mut()
                    .find(|p| p.name.starts_with('_'))
                    .expect("just inserted");
                p.name = "".into();
            }
            "empty name"
        }
        16 => {
            let i = image(
                &mut g,
                "msaa",
                ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16).samples(4),
            );
            insert(
                &mut g,
                at,
                "storage_on_msaa",
                PassKind::Compute,
                vec![use_(i, Access::StorageWrite)],
            );
            "storage access on a multisampled image"
        }
        17 => {
            let i = image(&mut g, "args_image", color);
            insert(
                &mut g,
                at,
                "indirect_image",
                PassKind::Compute,
                vec![use_(i, Access::Indirect)],
            );
            "indirect arguments in an image"
        }
        18 => {
            let a = image(
                &mut g,
                "big",
                ImageDesc::new(Format::R8G8B8A8_UNORM, 32, 32),
            );
            let b = image(
                &mut g,
                "small",
                ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16),
            );
            insert(
                &mut g,
                at,
                "mixed_extents",
                PassKind::Raster,
                vec![
                    use_(a, Access::ColorWriteAll),
                    use_(b, Access::ColorWriteAll),
                ],
            );
            "attachments of different extents"
        }
        19 => {
            // One transient buffer over the memory limit (a size near 2^64 or just over
            // 2^48), used or not.
            let size = [u64::MAX, 1 << 63, (1 << 48) + 1][aux as usize % 3];
            let name = format!("huge_{}", g.resources.len());
            let b = g.buffer(name, size);
            if aux & 4 == 0 {
                insert(
                    &mut g,
                    at,
                    "huge",
                    PassKind::Compute,
                    vec![use_(b, Access::StorageWrite)],
                );
            }
            "transient buffer over the memory limit"
        }
        20 => {
            // Transient images under the limit each, over it together.
            let desc = ImageDesc::new(Format::R32G32B32A32_SFLOAT, 65536, 65536).layers(2048);
            let a = image(&mut g, "huge_a", desc);
            let b = image(&mut g, "huge_b", desc);
            let c = image(&mut g, "huge_c", desc.layers(1));
            insert(
                &mut g,
                at,
                "huge_images",
                PassKind::Compute,
                vec![
                    use_(a, Access::StorageWrite),
                    use_(b, Access::StorageWrite),
                    use_(c, Access::StorageWrite),
                ],
            );
            "transient images over the memory limit together"
        }
        21 => {
            let i = image(&mut g, "colour", color);
            let mut u = use_(i, Access::ColorWriteAll);
            // A value without a clear, or a clear with a depth value on a colour image.
            u.clear = aux & 1 != 0;
            u.clear_value = Some(if u.clear {
                ClearValue::DepthStencil {
                    depth: 1.0,
                    stencil: 0,
                }
            } else {
                ClearValue::Color([1.0; 4])
            });
            insert(&mut g, at, "bad_clear_value", PassKind::Raster, vec![u]);
            "clear value without a clear, or of the wrong kind"
        }
        // (`per_frame` or `present` on a transient, and `present` without `per_frame` or with
        // `discard_on_last_use`, cannot be built: `Origin` has no such variant.)
        22 => {
            let b = buffer(&mut g, "present_buffer");
            g.resource_mut(b).origin = Origin::ImportedPerFrame(PerFrameImport {
                clear_on_first_use: aux & 1 == 0,
                exit: PerFrameExit::Present,
            });
            "present on a buffer"
        }
        23 => {
            let b = buffer(&mut g, "present_output");
            let r = g.resource_mut(b);
            r.origin = Origin::PRESENTED;
            r.output = true;
            "present on a buffer that is an output"
        }
        24 => {
            let (r, access) = if aux & 1 == 0 {
                (image(&mut g, "per_frame_img", color), Access::Sampled)
            } else {
                (buffer(&mut g, "per_frame_buf"), Access::Uniform)
            };
            g.resource_mut(r).origin = Origin::PER_FRAME;
            insert(
                &mut g,
                at,
                "per_frame_read",
                PassKind::Compute,
                vec![use_(r, access)],
            );
            "first use of a per_frame resource reads it"
        }
        25 => {
            let i = image(&mut g, "presented", color);
            g.resource_mut(i).origin = Origin::PRESENTED;
            insert(
                &mut g,
                at,
                "present_on_async",
                PassKind::Compute,
                vec![use_(i, Access::StorageWrite)],
            );
            let p = g
                .passes
                .iter_mut()
                .find(|p| p.name.starts_with("present_on_async"))
                .expect("just inserted");
            p.queue = QueueKind::AsyncCompute;
            "presented image on the async queue"
        }
        26 => {
            let (r, kind, access) = match aux % 3 {
                0 => (
                    image(&mut g, "ubo_image", color),
                    PassKind::Raster,
                    Access::Uniform,
                ),
                1 => (
                    buffer(&mut g, "vb"),
                    PassKind::Compute,
                    Access::VertexBuffer,
                ),
                _ => (
                    buffer(&mut g, "ib"),
                    PassKind::Transfer,
                    Access::IndexBuffer,
                ),
            };
            let writer = if matches!(g.resource(r).kind, ResourceKind::Buffer { .. }) {
                Access::StorageWrite
            } else {
                Access::ColorWriteAll
            };
            let writer_kind = if writer == Access::StorageWrite {
                PassKind::Compute
            } else {
                PassKind::Raster
            };
            insert(&mut g, 0, "writer", writer_kind, vec![use_(r, writer)]);
            insert(&mut g, at, "bad_buffer_access", kind, vec![use_(r, access)]);
            "vertex, index or uniform access that does not fit"
        }
        27 => {
            let b = buffer(&mut g, "cleared_buffer");
            let mut u = use_(b, Access::StorageWrite);
            u.clear = true;
            u.clear_value = Some(ClearValue::Color([0.0; 4]));
            insert(&mut g, at, "buffer_clear_value", PassKind::Compute, vec![u]);
            "clear value on a buffer"
        }
        _ => {
            let src = image(
                &mut g,
                "msaa",
                ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16).samples(4),
            );
            let dst = image(
                &mut g,
                "resolved",
                ImageDesc::new(Format::R16G16B16A16_SFLOAT, 16, 16),
            );
            let mut r = use_(dst, Access::Resolve);
            r.from = Some(src);
            insert(
                &mut g,
                at,
                "bad_resolve",
                PassKind::Raster,
                vec![use_(src, Access::ColorWriteAll), r],
            );
            "resolve between different formats"
        }
    };
    (g, what)
}
