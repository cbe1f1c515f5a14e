//! # tessera-glsl
//!
//! GLSL to SPIR-V with shaderc, and the one place the compile options live. Two callers use
//! it, so that the same source gives the same SPIR-V on both paths:
//!
//! - at build time, `tessera-render`'s build script (a build dependency, compiled for the
//!   host) precompiles every shader variant the renderer uses, so a target without shaderc
//!   (Android) embeds SPIR-V only;
//! - at run time, on desktop, `tessera-vk` compiles shader hot reloads and the synthetic
//!   executor's generated shaders.
//!
//! [`compile`] compiles one stage with `#define`s; `#include` is resolved by the caller's
//! lookup (files on disk, embedded sources). Errors carry shaderc's text, which names the file
//! and line of each error (`lighting.frag:12: error: ...`), with the file name first. The
//! target is Vulkan 1.2 SPIR-V, optimised for performance, with debug information (source
//! and names for RenderDoc).
//!
//! shaderc is linked statically against Debian's glslang and SPIRV-Tools archives (this
//! crate's build script): its link lines reach every binary that depends on this crate, the
//! build scripts that use it included.

/// A shader stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex shader.
    Vertex,
    /// Fragment shader.
    Fragment,
    /// Compute shader.
    Compute,
    /// Geometry shader.
    Geometry,
    /// Tessellation control shader.
    TessControl,
    /// Tessellation evaluation shader.
    TessEvaluation,
}

impl Stage {
    /// The stage a file name's extension says (`.vert`, `.frag`, `.comp`, `.geom`, `.tesc`,
    /// `.tese`), if it says one.
    pub fn of_file(name: &str) -> Option<Stage> {
        Some(match name.rsplit_once('.')?.1 {
            "vert" => Stage::Vertex,
            "frag" => Stage::Fragment,
            "comp" => Stage::Compute,
            "geom" => Stage::Geometry,
            "tesc" => Stage::TessControl,
            "tese" => Stage::TessEvaluation,
            _ => return None,
        })
    }

    fn kind(self) -> shaderc::ShaderKind {
        match self {
            Stage::Vertex => shaderc::ShaderKind::Vertex,
            Stage::Fragment => shaderc::ShaderKind::Fragment,
            Stage::Compute => shaderc::ShaderKind::Compute,
            Stage::Geometry => shaderc::ShaderKind::Geometry,
            Stage::TessControl => shaderc::ShaderKind::TessControl,
            Stage::TessEvaluation => shaderc::ShaderKind::TessEvaluation,
        }
    }
}

/// Resolves `#include "requested"` (or `<requested>` when `relative` is false) written in the
/// file `requesting`: the included file's name (as messages and debug information name it)
/// and its text, or why it cannot be found.
pub type IncludeLookup<'a> = dyn Fn(&str, &str, bool) -> Result<(String, String), String> + 'a;

/// Compiles GLSL `source` (named `file_name` in messages and debug information) for `stage`,
/// with `defines` (`(name, value)`; an empty value defines the name as empty) and includes
/// resolved by `lookup`. The error is shaderc's text, the file name first.
pub fn compile(
    source: &str,
    file_name: &str,
    stage: Stage,
    defines: &[(&str, &str)],
    lookup: &IncludeLookup<'_>,
) -> Result<Vec<u32>, String> {
    let compiler = shaderc::Compiler::new().map_err(|e| format!("shaderc: {e}"))?;
    let mut options =
        shaderc::CompileOptions::new().map_err(|e| format!("shaderc options: {e}"))?;
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
        .compile_into_spirv(source, stage.kind(), file_name, "main", Some(&options))
        .map_err(|e| format!("{file_name}: {e}"))?;
    if out.get_num_warnings() > 0 {
        log::debug!("{file_name}: {}", out.get_warning_messages());
    }
    Ok(out.as_binary().to_vec())
}

/// SPIR-V words as the little-endian bytes a `.spv` file holds.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The first word of every SPIR-V module.
pub const MAGIC: u32 = 0x0723_0203;

#[cfg(test)]
mod tests {
    use super::*;

    fn no_includes(requested: &str, _: &str, _: bool) -> Result<(String, String), String> {
        Err(format!("no file '{requested}'"))
    }

    #[test]
    fn stages_follow_the_extension() {
        assert_eq!(Stage::of_file("a.vert"), Some(Stage::Vertex));
        assert_eq!(Stage::of_file("x/lighting.frag"), Some(Stage::Fragment));
        assert_eq!(Stage::of_file("ssao.comp"), Some(Stage::Compute));
        assert_eq!(Stage::of_file("common.glsl"), None);
        assert_eq!(Stage::of_file("noext"), None);
    }

    #[test]
    fn compiles_with_defines_and_names_the_file_of_an_error() {
        let src = "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(V); }\n";
        let words = compile(
            src,
            "v.frag",
            Stage::Fragment,
            &[("V", "0.5")],
            &no_includes,
        )
        .expect("compiles with V defined");
        assert_eq!(words[0], MAGIC);
        let e = compile(src, "v.frag", Stage::Fragment, &[], &no_includes).unwrap_err();
        assert!(e.starts_with("v.frag") && e.contains("v.frag:3"), "{e}");
    }

    #[test]
    fn the_same_input_gives_the_same_words() {
        let src = "#version 450\n#extension GL_GOOGLE_include_directive : require\n\
                   #include \"inc.glsl\"\nlayout(location = 0) out vec4 c;\n\
                   void main() { c = vec4(f()); }\n";
        let lookup = |r: &str, _: &str, _: bool| {
            (r == "inc.glsl")
                .then(|| (r.to_string(), "float f() { return 1.0; }\n".to_string()))
                .ok_or_else(|| format!("no file '{r}'"))
        };
        let a = compile(src, "t.frag", Stage::Fragment, &[], &lookup).unwrap();
        let b = compile(src, "t.frag", Stage::Fragment, &[], &lookup).unwrap();
        assert_eq!(a, b);
        let e = compile(src, "t.frag", Stage::Fragment, &[], &no_includes).unwrap_err();
        assert!(e.contains("inc.glsl"), "{e}");
    }

    #[test]
    fn bytes_are_little_endian_words() {
        let bytes = to_bytes(&[MAGIC, 0x0001_0500]);
        assert_eq!(bytes, [0x03, 0x02, 0x23, 0x07, 0x00, 0x05, 0x01, 0x00]);
    }
}
