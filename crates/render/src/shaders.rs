//! The renderer's GLSL (`shaders/render/`), embedded in the binary and compiled with shaderc
//! at start: `#include` resolves among the embedded files, and a compile error names the
//! file and line. A shader *variant* is named `file#DEFINE#DEFINE` (`tonemap.frag#BLOOM_ADD`):
//! the file compiled with those macros defined (to 1).

use crate::RenderError;

/// Every file of `shaders/render/`, by name.
const SOURCES: &[(&str, &str)] = &[
    (
        "frame_data.glsl",
        include_str!("../../../shaders/render/frame_data.glsl"),
    ),
    (
        "shadow.glsl",
        include_str!("../../../shaders/render/shadow.glsl"),
    ),
    (
        "shadow.vert",
        include_str!("../../../shaders/render/shadow.vert"),
    ),
    (
        "common.glsl",
        include_str!("../../../shaders/render/common.glsl"),
    ),
    (
        "material.glsl",
        include_str!("../../../shaders/render/material.glsl"),
    ),
    (
        "mesh.vert",
        include_str!("../../../shaders/render/mesh.vert"),
    ),
    (
        "gbuffer.frag",
        include_str!("../../../shaders/render/gbuffer.frag"),
    ),
    (
        "forward.frag",
        include_str!("../../../shaders/render/forward.frag"),
    ),
    (
        "fullscreen.vert",
        include_str!("../../../shaders/render/fullscreen.vert"),
    ),
    (
        "lighting.frag",
        include_str!("../../../shaders/render/lighting.frag"),
    ),
    (
        "light_clustering.comp",
        include_str!("../../../shaders/render/light_clustering.comp"),
    ),
    (
        "ssao.comp",
        include_str!("../../../shaders/render/ssao.comp"),
    ),
    (
        "ssao_blur.comp",
        include_str!("../../../shaders/render/ssao_blur.comp"),
    ),
    (
        "depth.vert",
        include_str!("../../../shaders/render/depth.vert"),
    ),
    (
        "tonemap.frag",
        include_str!("../../../shaders/render/tonemap.frag"),
    ),
    (
        "bloom_down.comp",
        include_str!("../../../shaders/render/bloom_down.comp"),
    ),
    (
        "bloom_up.comp",
        include_str!("../../../shaders/render/bloom_up.comp"),
    ),
    (
        "exposure.glsl",
        include_str!("../../../shaders/render/exposure.glsl"),
    ),
    (
        "histogram.comp",
        include_str!("../../../shaders/render/histogram.comp"),
    ),
    (
        "exposure.comp",
        include_str!("../../../shaders/render/exposure.comp"),
    ),
    (
        "post.frag",
        include_str!("../../../shaders/render/post.frag"),
    ),
    (
        "debug_image.frag",
        include_str!("../../../shaders/render/debug_image.frag"),
    ),
    (
        "debug_clusters.frag",
        include_str!("../../../shaders/render/debug_clusters.frag"),
    ),
    (
        "debug_exposure.frag",
        include_str!("../../../shaders/render/debug_exposure.frag"),
    ),
    (
        "overlay.frag",
        include_str!("../../../shaders/render/overlay.frag"),
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

/// Compiles an embedded shader file, or a variant of one (`file#DEFINE#...`).
pub fn compile(name: &str, stage: Stage) -> Result<Vec<u32>, RenderError> {
    let mut parts = name.split('#');
    let file = parts.next().unwrap_or(name);
    let defines: Vec<(&str, &str)> = parts.map(|d| (d, "1")).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
