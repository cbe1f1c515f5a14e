//! Shader hot reload on lavapipe with validation and synchronization validation (zero
//! messages): a broken shader changes nothing, an edited one is drawn from the next frame
//! on without a re-plan, and restoring it gives the original picture bit for bit.

mod common;

use common::gpu;
use std::path::{Path, PathBuf};
use tessera_render::features::{Aa, Exposure, Features, PostPath};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};

/// A copy of the repository's `shaders/render/`, removed on drop.
struct ShaderDir(PathBuf);

impl ShaderDir {
    fn copy(tag: &str) -> ShaderDir {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders/render");
        let to = std::env::temp_dir().join(format!("tessera-reload-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&to);
        std::fs::create_dir_all(&to).expect("temp dir");
        for entry in std::fs::read_dir(&from).expect("shaders/render") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
        ShaderDir(to)
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.0.join(name), text).expect("write shader");
    }
}

impl Drop for ShaderDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// 160×90, the core frame with FXAA on the raster post chain (the last pass is `fxaa`,
/// `post.frag`) and a fixed exposure: every frame at the same time is the same picture.
fn settings() -> Settings {
    Settings {
        width: 160,
        height: 90,
        features: Features {
            aa: Aa::Fxaa,
            exposure: Exposure::Fixed(1.0),
            post: PostPath::Raster,
            ..Features::minimal()
        },
        ..Settings::default()
    }
}

fn frame(r: &mut Renderer) -> Picture {
    r.render(0.0).expect("frame");
    r.picture().expect("read back").expect("a picture")
}

#[test]
fn a_reload_swaps_the_final_pass_shader_and_a_broken_one_changes_nothing() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let dir = ShaderDir::copy("post");
    let original = std::fs::read_to_string(dir.0.join("post.frag")).expect("post.frag");
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), settings()).expect("renderer");
    let first = frame(&mut r);
    assert!(
        first.rgba.chunks_exact(4).any(|p| p != &first.rgba[..4]),
        "the frame is a picture, not one colour"
    );
    // The unchanged copy: every file read, nothing to do.
    let same = r.reload_shaders(&dir.0).expect("an unchanged reload");
    assert!(
        same.files > 10 && same.changed.is_empty() && same.compiled == 0,
        "{same:?}"
    );

    // (a) A syntax error: the error names the file and line, the old pipelines stay.
    let main_line = original
        .lines()
        .position(|l| l.starts_with("void main()"))
        .expect("post.frag has main")
        + 1;
    let broken = original.replacen(
        "void main() {\n",
        "void main() {\n    not glsl at all;\n",
        1,
    );
    dir.write("post.frag", &broken);
    let pipelines = r.pipelines_created();
    let e = r
        .reload_shaders(&dir.0)
        .expect_err("a broken shader")
        .to_string();
    let at = format!("post.frag:{}", main_line + 1);
    assert!(e.contains(&at), "the error names {at}: {e}");
    let after_error = frame(&mut r);
    assert_eq!(
        after_error.rgba, first.rgba,
        "the picture is as before, bit for bit"
    );
    assert_eq!(
        r.pipelines_created(),
        pipelines,
        "the old pipelines are still in use"
    );

    // (b) A solid colour from the final pass: drawn from the next frame, no re-plan.
    let main_at = original.find("void main()").expect("main");
    let solid = format!(
        "{}void main() {{\n    out_color = vec4(1.0, 0.0, 1.0, 1.0);\n}}\n",
        &original[..main_at]
    );
    dir.write("post.frag", &solid);
    let report = r.reload_shaders(&dir.0).expect("a good shader reloads");
    assert_eq!(report.changed, vec!["post.frag".to_string()]);
    assert_eq!(report.files, same.files);
    assert!(
        report.compiled >= 14,
        "every module in use compiled: {report:?}"
    );
    let magenta = frame(&mut r);
    assert!(
        magenta
            .rgba
            .chunks_exact(4)
            .all(|p| p == [255, 0, 255, 255]),
        "every pixel is the new shader's colour"
    );
    assert!(
        r.pipelines_created() > pipelines,
        "pipelines made from the new code"
    );
    // The first two frames planned (the second keeps the environment the first wrote);
    // nothing since.
    assert_eq!(r.rebuilds(), 2, "the reload did not re-plan");

    // (c) Restored: the original picture, bit for bit.
    dir.write("post.frag", &original);
    let back = r.reload_shaders(&dir.0).expect("the original reloads");
    assert_eq!(back.changed, vec!["post.frag".to_string()]);
    let restored = frame(&mut r);
    assert_eq!(restored.rgba, first.rgba, "the original picture again");
    assert_eq!(r.rebuilds(), 2);
    r.destroy();
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
}

#[test]
fn an_edited_include_reaches_its_shaders_and_a_missing_file_keeps_its_source() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let dir = ShaderDir::copy("include");
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), settings()).expect("renderer");
    let first = frame(&mut r);
    // Without post.frag in the directory, and with a file the renderer does not know.
    std::fs::remove_file(dir.0.join("post.frag")).expect("remove");
    dir.write("notes.txt", "not a shader");
    // A broken include: every shader including it fails, the first error names it.
    let common = std::fs::read_to_string(dir.0.join("common.glsl")).expect("common.glsl");
    dir.write("common.glsl", &format!("{common}\nfloat broken = ;\n"));
    let e = r
        .reload_shaders(&dir.0)
        .expect_err("a broken include")
        .to_string();
    let line = common.lines().count() + 2;
    assert!(e.contains(&format!("common.glsl:{line}")), "{e}");
    assert_eq!(frame(&mut r).rgba, first.rgba);
    // A harmless edit of the include: it reloads, post.frag keeps its source.
    dir.write("common.glsl", &format!("{common}\n// edited\n"));
    let report = r.reload_shaders(&dir.0).expect("reload");
    assert_eq!(report.changed, vec!["common.glsl".to_string()]);
    assert_eq!(frame(&mut r).rgba, first.rgba, "a comment changes no pixel");
    r.destroy();
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
}
