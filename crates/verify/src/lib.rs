//! Checks a RenderDoc capture of a frame against the plan that ran it, without replaying it.
//!
//! RenderDoc records every Vulkan call with its parameters. [`rdc::convert`] turns an `.rdc`
//! file into RenderDoc's structured XML (`renderdoccmd convert -c xml`); [`facts::parse`]
//! walks its chunks once and keeps what a plan speaks about (render pass create infos,
//! framebuffers, images with their usage, buffers, debug names, render-pass begins,
//! subpass steps and debug labels); [`verdict::verify`] derives from the plan and its frame
//! description alone, never from the executor's code, what the capture must contain and
//! lists every difference, and [`table`] prints the result for people.
//!
//! RenderDoc changes some objects while it captures: it removes `TRANSIENT_ATTACHMENT` from
//! images and adds transfer usage so that it can read them back, which can rule out lazily
//! allocated memory and change placed sizes. The capture still records the usage the
//! application asked for and the load/store ops that keep an attachment in tile memory, and
//! those are what the verifier checks; memory types and placed sizes are not compared.

#![forbid(unsafe_code)]

pub mod facts;
pub mod rdc;
pub mod table;
pub mod verdict;

pub use facts::CaptureFacts;
pub use verdict::{verify, Verdict};

/// Why a capture could not be read.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// `renderdoccmd` is missing or failed.
    #[error("{0}")]
    Convert(String),
    /// RenderDoc's XML is not what this reader understands.
    #[error("{0}")]
    Xml(String),
}

/// The files written beside a capture `OUT.rdc` (by `tessera render --capture` and the
/// window's capture key) that the verifier reads: the plan of the captured frame, the
/// frame description it was compiled from, and the facts of the device it ran on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideFiles {
    /// `OUT.plan.json`: the plan, as `tessera plan --json` writes it (with the device
    /// capabilities and options it was compiled for).
    pub plan: std::path::PathBuf,
    /// `OUT.frame.json`: the frame description (docs/frame-format.md) of the graph the
    /// plan was compiled from, real resource sizes included.
    pub frame: std::path::PathBuf,
    /// `OUT.device.json`: the physical device, its memory types, the tools attached
    /// (RenderDoc), and the memoryless attachments that got ordinary memory.
    pub device: std::path::PathBuf,
}

impl SideFiles {
    /// The side files of the capture `rdc` (`OUT.rdc` -> `OUT.plan.json`, ...).
    pub fn beside(rdc: &std::path::Path) -> SideFiles {
        let stem = if rdc.extension().is_some_and(|e| e == "rdc") {
            rdc.with_extension("")
        } else {
            rdc.to_path_buf()
        };
        let with = |suffix: &str| {
            let mut s = stem.clone().into_os_string();
            s.push(suffix);
            std::path::PathBuf::from(s)
        };
        SideFiles {
            plan: with(".plan.json"),
            frame: with(".frame.json"),
            device: with(".device.json"),
        }
    }
}
