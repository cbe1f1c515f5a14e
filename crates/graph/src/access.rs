//! Access kinds: how a pass uses a resource, and what each kind means for ordering,
//! content, pipeline stages, memory accesses and image layouts.
//!
//! This table is the single place where the abstract vocabulary of the frame file is
//! turned into synchronization facts. The plan checker has its own, independent view of
//! hazards (it only looks at read/write sets), so a mistake here shows up as a checker
//! failure rather than being silently shared.

use crate::format::Format;
use crate::sync::{AccessMask, Layout, StageMask};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a pass does on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassKind {
    /// Draws into attachments; may merge into a render pass with its neighbours.
    Raster,
    /// Dispatches compute work.
    Compute,
    /// Copies, blits, clears.
    Transfer,
}

/// How a pass uses a resource (docs/frame-format.md "Accesses").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Colour attachment that may leave pixels untouched (earlier content survives).
    ColorWrite,
    /// Colour attachment whose every pixel is written.
    ColorWriteAll,
    /// Colour attachment read and written (blending).
    ColorReadWrite,
    /// Depth/stencil attachment, tested and written.
    DepthWrite,
    /// Depth/stencil attachment, tested only.
    DepthRead,
    /// Same-pixel read inside a render pass (`subpassLoad`).
    InputAttachment,
    /// Texture read at any pixel.
    Sampled,
    /// Storage image/buffer read.
    StorageRead,
    /// Storage image/buffer write; may leave parts untouched.
    StorageWrite,
    /// Storage image/buffer read and written (atomics, accumulation).
    StorageReadWrite,
    /// Copy/blit source.
    TransferSrc,
    /// Copy/blit/clear destination; may leave parts untouched.
    TransferDst,
    /// Buffer read as indirect draw/dispatch arguments.
    Indirect,
    /// Single-sampled target of an MSAA resolve (the source is named by `from`).
    Resolve,
    /// Buffer read as vertex attributes (`vkCmdBindVertexBuffers`); raster passes only.
    VertexBuffer,
    /// Buffer read as indices (`vkCmdBindIndexBuffer`); raster passes only.
    IndexBuffer,
    /// Buffer read as a uniform buffer by the pass's shaders.
    Uniform,
}

/// The resource shape an access is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// An image of this format.
    Image(Format),
    /// A buffer.
    Buffer,
}

/// Stage, access and layout of one use: what a barrier waits on or makes visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SyncScope {
    /// Pipeline stages that perform the access.
    pub stages: StageMask,
    /// Memory accesses performed.
    pub access: AccessMask,
    /// Image layout required during the use; `None` for buffers.
    pub layout: Option<Layout>,
}

impl SyncScope {
    /// This scope widened by the read a depth/stencil resolve makes of its source at the end
    /// of the subpass: the Vulkan specification puts every multisample resolve in the colour
    /// attachment output stage, reading the multisampled attachment with
    /// `COLOR_ATTACHMENT_READ`, depth/stencil ones included. A depth attachment's own stages
    /// (the fragment tests) do not cover that read, so a dependency or barrier on the source
    /// of a depth resolve must name it too; colour attachments are used in that stage anyway.
    #[must_use]
    pub fn with_resolve_read(self) -> SyncScope {
        SyncScope {
            stages: self.stages | StageMask::COLOR_ATTACHMENT_OUTPUT,
            access: self.access | AccessMask::COLOR_ATTACHMENT_READ,
            layout: self.layout,
        }
    }
}

