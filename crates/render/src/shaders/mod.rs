//! The renderer's GLSL (`shaders/render/`) and its SPIR-V. A shader *variant* is named
//! `file#DEFINE#DEFINE` (`tonemap.frag#BLOOM_ADD`): the file compiled with those macros
//! defined (to 1), for the stage its extension names.
//!
//! - Every variant of [`VARIANTS`] is compiled at build time on the host (`build.rs`,
//!   `tessera-glsl`) and embedded as SPIR-V ([`precompiled`]): that is what a renderer
//!   starts with, and all a build without a run-time compiler (Android) has.
//! - The GLSL files are embedded too. [`ShaderSources`] is the set a renderer compiles
//!   from: the embedded files, some of them replaced by a directory's (shader hot reload,
//!   [`crate::Renderer::reload_shaders`]). While the set is the embedded one its variants
//!   come from the build-time SPIR-V; once a file differs they are compiled at run time
//!   (desktop), with `#include` resolved among the set's files and errors naming the file
//!   and line. Both paths compile the same text with the same options, so the words are the
//!   same (a test compares every variant).

use crate::RenderError;
use std::collections::HashMap;
use std::path::Path;

mod variants;
pub use variants::VARIANTS;

/// The build script's output: `SPIRV`, each variant of [`VARIANTS`] with its words.
mod build_time {
    include!(concat!(env!("OUT_DIR"), "/spirv.rs"));
}

/// The build-time SPIR-V of `variant` (`file#DEFINE#...`), if it is one of [`VARIANTS`].
pub fn precompiled(variant: &str) -> Option<Vec<u32>> {
    build_time::SPIRV
        .iter()
        .find(|(v, _)| *v == variant)
        .and_then(|(_, bytes)| words_of(bytes))
}

