//! The checker's own access table: what each access kind, load operation and store operation
//! does to a resource, written from the Vulkan specification (chapters "Synchronization and
//! Cache Control", access types and their supported stages, and "Render Pass", load/store
//! operations), not from the compiler's `Access::scope`.
//!
//! - [`scope`]: stages, accesses and image layout of a use, per access kind × pass kind ×
//!   target class; `None` for a combination the frame format does not allow (attachments
//!   outside raster passes, colour accesses on depth formats, transfers outside transfer
//!   passes, …). A test checks that the compiler's table gives the same scope for every allowed
//!   combination and refuses every other one, so a wrong entry on either side is a failure
//!   rather than a shared blind spot.
//! - [`load_op`] / [`store_op`]: a load operation accesses the attachment at the start of the
//!   first subpass that uses it (`LOAD` reads, `CLEAR` and `DONT_CARE` write), a store
//!   operation at the end of the last one (`STORE` and `DONT_CARE` both write); colour
//!   attachments at `COLOR_ATTACHMENT_OUTPUT`, depth/stencil ones at `EARLY_FRAGMENT_TESTS`
//!   (load) and `LATE_FRAGMENT_TESTS` (store).
//! - [`writes`], [`observes`], [`replaces`]: the content rules (does a use modify, look at or
//!   completely replace earlier content).
//!
//! Everything is a constant-time match.

use crate::access::Access;
use crate::graph::{Graph, PassId, PassKind, ResourceId, Use};
use crate::plan::{LoadOp, StoreOp};
use crate::sync::{AccessMask, Layout, StageMask};

/// What a use is checked against: a buffer, a colour image or a depth/stencil image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Buffer,
    Color,
    Depth,
}

impl Class {
    /// The class of resource `r` of `graph` (a buffer when `r` is unknown).
    pub fn of(graph: &Graph, r: ResourceId) -> Class {
        match graph.resources.get(r.index()).and_then(|x| x.image_desc()) {
            None => Class::Buffer,
            Some(d) if d.format.is_depth_stencil() => Class::Depth,
            Some(_) => Class::Color,
        }
    }
}

/// Stages, accesses and layout of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scope {
    pub stages: StageMask,
    pub access: AccessMask,
    /// Layout the image must be in; `None` for buffers.
    pub layout: Option<Layout>,
}