impl Access {
    /// Every access kind.
    pub const ALL: &'static [Access] = &[
        Access::ColorWrite,
        Access::ColorWriteAll,
        Access::ColorReadWrite,
        Access::DepthWrite,
        Access::DepthRead,
        Access::InputAttachment,
        Access::Sampled,
        Access::StorageRead,
        Access::StorageWrite,
        Access::StorageReadWrite,
        Access::TransferSrc,
        Access::TransferDst,
        Access::Indirect,
        Access::Resolve,
        Access::VertexBuffer,
        Access::IndexBuffer,
        Access::Uniform,
    ];

    /// The snake_case name used in frame files.
    pub fn name(self) -> &'static str {
        match self {
            Access::ColorWrite => "color_write",
            Access::ColorWriteAll => "color_write_all",
            Access::ColorReadWrite => "color_read_write",
            Access::DepthWrite => "depth_write",
            Access::DepthRead => "depth_read",
            Access::InputAttachment => "input_attachment",
            Access::Sampled => "sampled",
            Access::StorageRead => "storage_read",
            Access::StorageWrite => "storage_write",
            Access::StorageReadWrite => "storage_read_write",
            Access::TransferSrc => "transfer_src",
            Access::TransferDst => "transfer_dst",
            Access::Indirect => "indirect",
            Access::Resolve => "resolve",
            Access::VertexBuffer => "vertex_buffer",
            Access::IndexBuffer => "index_buffer",
            Access::Uniform => "uniform",
        }
    }

    /// True when the use modifies the resource.
    pub fn writes(self) -> bool {
        matches!(
            self,
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

    /// True when the use needs earlier content: reading a transient resource that no earlier
    /// pass wrote is an error. `clear` turns a read-modify-write into a plain write.
    pub fn reads(self, clear: bool) -> bool {
        match self {
            Access::DepthRead
            | Access::InputAttachment
            | Access::Sampled
            | Access::StorageRead
            | Access::TransferSrc
            | Access::Indirect
            | Access::VertexBuffer
            | Access::IndexBuffer
            | Access::Uniform
            | Access::StorageReadWrite => true,
            Access::ColorReadWrite => !clear,
            _ => false,
        }
    }

    /// True when earlier content survives the use: the pass may leave parts untouched (or
    /// reads them), so whoever wrote that content still feeds later readers. Only a clear or a
    /// write of every pixel replaces content completely.
    pub fn keeps_content(self, clear: bool) -> bool {
        if clear {
            return false;
        }
        match self {
            Access::ColorWriteAll | Access::Resolve => false,
            Access::ColorWrite
            | Access::ColorReadWrite
            | Access::DepthWrite
            | Access::StorageWrite
            | Access::StorageReadWrite
            | Access::TransferDst => true,
            // Pure reads keep content by definition.
            _ => true,
        }
    }

    /// True for uses that are attachments of a render pass.
    pub fn is_attachment(self) -> bool {
        matches!(
            self,
            Access::ColorWrite
                | Access::ColorWriteAll
                | Access::ColorReadWrite
                | Access::DepthWrite
                | Access::DepthRead
                | Access::InputAttachment
                | Access::Resolve
        )
    }

    /// True when `clear: true` is meaningful for the access (attachments written by the pass,
    /// and transfer destinations cleared by the pass).
    pub fn can_clear(self) -> bool {
        matches!(
            self,
            Access::ColorWrite
                | Access::ColorWriteAll
                | Access::ColorReadWrite
                | Access::DepthWrite
                | Access::TransferDst
                | Access::StorageWrite
        )
    }

    /// Checks that the access fits the pass kind and the resource; the error is the rule
    /// that is broken, in words.
    pub fn check(self, pass: PassKind, target: Target) -> Result<(), &'static str> {
        let raster_only = self.is_attachment();
        if raster_only && pass != PassKind::Raster {
            return Err("attachment accesses are only allowed in raster passes");
        }
        match (self, pass) {
            (Access::TransferSrc | Access::TransferDst, PassKind::Raster | PassKind::Compute) => {
                return Err("transfer accesses are only allowed in transfer passes")
            }
            (
                Access::Sampled
                | Access::StorageRead
                | Access::StorageWrite
                | Access::StorageReadWrite
                | Access::Indirect
                | Access::Uniform,
                PassKind::Transfer,
            ) => return Err("shader accesses are not allowed in transfer passes"),
            (
                Access::VertexBuffer | Access::IndexBuffer,
                PassKind::Compute | PassKind::Transfer,
            ) => return Err("vertex and index buffers are only read by raster passes"),
            _ => {}
        }
        match (self, target) {
            // A resolve may target a depth/stencil image: whether its source fits is the
            // validate phase's rule (a multisampled depth attachment of the same pass).
            (
                Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite,
                Target::Image(f),
            ) if f.is_depth_stencil() => Err("colour access on a depth/stencil format"),
            (Access::DepthWrite | Access::DepthRead, Target::Image(f)) if !f.is_depth_stencil() => {
                Err("depth access on a colour format")
            }
            (
                Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite,
                Target::Image(f),
            ) if f.is_depth_stencil() => Err("storage access on a depth/stencil format"),
            (Access::Indirect, Target::Image(_)) => Err("indirect arguments must be a buffer"),
            (Access::VertexBuffer | Access::IndexBuffer | Access::Uniform, Target::Image(_)) => {
                Err("vertex, index and uniform buffer accesses are for buffers, not images")
            }
            (
                Access::ColorWrite
                | Access::ColorWriteAll
                | Access::ColorReadWrite
                | Access::DepthWrite
                | Access::DepthRead
                | Access::InputAttachment
                | Access::Sampled
                | Access::Resolve,
                Target::Buffer,
            ) => Err("image access on a buffer"),
            _ => Ok(()),
        }
    }

    /// Stages, accesses and layout of the use in a pass of kind `pass` on `target`.
    pub fn scope(self, pass: PassKind, target: Target) -> SyncScope {
        // Raster passes may read buffers and textures from vertex as well as fragment shaders
        // (instance data, GPU-culled lists), so both stages are in scope.
        let shader = match pass {
            PassKind::Compute => StageMask::COMPUTE_SHADER,
            _ => StageMask::VERTEX_SHADER | StageMask::FRAGMENT_SHADER,
        };
        let image = |l: Layout| match target {
            Target::Image(_) => Some(l),
            Target::Buffer => None,
        };
        let depth_image = matches!(target, Target::Image(f) if f.is_depth_stencil());
        let tests = StageMask::EARLY_FRAGMENT_TESTS | StageMask::LATE_FRAGMENT_TESTS;
        let (stages, access, layout) = match self {
            // A partial write may load earlier content, which is a read at the same stage.
            Access::ColorWrite | Access::ColorReadWrite => (
                StageMask::COLOR_ATTACHMENT_OUTPUT,
                AccessMask::COLOR_ATTACHMENT_READ | AccessMask::COLOR_ATTACHMENT_WRITE,
                image(Layout::COLOR_ATTACHMENT_OPTIMAL),
            ),
            Access::ColorWriteAll => (
                StageMask::COLOR_ATTACHMENT_OUTPUT,
                AccessMask::COLOR_ATTACHMENT_WRITE,
                image(Layout::COLOR_ATTACHMENT_OPTIMAL),
            ),
            // Every resolve, depth/stencil ones included, runs at the end of its subpass in
            // the colour attachment output stage and writes with COLOR_ATTACHMENT_WRITE (the
            // Vulkan specification, "Render Pass", multisample resolve operations); only the
            // layout follows the target's aspect.
            Access::Resolve => (
                StageMask::COLOR_ATTACHMENT_OUTPUT,
                AccessMask::COLOR_ATTACHMENT_WRITE,
                image(if depth_image {
                    Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                } else {
                    Layout::COLOR_ATTACHMENT_OPTIMAL
                }),
            ),
            Access::DepthWrite => (
                tests,
                AccessMask::DEPTH_STENCIL_ATTACHMENT_READ
                    | AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
                image(Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
            ),
            Access::DepthRead => (
                tests,
                AccessMask::DEPTH_STENCIL_ATTACHMENT_READ,
                image(Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL),
            ),
            Access::InputAttachment => (
                StageMask::FRAGMENT_SHADER,
                AccessMask::INPUT_ATTACHMENT_READ,
                image(if depth_image {
                    Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
                } else {
                    Layout::SHADER_READ_ONLY_OPTIMAL
                }),
            ),
            Access::Sampled => (
                shader,
                AccessMask::SHADER_SAMPLED_READ,
                image(if depth_image {
                    Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
                } else {
                    Layout::SHADER_READ_ONLY_OPTIMAL
                }),
            ),
            Access::StorageRead => (
                shader,
                AccessMask::SHADER_STORAGE_READ,
                image(Layout::GENERAL),
            ),
            Access::StorageWrite => (
                shader,
                AccessMask::SHADER_STORAGE_WRITE,
                image(Layout::GENERAL),
            ),
            Access::StorageReadWrite => (
                shader,
                AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_STORAGE_WRITE,
                image(Layout::GENERAL),
            ),
            Access::TransferSrc => (
                StageMask::ALL_TRANSFER,
                AccessMask::TRANSFER_READ,
                image(Layout::TRANSFER_SRC_OPTIMAL),
            ),
            Access::TransferDst => (
                StageMask::ALL_TRANSFER,
                AccessMask::TRANSFER_WRITE,
                image(Layout::TRANSFER_DST_OPTIMAL),
            ),
            Access::Indirect => (
                StageMask::DRAW_INDIRECT,
                AccessMask::INDIRECT_COMMAND_READ,
                None,
            ),
            Access::VertexBuffer => (
                StageMask::VERTEX_INPUT,
                AccessMask::VERTEX_ATTRIBUTE_READ,
                None,
            ),
            Access::IndexBuffer => (StageMask::INDEX_INPUT, AccessMask::INDEX_READ, None),
            Access::Uniform => (shader, AccessMask::UNIFORM_READ, None),
        };
        SyncScope {
            stages,
            access,
            layout,
        }
    }
}

/// What [`Access::scope`] needs to know of a [`Target`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetClass {
    /// A buffer.
    Buffer,
    /// A colour image.
    Color,
    /// A depth/stencil image.
    DepthStencil,
}