/// SPIR-V words from the little-endian bytes the build script wrote.
fn words_of(bytes: &[u8]) -> Option<Vec<u32>> {
    bytes.len().is_multiple_of(4).then(|| {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

/// Whether this build can compile GLSL at run time (desktop; not Android).
pub const RUNTIME_COMPILER: bool = tessera_vk::shader::RUNTIME_GLSL;

/// Every file of `shaders/render/`, by name.
const SOURCES: &[(&str, &str)] = &[
    (
        "frame_data.glsl",
        include_str!("../../../../shaders/render/frame_data.glsl"),
    ),
    (
        "shadow.glsl",
        include_str!("../../../../shaders/render/shadow.glsl"),
    ),
    (
        "shadow.vert",
        include_str!("../../../../shaders/render/shadow.vert"),
    ),
    (
        "common.glsl",
        include_str!("../../../../shaders/render/common.glsl"),
    ),
    (
        "material.glsl",
        include_str!("../../../../shaders/render/material.glsl"),
    ),
    (
        "mesh.vert",
        include_str!("../../../../shaders/render/mesh.vert"),
    ),
    (
        "gbuffer.frag",
        include_str!("../../../../shaders/render/gbuffer.frag"),
    ),
    (
        "lit.glsl",
        include_str!("../../../../shaders/render/lit.glsl"),
    ),
    (
        "sky.frag",
        include_str!("../../../../shaders/render/sky.frag"),
    ),
    (
        "forward.frag",
        include_str!("../../../../shaders/render/forward.frag"),
    ),
    (
        "fullscreen.vert",
        include_str!("../../../../shaders/render/fullscreen.vert"),
    ),
    (
        "lighting.frag",
        include_str!("../../../../shaders/render/lighting.frag"),
    ),
    (
        "lighting.comp",
        include_str!("../../../../shaders/render/lighting.comp"),
    ),
    (
        "light_clustering.comp",
        include_str!("../../../../shaders/render/light_clustering.comp"),
    ),
    (
        "ssao.comp",
        include_str!("../../../../shaders/render/ssao.comp"),
    ),
    (
        "ssao_blur.comp",
        include_str!("../../../../shaders/render/ssao_blur.comp"),
    ),
    (
        "depth.vert",
        include_str!("../../../../shaders/render/depth.vert"),
    ),
    (
        "tonemap.frag",
        include_str!("../../../../shaders/render/tonemap.frag"),
    ),
    (
        "deform.comp",
        include_str!("../../../../shaders/render/deform.comp"),
    ),
    (
        "bloom_down.comp",
        include_str!("../../../../shaders/render/bloom_down.comp"),
    ),
    (
        "bloom_up.comp",
        include_str!("../../../../shaders/render/bloom_up.comp"),
    ),
    (
        "exposure.glsl",
        include_str!("../../../../shaders/render/exposure.glsl"),
    ),
    (
        "histogram.comp",
        include_str!("../../../../shaders/render/histogram.comp"),
    ),
    (
        "exposure.comp",
        include_str!("../../../../shaders/render/exposure.comp"),
    ),
    (
        "post.frag",
        include_str!("../../../../shaders/render/post.frag"),
    ),
    (
        "debug_image.frag",
        include_str!("../../../../shaders/render/debug_image.frag"),
    ),
    (
        "debug_clusters.frag",
        include_str!("../../../../shaders/render/debug_clusters.frag"),
    ),
    (
        "debug_exposure.frag",
        include_str!("../../../../shaders/render/debug_exposure.frag"),
    ),
    (
        "ui.vert",
        include_str!("../../../../shaders/render/ui.vert"),
    ),
    (
        "ui.frag",
        include_str!("../../../../shaders/render/ui.frag"),
    ),
    (
        "taa.comp",
        include_str!("../../../../shaders/render/taa.comp"),
    ),
    (
        "tonemap.glsl",
        include_str!("../../../../shaders/render/tonemap.glsl"),
    ),
    (
        "fxaa.glsl",
        include_str!("../../../../shaders/render/fxaa.glsl"),
    ),
    (
        "tonemap.comp",
        include_str!("../../../../shaders/render/tonemap.comp"),
    ),
    (
        "post.comp",
        include_str!("../../../../shaders/render/post.comp"),
    ),
    (
        "cube.glsl",
        include_str!("../../../../shaders/render/cube.glsl"),
    ),
    (
        "atmosphere.glsl",
        include_str!("../../../../shaders/render/atmosphere.glsl"),
    ),
    (
        "ggx_sampling.glsl",
        include_str!("../../../../shaders/render/ggx_sampling.glsl"),
    ),
    (
        "environment.glsl",
        include_str!("../../../../shaders/render/environment.glsl"),
    ),
    (
        "env_sky.comp",
        include_str!("../../../../shaders/render/env_sky.comp"),
    ),
    (
        "env_specular.comp",
        include_str!("../../../../shaders/render/env_specular.comp"),
    ),
    (
        "env_irradiance.comp",
        include_str!("../../../../shaders/render/env_irradiance.comp"),
    ),
    (
        "brdf_lut.comp",
        include_str!("../../../../shaders/render/brdf_lut.comp"),
    ),
];

/// The source of an embedded shader file.
pub fn source(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// Shader stages the renderer compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex shader.
    Vertex,
    /// Fragment shader.
    Fragment,
    /// Compute shader.
    Compute,
}

impl Stage {
    /// The stage a shader file's extension names (`.vert`, `.frag`, `.comp`), if any.
    pub fn of_file(name: &str) -> Option<Stage> {
        match name.split('#').next()?.rsplit_once('.')?.1 {
            "vert" => Some(Stage::Vertex),
            "frag" => Some(Stage::Fragment),
            "comp" => Some(Stage::Compute),
            _ => None,
        }
    }

    fn flags(self) -> ash::vk::ShaderStageFlags {
        match self {
            Stage::Vertex => ash::vk::ShaderStageFlags::VERTEX,
            Stage::Fragment => ash::vk::ShaderStageFlags::FRAGMENT,
            Stage::Compute => ash::vk::ShaderStageFlags::COMPUTE,
        }
    }
}

/// Compiles GLSL to SPIR-V words (shaderc, through [`tessera_vk::shader`]). `lookup`
/// resolves `#include "name"`; errors name the file and line as shaderc reports them
/// (`file:line: error: ...`).
pub fn compile_with(
    name: &str,
    text: &str,
    stage: Stage,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<u32>, RenderError> {
    compile_defined_with(name, text, stage, &[], lookup)
}

/// [`compile_with`] with preprocessor `defines` (a shader's variants: `CLUSTERED`, `SSAO`).
pub fn compile_defined_with(
    name: &str,
    text: &str,
    stage: Stage,
    defines: &[(&str, &str)],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<u32>, RenderError> {
    let resolve = |requested: &str, _from: &str, _relative: bool| {
        lookup(requested)
            .map(|content| (requested.to_string(), content))
            .ok_or_else(|| format!("no shader file '{requested}'"))
    };
    tessera_vk::shader::compile_glsl_with(text, name, stage.flags(), defines, &resolve).map_err(
        |e| {
            RenderError::Shader(
                e.to_string()
                    .trim_start_matches("shader: ")
                    .trim()
                    .to_string(),
            )
        },
    )
}

/// Splits a variant name (`file#DEFINE#...`) into the file and its defines.
fn split_variant(name: &str) -> (&str, Vec<(&str, &str)>) {
    let mut parts = name.split('#');
    let file = parts.next().unwrap_or(name);
    (file, parts.map(|d| (d, "1")).collect())
}

/// Compiles an embedded shader file, or a variant of one (`file#DEFINE#...`).
pub fn compile(name: &str, stage: Stage) -> Result<Vec<u32>, RenderError> {
    let (file, defines) = split_variant(name);
    compile_defined(file, stage, &defines)
}

/// Compiles an embedded shader file with preprocessor `defines`.
pub fn compile_defined(
    name: &str,
    stage: Stage,
    defines: &[(&str, &str)],
) -> Result<Vec<u32>, RenderError> {
    let text =
        source(name).ok_or_else(|| RenderError::Shader(format!("no shader file '{name}'")))?;
    compile_defined_with(name, text, stage, defines, &|n| {
        source(n).map(str::to_string)
    })
}

/// The shader files a renderer compiles from, by name: the embedded ones, any of them
/// replaced ([`ShaderSources::with_dir`], [`ShaderSources::set`]). `#include` resolves among
/// these same files, so an edited include reaches every shader that includes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderSources {
    files: HashMap<String, String>,
    /// Every file's text is the embedded one: variants come from the build-time SPIR-V.
    embedded: bool,
}

impl Default for ShaderSources {
    fn default() -> Self {
        ShaderSources::embedded()
    }
}

/// What [`ShaderSources::with_dir`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DirRead {
    /// Files of the set read from the directory.
    pub files: usize,
    /// Those whose text differs from the set's, sorted.
    pub changed: Vec<String>,
}

/// What a shader reload did ([`crate::Renderer::reload_shaders`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReloadReport {
    /// Shader files read from the directory.
    pub files: usize,
    /// Those that differ from the sources in use, sorted.
    pub changed: Vec<String>,
    /// Modules compiled from the new sources (0 when nothing changed).
    pub compiled: usize,
}

impl ShaderSources {
    /// The files embedded in the binary (`shaders/render/` at build time).
    pub fn embedded() -> ShaderSources {
        ShaderSources {
            files: SOURCES
                .iter()
                .map(|(n, s)| (n.to_string(), s.to_string()))
                .collect(),
            embedded: true,
        }
    }

    /// Whether every file is the embedded one (so compiling uses the build-time SPIR-V).
    pub fn is_embedded(&self) -> bool {
        self.embedded
    }

    /// The text of `name`, if the set has it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.files.get(name).map(String::as_str)
    }

    /// The files' names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut n: Vec<&str> = self.files.keys().map(String::as_str).collect();
        n.sort_unstable();
        n
    }

    /// Replaces the text of `name`, a file the set has; whether the text changed. A name
    /// outside the set is an error (the renderer would never compile it).
    pub fn set(&mut self, name: &str, text: impl Into<String>) -> Result<bool, RenderError> {
        let slot = self
            .files
            .get_mut(name)
            .ok_or_else(|| RenderError::Shader(format!("no shader file '{name}'")))?;
        let text = text.into();
        let changed = *slot != text;
        *slot = text;
        if changed {
            self.embedded = self
                .files
                .iter()
                .all(|(n, t)| source(n) == Some(t.as_str()));
        }
        Ok(changed)
    }

    /// This set with each of its files that `dir` has replaced by the directory's text. A
    /// file missing from `dir` keeps its current text; a file of `dir` outside the set is
    /// ignored (logged at debug level). Unreadable `dir` or file: an error naming it.
    pub fn with_dir(&self, dir: &Path) -> Result<(ShaderSources, DirRead), RenderError> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            RenderError::Shader(format!("reading the directory {}: {e}", dir.display()))
        })?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let known = name.to_str().is_some_and(|n| self.files.contains_key(n));
            if !known {
                log::debug!(
                    "{}: not one of the renderer's shader files, ignored",
                    entry.path().display()
                );
            }
        }
        let mut next = self.clone();
        let mut read = DirRead::default();
        for name in self.names() {
            let path = dir.join(name);
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    log::debug!("{}: missing, its current source stays", path.display());
                    continue;
                }
                Err(e) => {
                    return Err(RenderError::Shader(format!(
                        "reading {}: {e}",
                        path.display()
                    )))
                }
            };
            read.files += 1;
            if next.set(name, text)? {
                read.changed.push(name.to_string());
            }
        }
        Ok((next, read))
    }

    /// The SPIR-V of `name` (a file of the set or a variant `file#DEFINE#...`): the
    /// build-time words while the set is the embedded one, else compiled now with its
    /// includes resolved among the set's files. Without a run-time compiler a variant that
    /// was not precompiled is an error naming it.
    pub fn compile(&self, name: &str, stage: Stage) -> Result<Vec<u32>, RenderError> {
        if self.embedded && Stage::of_file(name) == Some(stage) {
            if let Some(words) = precompiled(name) {
                return Ok(words);
            }
            if !RUNTIME_COMPILER {
                return Err(RenderError::Shader(format!(
                    "{name}: not a precompiled shader variant (list it in \
                     crates/render/src/shaders/variants.rs), and this build has no \
                     run-time compiler"
                )));
            }
            log::warn!("{name}: not precompiled (variants.rs), compiling it at run time");
        }
        let (file, defines) = split_variant(name);
        self.compile_defined(file, stage, &defines)
    }

    /// Compiles the set's file `name` with preprocessor `defines`.
    pub fn compile_defined(
        &self,
        name: &str,
        stage: Stage,
        defines: &[(&str, &str)],
    ) -> Result<Vec<u32>, RenderError> {
        let text = self
            .get(name)
            .ok_or_else(|| RenderError::Shader(format!("no shader file '{name}'")))?;
        compile_defined_with(name, text, stage, defines, &|n| {
            self.get(n).map(str::to_string)
        })
    }
}

