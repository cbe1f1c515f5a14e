//! GLSL to SPIR-V at run time (`tessera-glsl`, shaderc), for the synthetic bodies and the
//! renderer's shader hot reload; shader modules from SPIR-V. Without the `glsl` feature
//! (Android) compiling is an error saying so, and only precompiled SPIR-V is used.
//!
//! [`compile_glsl`] compiles one stage with `#define`s and `#include "file"` resolved against
//! the including file's directory first, then the include directory (`#include <file>`: the
//! include directory only). Errors are [`VkError::Shader`] with shaderc's text, which names
//! the file and line of each error (`lighting.frag:12: error: ...`), and the file name first.
//! The options (Vulkan 1.2 SPIR-V, optimised, with debug information) are `tessera-glsl`'s.

use crate::VkError;
use ash::vk;
use std::path::{Path, PathBuf};

/// Compiles GLSL `source` (named `file_name` in messages and for relative includes) for
/// `stage` (one of `VERTEX`, `FRAGMENT`, `COMPUTE`, `GEOMETRY`, `TESSELLATION_CONTROL`,
/// `TESSELLATION_EVALUATION`), with `defines` (`(name, value)`, an empty value defines the
/// name as empty) and `#include` looked up on disk as the module docs say.
pub fn compile_glsl(
    source: &str,
    file_name: &str,
    stage: vk::ShaderStageFlags,
    defines: &[(&str, &str)],
    include_dir: Option<&Path>,
) -> Result<Vec<u32>, VkError> {
    let include_dir: Option<PathBuf> = include_dir.map(Path::to_path_buf);
    let top_dir: Option<PathBuf> = Path::new(file_name).parent().map(Path::to_path_buf);
    let lookup = move |requested: &str, requesting: &str, relative: bool| {
        let requesting_dir = Path::new(requesting)
            .parent()
            .map(Path::to_path_buf)
            .or_else(|| top_dir.clone());
        let mut candidates = Vec::new();
        if relative {
            if let Some(d) = &requesting_dir {
                candidates.push(d.join(requested));
            }
        }
        if let Some(d) = &include_dir {
            candidates.push(d.join(requested));
        }
        for c in &candidates {
            if let Ok(content) = std::fs::read_to_string(c) {
                return Ok((c.display().to_string(), content));
            }
        }
        Err(format!(
            "cannot find '{requested}' (looked in: {})",
            if candidates.is_empty() {
                "no include directory given".to_string()
            } else {
                candidates
                    .iter()
                    .map(|c| c.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ))
    };
    compile_glsl_with(source, file_name, stage, defines, &lookup)
}

/// Resolves `#include "requested"` (or `<requested>` when `relative` is false) written in the
/// file `requesting`: the included file's name (as messages name it) and its text.
pub type IncludeLookup<'a> = dyn Fn(&str, &str, bool) -> Result<(String, String), String> + 'a;

/// [`compile_glsl`] with includes resolved by `lookup` (embedded sources, an asset manager).
/// The options are [`tessera_glsl::compile`]'s, the same as the renderer's build-time
/// precompilation uses.
#[cfg(feature = "glsl")]
pub fn compile_glsl_with(
    source: &str,
    file_name: &str,
    stage: vk::ShaderStageFlags,
    defines: &[(&str, &str)],
    lookup: &IncludeLookup<'_>,
) -> Result<Vec<u32>, VkError> {
    use tessera_glsl::Stage;
    let stage = match stage {
        vk::ShaderStageFlags::VERTEX => Stage::Vertex,
        vk::ShaderStageFlags::FRAGMENT => Stage::Fragment,
        vk::ShaderStageFlags::COMPUTE => Stage::Compute,
        vk::ShaderStageFlags::GEOMETRY => Stage::Geometry,
        vk::ShaderStageFlags::TESSELLATION_CONTROL => Stage::TessControl,
        vk::ShaderStageFlags::TESSELLATION_EVALUATION => Stage::TessEvaluation,
        other => {
            return Err(VkError::Shader(format!(
                "{file_name}: cannot compile for stage {other:?} (one stage at a time)"
            )))
        }
    };
    tessera_glsl::compile(source, file_name, stage, defines, lookup).map_err(VkError::Shader)
}

/// Without the `glsl` feature (the Android build) there is no compiler at run time: shaders
/// come precompiled, and this says so naming the file.
#[cfg(not(feature = "glsl"))]
pub fn compile_glsl_with(
    _source: &str,
    file_name: &str,
    _stage: vk::ShaderStageFlags,
    _defines: &[(&str, &str)],
    _lookup: &IncludeLookup<'_>,
) -> Result<Vec<u32>, VkError> {
    Err(VkError::Shader(format!(
        "{file_name}: this build has no run-time GLSL compiler (tessera-vk without the \
         `glsl` feature): only precompiled SPIR-V can be used"
    )))
}

/// Whether this build compiles GLSL at run time (the `glsl` feature: desktop builds).
pub const RUNTIME_GLSL: bool = cfg!(feature = "glsl");

/// A shader module from SPIR-V words, named `name` for debuggers.
pub fn module(gpu: &crate::Gpu, words: &[u32], name: &str) -> Result<vk::ShaderModule, VkError> {
    let info = vk::ShaderModuleCreateInfo::default().code(words);
    // SAFETY: `words` is SPIR-V (from shaderc); the create info is complete.
    let m = unsafe { gpu.device.create_shader_module(&info, None) }?;
    gpu.name(m, name);
    Ok(m)
}

#[cfg(all(test, feature = "glsl"))]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_and_line() {
        let src = "#version 450\nvoid main() {\n  undeclared = 1;\n}\n";
        let e = compile_glsl(
            src,
            "broken.frag",
            vk::ShaderStageFlags::FRAGMENT,
            &[],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("broken.frag:3"), "{e}");
    }

    #[test]
    fn includes_and_defines_resolve() {
        let dir = std::env::temp_dir().join(format!("tessera-shader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("common.glsl"),
            "float half_of(float x) { return x * HALF; }\n",
        )
        .unwrap();
        let src = "#version 450\n#extension GL_GOOGLE_include_directive : require\n\
                   #include \"common.glsl\"\nlayout(location=0) out vec4 c;\n\
                   void main() { c = vec4(half_of(1.0)); }\n";
        let ok = compile_glsl(
            src,
            "top.frag",
            vk::ShaderStageFlags::FRAGMENT,
            &[("HALF", "0.5")],
            Some(&dir),
        );
        assert!(ok.is_ok_and(|w| w.first() == Some(&0x0723_0203)));
        // Without the define the included function does not compile: the message names
        // the included file.
        let e = compile_glsl(
            src,
            "top.frag",
            vk::ShaderStageFlags::FRAGMENT,
            &[],
            Some(&dir),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("common.glsl:1"), "{e}");
        // Without the directory the include is not found.
        let e = compile_glsl(src, "top.frag", vk::ShaderStageFlags::FRAGMENT, &[], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("common.glsl"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