impl Target {
    /// The class of the target.
    pub fn class(self) -> TargetClass {
        match self {
            Target::Buffer => TargetClass::Buffer,
            Target::Image(f) if f.is_depth_stencil() => TargetClass::DepthStencil,
            Target::Image(_) => TargetClass::Color,
        }
    }
}

/// Every [`SyncScope`] that [`Access::scope`] gives, computed once and then looked up: for a
/// phase that needs the scope of every use, a lookup costs a few instructions where the
/// derivation is a match over access, pass kind and target. Scopes depend on the target only
/// through its [`TargetClass`].
#[derive(Clone, Debug)]
pub struct ScopeTable {
    scopes: Vec<SyncScope>,
}

/// Pass kinds, in the table's order.
const PASS_KINDS: [PassKind; 3] = [PassKind::Raster, PassKind::Compute, PassKind::Transfer];

impl ScopeTable {
    /// The scopes of every access, pass kind and target class.
    pub fn new() -> Self {
        let targets = [
            Target::Buffer,
            Target::Image(Format::R8G8B8A8_UNORM),
            Target::Image(Format::D32_SFLOAT),
        ];
        let mut scopes = Vec::with_capacity(Access::ALL.len() * 9);
        for &access in Access::ALL {
            for pass in PASS_KINDS {
                for target in targets {
                    scopes.push(access.scope(pass, target));
                }
            }
        }
        ScopeTable { scopes }
    }