/// Tests that compile at run time (desktop builds, the `glsl` feature).
#[cfg(all(test, feature = "glsl"))]
mod tests {
    use super::*;

    #[test]
    fn the_build_time_spirv_is_what_run_time_compilation_gives() {
        let table: Vec<&str> = build_time::SPIRV.iter().map(|(v, _)| *v).collect();
        assert_eq!(
            table, VARIANTS,
            "the build script compiled every variant, in order"
        );
        for &variant in VARIANTS {
            let stage = Stage::of_file(variant).expect("a stage extension");
            let built = precompiled(variant).unwrap_or_else(|| panic!("{variant}: missing"));
            assert_eq!(built[0], 0x0723_0203, "{variant}: SPIR-V magic");
            let now = compile(variant, stage).unwrap_or_else(|e| panic!("{variant}: {e}"));
            assert!(
                built == now,
                "{variant}: build-time and run-time SPIR-V differ"
            );
        }
        assert_eq!(precompiled("nope.frag"), None);
    }

    #[test]
    fn the_embedded_set_uses_the_build_time_spirv_until_a_file_changes() {
        let mut s = ShaderSources::embedded();
        assert!(s.is_embedded());
        let words = s.compile("lighting.frag#SSAO", Stage::Fragment).unwrap();
        assert_eq!(Some(words), precompiled("lighting.frag#SSAO"));
        let original = s.get("common.glsl").unwrap().to_string();
        assert!(s
            .set("common.glsl", format!("{original}\n// edited\n"))
            .unwrap());
        assert!(!s.is_embedded(), "an edited include: compiled at run time");
        assert!(s.set("common.glsl", original).unwrap());
        assert!(s.is_embedded(), "the embedded text again");
        // A name outside VARIANTS still compiles at run time here.
        let words = s.compile("lighting.frag#CLUSTERED#SSAO#SHADOWLESS", Stage::Fragment);
        assert!(words.is_ok());
    }

