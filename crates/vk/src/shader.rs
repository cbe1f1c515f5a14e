//! GLSL to SPIR-V with shaderc, shared by the synthetic bodies and the renderer.
//!
//! [`compile_glsl`] compiles one stage with `#define`s and `#include "file"` resolved against
//! the including file's directory first, then the include directory (`#include <file>`: the
//! include directory only). Errors are [`VkError::Shader`] with shaderc's text, which names
//! the file and line of each error (`lighting.frag:12: error: ...`), and the file name first.
//! Targets Vulkan 1.2 SPIR-V; optimisation for performance.

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
pub fn compile_glsl_with(
    source: &str,
    file_name: &str,
    stage: vk::ShaderStageFlags,
    defines: &[(&str, &str)],
    lookup: &IncludeLookup<'_>,
) -> Result<Vec<u32>, VkError> {
    let kind = match stage {
        vk::ShaderStageFlags::VERTEX => shaderc::ShaderKind::Vertex,
        vk::ShaderStageFlags::FRAGMENT => shaderc::ShaderKind::Fragment,
        vk::ShaderStageFlags::COMPUTE => shaderc::ShaderKind::Compute,
        vk::ShaderStageFlags::GEOMETRY => shaderc::ShaderKind::Geometry,
        vk::ShaderStageFlags::TESSELLATION_CONTROL => shaderc::ShaderKind::TessControl,
        vk::ShaderStageFlags::TESSELLATION_EVALUATION => shaderc::ShaderKind::TessEvaluation,
        other => {
            return Err(VkError::Shader(format!(
                "{file_name}: cannot compile for stage {other:?} (one stage at a time)"
            )))
        }
    };
    let compiler =
        shaderc::Compiler::new().map_err(|e| VkError::Shader(format!("shaderc: {e}")))?;
    let mut options = shaderc::CompileOptions::new()
        .map_err(|e| VkError::Shader(format!("shaderc options: {e}")))?;
    options.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_2 as u32,
    );
    options.set_optimization_level(shaderc::OptimizationLevel::Performance);
    options.set_generate_debug_info();
    for (name, value) in defines {
        options.add_macro_definition(name, (!value.is_empty()).then_some(*value));
    }
    options.set_include_callback(|requested, ty, requesting, _depth| {
        lookup(requested, requesting, ty == shaderc::IncludeType::Relative).map(
            |(resolved_name, content)| shaderc::ResolvedInclude {
                resolved_name,
                content,
            },
        )
    });
    let out = compiler
        .compile_into_spirv(source, kind, file_name, "main", Some(&options))
        .map_err(|e| VkError::Shader(format!("{file_name}: {e}")))?;
    if out.get_num_warnings() > 0 {
        log::debug!("{file_name}: {}", out.get_warning_messages());
    }
    Ok(out.as_binary().to_vec())
}

/// A shader module from SPIR-V words, named `name` for debuggers.
pub fn module(gpu: &crate::Gpu, words: &[u32], name: &str) -> Result<vk::ShaderModule, VkError> {
    let info = vk::ShaderModuleCreateInfo::default().code(words);
    // SAFETY: `words` is SPIR-V (from shaderc); the create info is complete.
    let m = unsafe { gpu.device.create_shader_module(&info, None) }?;
    gpu.name(m, name);
    Ok(m)
}

#[cfg(test)]
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