    /// [`Access::scope`] of `access` in a pass of kind `pass` on a target of class `class`.
    pub fn scope(&self, access: Access, pass: PassKind, class: TargetClass) -> SyncScope {
        let class = class as usize;
        let pass = match pass {
            PassKind::Raster => 0,
            PassKind::Compute => 1,
            PassKind::Transfer => 2,
        };
        self.scopes[access as usize * 9 + pass * 3 + class]
    }
}

impl Default for ScopeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde() {
        for &a in Access::ALL {
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                format!("\"{}\"", a.name())
            );
        }
    }

    #[test]
    fn storage_write_on_buffer_has_no_layout_but_is_a_write() {
        let s = Access::StorageWrite.scope(PassKind::Compute, Target::Buffer);
        assert_eq!(s.layout, None);
        assert!(s.access.has_write());
        assert_eq!(s.stages, StageMask::COMPUTE_SHADER);
    }

    #[test]
    fn fit_rules() {
        let color = Target::Image(Format::R8G8B8A8_UNORM);
        let depth = Target::Image(Format::D32_SFLOAT);
        assert!(Access::DepthWrite.check(PassKind::Raster, color).is_err());
        assert!(Access::ColorWrite.check(PassKind::Raster, depth).is_err());
        assert!(Access::Resolve.check(PassKind::Raster, depth).is_ok());
        assert!(Access::Resolve.check(PassKind::Compute, depth).is_err());
        assert!(Access::InputAttachment
            .check(PassKind::Raster, Target::Buffer)
            .is_err());
        assert!(Access::ColorWrite.check(PassKind::Compute, color).is_err());
        assert!(Access::Indirect
            .check(PassKind::Raster, Target::Buffer)
            .is_ok());
        assert!(Access::TransferDst
            .check(PassKind::Compute, Target::Buffer)
            .is_err());
    }

    #[test]
    fn scope_table_agrees_with_scope() {
        let table = ScopeTable::new();
        let targets = [
            Target::Buffer,
            Target::Image(Format::R16G16B16A16_SFLOAT),
            Target::Image(Format::R32_SFLOAT),
            Target::Image(Format::D24_UNORM_S8_UINT),
            Target::Image(Format::D32_SFLOAT),
        ];
        for &access in Access::ALL {
            for pass in PASS_KINDS {
                for target in targets {
                    assert_eq!(
                        table.scope(access, pass, target.class()),
                        access.scope(pass, target),
                        "{access} in {pass:?} on {target:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_depth_resolve_writes_at_colour_output_in_a_depth_layout() {
        let s = Access::Resolve.scope(PassKind::Raster, Target::Image(Format::D32_SFLOAT));
        assert_eq!(
            (s.stages, s.access, s.layout),
            (
                StageMask::COLOR_ATTACHMENT_OUTPUT,
                AccessMask::COLOR_ATTACHMENT_WRITE,
                Some(Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
            )
        );
        let c = Access::Resolve.scope(PassKind::Raster, Target::Image(Format::R8G8B8A8_UNORM));
        assert_eq!(c.layout, Some(Layout::COLOR_ATTACHMENT_OPTIMAL));
    }

    #[test]
    fn content_rules() {
        assert!(Access::Sampled.reads(false));
        assert!(!Access::ColorReadWrite.reads(true));
        assert!(Access::ColorWrite.keeps_content(false));
        assert!(!Access::ColorWrite.keeps_content(true));
        assert!(!Access::ColorWriteAll.keeps_content(false));
    }
}