    /// Every variant name the renderer's code writes (`"file.ext#DEFINE..."` literals
    /// outside this module) is precompiled: Android has nothing else.
    #[test]
    fn every_variant_the_renderer_names_is_precompiled() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = std::collections::BTreeSet::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    if path != root.join("shaders") {
                        stack.push(path);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    found.extend(variant_literals(&text));
                }
            }
        }
        assert!(
            found.len() >= 20,
            "the scan finds the renderer's names: {found:?}"
        );
        let missing: Vec<&String> = found
            .iter()
            .filter(|v| !VARIANTS.contains(&v.as_str()))
            .collect();
        assert!(missing.is_empty(), "not in variants.rs: {missing:?}");
        for v in VARIANTS {
            assert!(source(split_variant(v).0).is_some(), "{v}: no such file");
        }
    }

    /// Texts between quotes that look like shader variants: `name.vert|frag|comp` and `#DEFINE`s.
    fn variant_literals(text: &str) -> Vec<String> {
        // Every text between two quotes, not only every other: a `'"'` elsewhere cannot
        // shift which ones are literals.
        text.split('"')
            .filter(|lit| {
                let mut parts = lit.split('#');
                let file = parts.next().unwrap_or("");
                Stage::of_file(file).is_some()
                    && file
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c == '_' || c == '.')
                    && parts.all(|d| {
                        !d.is_empty() && d.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    })
            })
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_scan_finds_literals() {
        let text = r#"let a = "post.frag#BLOOM"; let b = "x"; f("ssao.comp", "nope"); "Not.frag""#;
        assert_eq!(variant_literals(text), ["post.frag#BLOOM", "ssao.comp"]);
    }

    #[test]
    fn every_embedded_stage_compiles() {
        for (name, _) in SOURCES {
            let stage = match name.rsplit('.').next() {
                Some("vert") => Stage::Vertex,
                Some("frag") => Stage::Fragment,
                Some("comp") => Stage::Compute,
                _ => continue,
            };
            let words = compile(name, stage).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(words[0], 0x0723_0203, "{name}: SPIR-V magic");
        }
        // The lit shaders' variants.
        for name in ["lighting.frag", "forward.frag"] {
            for defines in [
                &[("CLUSTERED", "1")][..],
                &[("SSAO", "1")],
                &[("CLUSTERED", "1"), ("SSAO", "1")],
            ] {
                compile_defined(name, Stage::Fragment, defines)
                    .unwrap_or_else(|e| panic!("{name} {defines:?}: {e}"));
            }
        }
    }

    #[test]
    fn the_post_chain_variants_compile() {
        let variants = [
            ("tonemap.frag#AUTO_EXPOSURE#BLOOM_ADD", Stage::Fragment),
            ("tonemap.frag#AUTO_EXPOSURE#BLOOM_SOURCE", Stage::Fragment),
            ("bloom_down.comp#THRESHOLD", Stage::Compute),
            ("post.frag#BLOOM#AUTO_EXPOSURE", Stage::Fragment),
        ];
        for (name, stage) in variants {
            let words = compile(name, stage).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(words[0], 0x0723_0203, "{name}: SPIR-V magic");
        }
        // A define changes the code: the variant is not the plain file.
        assert_ne!(
            compile("tonemap.frag", Stage::Fragment).unwrap(),
            compile("tonemap.frag#BLOOM_ADD", Stage::Fragment).unwrap()
        );
        let e = compile("nope.frag#X", Stage::Fragment).unwrap_err();
        assert!(e.to_string().contains("nope.frag"), "{e}");
    }

    #[test]
    fn a_syntax_error_names_file_and_line() {
        let text = "#version 450\nvoid main() {\n  oops;\n}\n";
        let e = compile_with("broken.frag", text, Stage::Fragment, &|_| None).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("broken.frag:3"), "{msg}");
    }

    #[test]
    fn an_error_in_an_included_file_names_that_file() {
        let text = "#version 450\n#include \"inc.glsl\"\nvoid main() {}\n";
        let lookup = |n: &str| (n == "inc.glsl").then(|| "\n\nint x = ;\n".to_string());
        let e = compile_with("top.frag", text, Stage::Fragment, &lookup).unwrap_err();
        assert!(e.to_string().contains("inc.glsl:3"), "{e}");
    }

    /// A temporary directory, removed on drop.
    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let p =
                std::env::temp_dir().join(format!("tessera-shaders-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_embedded_set_compiles_as_the_free_functions_do() {
        let s = ShaderSources::embedded();
        assert_eq!(s.names().len(), SOURCES.len());
        assert_eq!(s.get("post.frag"), source("post.frag"));
        for name in [
            "post.frag#BLOOM#AUTO_EXPOSURE",
            "lighting.frag#CLUSTERED#SSAO",
        ] {
            assert_eq!(
                s.compile(name, Stage::Fragment).unwrap(),
                compile(name, Stage::Fragment).unwrap(),
                "{name}"
            );
        }
        assert!(s.compile("nope.frag", Stage::Fragment).is_err());
    }

    #[test]
    fn a_directory_overrides_its_files_and_a_missing_file_keeps_the_old() {
        let dir = TempDir::new("override");
        let post = "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1); }\n";
        std::fs::write(dir.0.join("post.frag"), post).unwrap();
        // The same text as embedded: read, not changed.
        std::fs::write(
            dir.0.join("fullscreen.vert"),
            source("fullscreen.vert").unwrap(),
        )
        .unwrap();
        std::fs::write(dir.0.join("notes.txt"), "not a shader").unwrap();
        let base = ShaderSources::embedded();
        let (next, read) = base.with_dir(&dir.0).unwrap();
        assert_eq!(read.files, 2);
        assert_eq!(read.changed, vec!["post.frag".to_string()]);
        assert_eq!(next.get("post.frag"), Some(post));
        assert_eq!(
            next.get("tonemap.frag"),
            base.get("tonemap.frag"),
            "missing: kept"
        );
        assert_eq!(next.get("notes.txt"), None, "unknown files are ignored");
        assert_eq!(next.names().len(), base.names().len());
        assert_ne!(
            next.compile("post.frag", Stage::Fragment).unwrap(),
            base.compile("post.frag", Stage::Fragment).unwrap()
        );
        // A second read over the new set changes nothing.
        let (_, again) = next.with_dir(&dir.0).unwrap();
        assert!(again.changed.is_empty());
        let e = base.with_dir(&dir.0.join("absent")).unwrap_err();
        assert!(e.to_string().contains("absent"), "{e}");
    }

    #[test]
    fn includes_resolve_among_the_new_sources() {
        let mut s = ShaderSources::embedded();
        let before = s.compile("post.frag", Stage::Fragment).unwrap();
        // An include file edited to define something a shader uses...
        let mut common = s.get("common.glsl").unwrap().to_string();
        common.push_str("\nconst float TESSERA_TEST_CONST = 2.0;\n");
        assert!(s.set("common.glsl", common).unwrap());
        let post = "#version 450\n#include \"common.glsl\"\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(TESSERA_TEST_CONST); }\n";
        s.set("post.frag", post).unwrap();
        let words = s.compile("post.frag", Stage::Fragment).unwrap();
        assert_ne!(words, before);
        // ...compiles only with the edited include: the embedded one lacks it.
        let e = compile_with("post.frag", post, Stage::Fragment, &|n| {
            source(n).map(str::to_string)
        })
        .unwrap_err();
        assert!(e.to_string().contains("TESSERA_TEST_CONST"), "{e}");
        // A broken include names itself and its line.
        s.set("common.glsl", "\n\nint x = ;\n").unwrap();
        let e = s.compile("post.frag", Stage::Fragment).unwrap_err();
        assert!(e.to_string().contains("common.glsl:3"), "{e}");
        assert!(s.set("nope.glsl", "").is_err());
    }
}
