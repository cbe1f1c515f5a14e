//! Tessera on Android: `android_main`, which the NativeActivity glue (winit's
//! `android-native-activity` backend) calls on its own thread when the activity starts. It
//! routes `log` to logcat (tag `tessera`), makes the event loop from the `AndroidApp` and
//! runs the app library's window loop, the same one as on desktop: the window, the device,
//! the surface and the swapchain come with the first `resumed`; `suspended` drops the
//! swapchain and the surface before it returns (the native window goes away then), and
//! each later `resumed` makes a new surface while the device, pipelines, scene and
//! plan-lifetime resources stay. Packaging: `docs/android.md`.
//!
//! On other targets this crate is empty (the workspace still builds it).

#![cfg(target_os = "android")]

use std::ffi::CString;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use tessera_scene::assets::{self, AssetError, Assets};
use winit::platform::android::activity::AndroidApp;
use winit::platform::android::EventLoopBuilderExtAndroid;

/// The APK's `assets/` folder through the NDK `AssetManager`: the scene loader's file store
/// on the phone. Paths are normalised first (the `AssetManager` takes no `.` or `..`).
#[derive(Debug)]
struct ApkAssets(ndk::asset::AssetManager);

impl Assets for ApkAssets {
    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, AssetError> {
        let path = assets::normalize(path);
        let name =
            CString::new(path.to_string_lossy().into_owned()).map_err(|_| AssetError::NotFound)?;
        let mut asset = self.0.open(&name).ok_or(AssetError::NotFound)?;
        let len = asset.length() as u64;
        if len > limit {
            return Err(AssetError::TooLarge { len, limit });
        }
        let mut bytes = Vec::with_capacity(len as usize);
        asset.read_to_end(&mut bytes).map_err(AssetError::Io)?;
        Ok(bytes)
    }
}

/// The entry the NativeActivity glue looks up by name, so its symbol is not mangled.
#[no_mangle]
fn android_main(app: AndroidApp) {
    android_logger::init_once(
        android_logger::Config::default()
            .with_max_level(log::LevelFilter::Info)
            .with_tag("tessera"),
    );
    let out_dir = app.internal_data_path().unwrap_or_else(std::env::temp_dir);
    let store: Arc<dyn Assets> = Arc::new(ApkAssets(app.asset_manager()));
    let event_loop = match winit::event_loop::EventLoop::builder()
        .with_android_app(app)
        .build()
    {
        Ok(l) => l,
        Err(e) => {
            log::error!("cannot make the event loop: {e}");
            return;
        }
    };
    let phone = tessera::PhoneLaunch {
        assets: store,
        out_dir,
        // The device chooses: Mali (its architecture's tile budget), Adreno or desktop.
        profile: "auto".into(),
    };
    match tessera::run_window(event_loop, phone) {
        Ok(code) => log::info!("the window loop ended: {code:?}"),
        Err(e) => log::error!("{e:#}"),
    }
}