/// The scope of `access` in a pass of kind `pass` on a target of class `class`; `None` when
/// the frame format does not allow the combination.
pub(crate) fn scope(access: Access, pass: PassKind, class: Class) -> Option<Scope> {
    use Access as A;
    use Class::{Buffer, Color, Depth};
    let s = |stages, access, layout| {
        Some(Scope {
            stages,
            access,
            layout,
        })
    };
    // Shader stages of a dispatch, or of a draw (vertex and fragment shaders both may read
    // textures and buffers).
    let shader = match pass {
        PassKind::Compute => StageMask::COMPUTE_SHADER,
        PassKind::Raster => StageMask::VERTEX_SHADER | StageMask::FRAGMENT_SHADER,
        PassKind::Transfer => return transfer(access, pass, class),
    };
    let image = |l| (class != Buffer).then_some(l);
    let raster = pass == PassKind::Raster;
    let color_out = StageMask::COLOR_ATTACHMENT_OUTPUT;
    let tests = StageMask::EARLY_FRAGMENT_TESTS | StageMask::LATE_FRAGMENT_TESTS;
    let read_only = |class| match class {
        Depth => Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL,
        _ => Layout::SHADER_READ_ONLY_OPTIMAL,
    };
    match (access, class) {
        // Colour attachments: written at COLOR_ATTACHMENT_OUTPUT; blending reads there too,
        // and a partial write is treated as a read-modify-write of the pixels it keeps.
        (A::ColorWrite | A::ColorReadWrite, Color) if raster => s(
            color_out,
            AccessMask::COLOR_ATTACHMENT_READ | AccessMask::COLOR_ATTACHMENT_WRITE,
            Some(Layout::COLOR_ATTACHMENT_OPTIMAL),
        ),
        // Every pixel written (a resolve writes every pixel of its target at the end of the
        // subpass, in the colour attachment output stage).
        (A::ColorWriteAll | A::Resolve, Color) if raster => s(
            color_out,
            AccessMask::COLOR_ATTACHMENT_WRITE,
            Some(Layout::COLOR_ATTACHMENT_OPTIMAL),
        ),
        // A depth/stencil resolve too runs in the colour attachment output stage with a
        // colour attachment write; its target stays in the depth/stencil attachment layout.
        (A::Resolve, Depth) if raster => s(
            color_out,
            AccessMask::COLOR_ATTACHMENT_WRITE,
            Some(Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        ),
        // Depth/stencil tests run in both fragment test stages.
        (A::DepthWrite, Depth) if raster => s(
            tests,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_READ | AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
            Some(Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        ),
        (A::DepthRead, Depth) if raster => s(
            tests,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_READ,
            Some(Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL),
        ),
        // subpassLoad runs in the fragment shader.
        (A::InputAttachment, Color | Depth) if raster => s(
            StageMask::FRAGMENT_SHADER,
            AccessMask::INPUT_ATTACHMENT_READ,
            Some(read_only(class)),
        ),
        (A::Sampled, Color | Depth) => s(
            shader,
            AccessMask::SHADER_SAMPLED_READ,
            Some(read_only(class)),
        ),
        (A::StorageRead, Color | Buffer) => s(
            shader,
            AccessMask::SHADER_STORAGE_READ,
            image(Layout::GENERAL),
        ),
        (A::StorageWrite, Color | Buffer) => s(
            shader,
            AccessMask::SHADER_STORAGE_WRITE,
            image(Layout::GENERAL),
        ),
        (A::StorageReadWrite, Color | Buffer) => s(
            shader,
            AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_STORAGE_WRITE,
            image(Layout::GENERAL),
        ),
        (A::Indirect, Buffer) => s(
            StageMask::DRAW_INDIRECT,
            AccessMask::INDIRECT_COMMAND_READ,
            None,
        ),
        // Vertex input (synchronization2 splits it): attribute fetch reads vertex buffers,
        // index fetch reads the index buffer; both only in draws.
        (A::VertexBuffer, Buffer) if raster => s(
            StageMask::VERTEX_INPUT,
            AccessMask::VERTEX_ATTRIBUTE_READ,
            None,
        ),
        (A::IndexBuffer, Buffer) if raster => {
            s(StageMask::INDEX_INPUT, AccessMask::INDEX_READ, None)
        }
        // Uniform blocks are read by the shader stages of the pass.
        (A::Uniform, Buffer) => s(shader, AccessMask::UNIFORM_READ, None),
        _ => None,
    }
}

/// The read a depth/stencil resolve makes of its source, in addition to the source's own
/// attachment use, when `use_` (a depth attachment of pass `p`) is resolved by `p`: the
/// specification's multisample resolve reads at `COLOR_ATTACHMENT_OUTPUT` with
/// `COLOR_ATTACHMENT_READ`, whatever the aspect ("Render Pass", multisample resolve
/// operations). `None` for every other use (a colour source is used at that stage anyway).
pub(crate) fn resolve_read(
    graph: &Graph,
    p: PassId,
    use_: &Use,
) -> Option<(StageMask, AccessMask)> {
    let pass = graph.passes.get(p.index())?;
    let resolved = pass
        .uses
        .iter()
        .any(|v| v.access == Access::Resolve && v.from == Some(use_.resource));
    (matches!(use_.access, Access::DepthWrite | Access::DepthRead) && resolved).then_some((
        StageMask::COLOR_ATTACHMENT_OUTPUT,
        AccessMask::COLOR_ATTACHMENT_READ,
    ))
}

/// Accesses of a transfer pass: copies, blits and clears.
fn transfer(access: Access, pass: PassKind, class: Class) -> Option<Scope> {
    let layout = |l| (class != Class::Buffer).then_some(l);
    let (access, layout) = match (access, pass) {
        (Access::TransferSrc, PassKind::Transfer) => (
            AccessMask::TRANSFER_READ,
            layout(Layout::TRANSFER_SRC_OPTIMAL),
        ),
        (Access::TransferDst, PassKind::Transfer) => (
            AccessMask::TRANSFER_WRITE,
            layout(Layout::TRANSFER_DST_OPTIMAL),
        ),
        _ => return None,
    };
    Some(Scope {
        stages: StageMask::ALL_TRANSFER,
        access,
        layout,
    })
}

/// The scope of a use the table does not allow (a malformed graph): every stage and every
/// access, so that nothing that touches it is taken as ordered by accident.
pub(crate) fn unknown() -> Scope {
    Scope {
        stages: StageMask::ALL_COMMANDS,
        access: AccessMask::MEMORY_READ | AccessMask::MEMORY_WRITE,
        layout: None,
    }
}

/// An access a render pass's load or store operation makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpAccess {
    pub stages: StageMask,
    pub access: AccessMask,
    pub writes: bool,
}

/// The access of load operation `op` on an attachment (depth/stencil when `depth`): at the
/// start of the first subpass that uses it. `LOAD` reads; `CLEAR` and `DONT_CARE` write.
pub(crate) fn load_op(op: LoadOp, depth: bool) -> OpAccess {
    let writes = op != LoadOp::Load;
    let (stages, access) = match (depth, writes) {
        (false, false) => (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            AccessMask::COLOR_ATTACHMENT_READ,
        ),
        (false, true) => (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            AccessMask::COLOR_ATTACHMENT_WRITE,
        ),
        (true, false) => (
            StageMask::EARLY_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_READ,
        ),
        (true, true) => (
            StageMask::EARLY_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
        ),
    };
    OpAccess {
        stages,
        access,
        writes,
    }
}

/// The access of store operation `op` on an attachment: at the end of the last subpass that
/// uses it. `STORE` and `DONT_CARE` both write (the plan has no `STORE_OP_NONE`).
pub(crate) fn store_op(op: StoreOp, depth: bool) -> OpAccess {
    let (StoreOp::Store | StoreOp::DontCare) = op;
    let (stages, access) = if depth {
        (
            StageMask::LATE_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
        )
    } else {
        (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            AccessMask::COLOR_ATTACHMENT_WRITE,
        )
    };
    OpAccess {
        stages,
        access,
        writes: true,
    }
}

/// True when the use modifies the resource.
pub(crate) fn writes(access: Access) -> bool {
    matches!(
        access,
        Access::ColorWrite
            | Access::ColorWriteAll
            | Access::ColorReadWrite
            | Access::DepthWrite
            | Access::StorageWrite
            | Access::StorageReadWrite
            | Access::TransferDst
            | Access::Resolve
    )
}

/// True when the use looks at earlier content: a read, a blend, a depth test (a depth write
/// without a clear tests against what is there).
pub(crate) fn observes(access: Access, clear: bool) -> bool {
    !clear
        && matches!(
            access,
            Access::DepthRead
                | Access::DepthWrite
                | Access::InputAttachment
                | Access::Sampled
                | Access::StorageRead
                | Access::StorageReadWrite
                | Access::TransferSrc
                | Access::Indirect
                | Access::VertexBuffer
                | Access::IndexBuffer
                | Access::Uniform
                | Access::ColorReadWrite
        )
}

/// True when use `u` of pass `p` looks at the content it finds: it observes it (a read, a
/// depth test), or it keeps it and `p` resolves the attachment (the resolve reads every
/// sample, the kept ones included). A blend looks at earlier content only to compute its own
/// result, so for liveness it keeps the content without looking (see [`blends`]): the
/// content is needed exactly when the blend's result is.
pub(crate) fn looks_at(graph: &Graph, p: PassId, u: &Use) -> bool {
    (observes(u.access, u.clear) && !blends(u.access, u.clear))
        || (!replaces_use(u)
            && graph
                .pass(p)
                .uses
                .iter()
                .any(|v| v.access == Access::Resolve && v.from == Some(u.resource)))
}

/// True for a blend without a clear: it reads earlier content into what it writes to the same
/// attachment, and nowhere else.
pub(crate) fn blends(access: Access, clear: bool) -> bool {
    access == Access::ColorReadWrite && !clear
}

/// True when the use replaces all earlier content (a clear, or a write of every pixel).
pub(crate) fn replaces(access: Access, clear: bool) -> bool {
    clear || matches!(access, Access::ColorWriteAll | Access::Resolve)
}

/// True when use `u` replaces all earlier content: [`replaces`], or a colour write covered by
/// a depth image (the pixels it leaves undefined are never read, `coverage.*` rules).
pub(crate) fn replaces_use(u: &Use) -> bool {
    replaces(u.access, u.clear)
        || (u.coverage.is_some() && matches!(u.access, Access::ColorWrite | Access::ColorWriteAll))
}

/// True for uses that are attachments of a render pass.
pub(crate) fn is_attachment(access: Access) -> bool {
    matches!(
        access,
        Access::ColorWrite
            | Access::ColorWriteAll
            | Access::ColorReadWrite
            | Access::DepthWrite
            | Access::DepthRead
            | Access::InputAttachment
            | Access::Resolve
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Target;
    use crate::format::Format;

    const PASSES: [PassKind; 3] = [PassKind::Raster, PassKind::Compute, PassKind::Transfer];

    fn targets() -> [(Target, Class); 5] {
        [
            (Target::Buffer, Class::Buffer),
            (Target::Image(Format::R8G8B8A8_UNORM), Class::Color),
            (Target::Image(Format::R16G16B16A16_SFLOAT), Class::Color),
            (Target::Image(Format::D32_SFLOAT), Class::Depth),
            (Target::Image(Format::D24_UNORM_S8_UINT), Class::Depth),
        ]
    }

    /// The checker's table and the compiler's `Access::scope` agree on every access kind,
    /// pass kind and target the compiler accepts, and the checker refuses the others.
    #[test]
    fn agrees_with_the_compiler_table_everywhere() {
        let mut compared = 0;
        for &access in Access::ALL {
            for pass in PASSES {
                for (target, class) in targets() {
                    let mine = scope(access, pass, class);
                    match access.check(pass, target) {
                        Ok(()) => {
                            let theirs = access.scope(pass, target);
                            let theirs = Scope {
                                stages: theirs.stages,
                                access: theirs.access,
                                layout: theirs.layout,
                            };
                            assert_eq!(mine, Some(theirs), "{access} in {pass:?} on {target:?}");
                            compared += 1;
                        }
                        Err(why) => assert_eq!(
                            mine, None,
                            "{access} in {pass:?} on {target:?}: the compiler refuses it ({why})"
                        ),
                    }
                }
            }
        }
        assert!(compared >= 40, "only {compared} combinations compared");
    }

    #[test]
    fn content_rules_agree_with_the_compiler() {
        for &a in Access::ALL {
            assert_eq!(writes(a), a.writes(), "{a}");
            assert_eq!(is_attachment(a), a.is_attachment(), "{a}");
            for clear in [false, true] {
                assert_eq!(
                    replaces(a, clear),
                    !a.keeps_content(clear),
                    "{a} clear {clear}"
                );
            }
        }
    }

    #[test]
    fn load_and_store_operations_are_accesses() {
        let load = load_op(LoadOp::Load, true);
        assert!(!load.writes);
        assert_eq!(load.stages, StageMask::EARLY_FRAGMENT_TESTS);
        for op in [LoadOp::Clear, LoadOp::DontCare] {
            let a = load_op(op, false);
            assert!(a.writes && a.access == AccessMask::COLOR_ATTACHMENT_WRITE);
        }
        for op in [StoreOp::Store, StoreOp::DontCare] {
            let d = store_op(op, true);
            assert!(d.writes);
            assert_eq!(
                (d.stages, d.access),
                (
                    StageMask::LATE_FRAGMENT_TESTS,
                    AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
                )
            );
            assert_eq!(
                store_op(op, false).stages,
                StageMask::COLOR_ATTACHMENT_OUTPUT
            );
        }
    }
}
