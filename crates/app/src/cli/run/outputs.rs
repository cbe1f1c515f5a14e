//! The files a run writes on request (screenshots, RenderDoc captures, plan dumps): where
//! they go and the ones asked of the next frame.

use std::path::PathBuf;
use tessera_vk::capture::Capture;

/// Where files go, and what the next frame writes.
pub struct Outputs {
    /// `--out-dir`.
    pub out_dir: PathBuf,
    /// Numbered files written so far.
    pub files: u64,
    /// The next frame is read back and written here.
    pub screenshot: Option<PathBuf>,
    /// The next frame is captured with RenderDoc and written here.
    pub capture_next: Option<PathBuf>,
    /// RenderDoc, when loaded (`--renderdoc`).
    pub capture: Option<Capture>,
}

impl Outputs {
    pub fn new(out_dir: PathBuf) -> Outputs {
        Outputs {
            out_dir,
            files: 0,
            screenshot: None,
            capture_next: None,
            capture: None,
        }
    }

    /// Loads RenderDoc. Before the Vulkan instance: RenderDoc hooks Vulkan as it loads.
    pub fn load_renderdoc(&mut self) -> anyhow::Result<()> {
        let first = self.out_dir.join("capture.rdc");
        self.capture =
            Some(Capture::load(&first).map_err(|e| anyhow::anyhow!("--renderdoc: {e}"))?);
        log::info!("RenderDoc loaded: F9 captures the next frame");
        Ok(())
    }

    /// Where a screenshot or capture goes: a path the script names, inside `--out-dir` when
    /// relative, else the next numbered file there.
    pub fn file(&mut self, given: Option<PathBuf>, stem: &str, ext: &str) -> PathBuf {
        given.map(|p| self.out_dir.join(p)).unwrap_or_else(|| {
            self.files += 1;
            self.out_dir.join(format!("{stem}-{:04}.{ext}", self.files))
        })
    }
}
