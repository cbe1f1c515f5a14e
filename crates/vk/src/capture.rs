//! RenderDoc frame capture through RenderDoc's in-app API (`tessera exec --capture`).
//!
//! RenderDoc's Vulkan layer is an implicit layer that the loader enables only when
//! `librenderdoc.so` is already loaded in the process, so [`Capture::load`] must run before
//! the Vulkan instance is created. It loads the library at run time (libloading; a missing
//! RenderDoc is an error naming what to install, never a panic), then takes RenderDoc's API
//! through the `renderdoc` crate, which only finds a library that is already loaded.
//! [`Capture::start`] and [`Capture::end`] bracket the frame to capture (a headless run never
//! presents, so only the in-app API can mark a frame); `end` moves the file RenderDoc wrote
//! (named from a path template, with a frame suffix) to the path the user asked for.
//!
//! RenderDoc's own capture keys and overlay are turned off: Tessera decides which frame is
//! captured. With RenderDoc attached the device reports Vulkan 1.2: [`crate::device`] then
//! enables the 1.3 features the executor needs as extensions.

use crate::VkError;
use renderdoc::{RenderDoc, V141};
use std::path::{Path, PathBuf};

/// Where `librenderdoc.so` is looked for, in order: the loader's search path, then the path
/// Debian's `librenderdoc` package installs it at. [`LIBRARY_ENV`] replaces the list.
const LIBRARY: [&str; 2] = ["librenderdoc.so", "/usr/lib/librenderdoc.so"];

/// Environment variable naming the `librenderdoc.so` to load (RenderDoc installed elsewhere,
/// e.g. from RenderDoc's own archive).
pub const LIBRARY_ENV: &str = "TESSERA_RENDERDOC";

/// RenderDoc loaded into the process, ready to capture one frame into `out`.
pub struct Capture {
    api: RenderDoc<V141>,
    out: PathBuf,
    template: PathBuf,
    // Kept loaded for the whole process lifetime of the capture (RenderDoc never unloads).
    _library: libloading::Library,
}

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("out", &self.out)
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}

impl Capture {
    /// Loads RenderDoc to capture into `out` (a `.rdc` file). Call before creating the
    /// Vulkan instance.
    pub fn load(out: &Path) -> Result<Capture, VkError> {
        let mut errors = Vec::new();
        let mut library = None;
        let candidates: Vec<std::ffi::OsString> = match std::env::var_os(LIBRARY_ENV) {
            Some(p) => vec![p],
            None => LIBRARY.iter().map(|&n| n.into()).collect(),
        };
        for name in &candidates {
            // SAFETY: loading RenderDoc runs its initialisers, which install its hooks and
            // enable its Vulkan layer; it is made to be loaded into any process this way.
            match unsafe { libloading::Library::new(name) } {
                Ok(l) => {
                    library = Some(l);
                    break;
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        let Some(library) = library else {
            return Err(VkError::Setup(format!(
                "--capture needs RenderDoc's library librenderdoc.so, which is not installed \
                 or could not be loaded (Debian: apt-get install renderdoc; or set \
                 {LIBRARY_ENV} to its path): {}",
                errors.join("; ")
            )));
        };
        let mut api = RenderDoc::<V141>::new().map_err(|e| {
            VkError::Setup(format!(
                "librenderdoc.so is loaded but its in-app API (1.4.1) is not available: {e}"
            ))
        })?;
        if out.is_dir() {
            return Err(VkError::Setup(format!(
                "capture path {} is a directory, not a file",
                out.display()
            )));
        }
        let dir = out
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(VkError::Setup(format!(
                "capture folder {} does not exist",
                dir.display()
            )));
        }
        let stem = out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tessera".into());
        let template = dir.join(format!(".{stem}.renderdoc"));
        api.set_capture_file_path_template(template.clone());
        // Tessera picks the frame (F9 in the window, the last frame headless): RenderDoc's
        // own capture keys (F12, Print Screen) would clash with the window's F12 screenshot
        // and write files nobody moves, and its overlay would cover Tessera's.
        api.set_capture_keys::<renderdoc::InputButton>(&[]);
        api.mask_overlay_bits(
            renderdoc::OverlayBits::empty(),
            renderdoc::OverlayBits::empty(),
        );
        Ok(Capture {
            api,
            out: out.to_path_buf(),
            template,
            _library: library,
        })
    }

    /// Where the next capture goes (an app capturing many frames names each).
    pub fn set_out(&mut self, out: &Path) {
        self.out = out.to_path_buf();
    }

    /// Starts capturing every Vulkan call of the (only) device.
    pub fn start(&mut self) {
        self.api
            .start_frame_capture(std::ptr::null::<std::ffi::c_void>(), std::ptr::null());
    }

    /// Ends the capture, moves the file RenderDoc wrote to the requested path and returns
    /// that path.
    pub fn end(&mut self) -> Result<PathBuf, VkError> {
        let before = self.api.get_num_captures();
        self.api
            .end_frame_capture(std::ptr::null::<std::ffi::c_void>(), std::ptr::null());
        let after = self.api.get_num_captures();
        let written = (after > before)
            .then(|| self.api.get_capture(after - 1))
            .flatten()
            .map(|(path, _)| path)
            .ok_or_else(|| {
                VkError::Setup(
                    "RenderDoc wrote no capture (is its Vulkan layer enabled? \
                     DISABLE_VULKAN_RENDERDOC_CAPTURE_* must not be set)"
                        .into(),
                )
            })?;
        let moved = std::fs::rename(&written, &self.out)
            .or_else(|_| std::fs::copy(&written, &self.out).map(|_| ()));
        // RenderDoc's file is temporary whether or not it could be moved.
        let _ = std::fs::remove_file(&written);
        moved.map_err(|e| {
            VkError::Setup(format!(
                "writing the capture to {}: {e}",
                self.out.display()
            ))
        })?;
        log::info!("RenderDoc capture written to {}", self.out.display());
        Ok(self.out.clone())
    }
}
