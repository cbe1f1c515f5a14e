//! Links shaderc's dependencies statically from Debian's archives (see the toolchain notes):
//! no cmake, no C++ build, only libstdc++ at run time. These link lines reach everything
//! that links this crate, the build scripts that precompile shaders included. The archives
//! are the host's: this crate is only ever built for the host (Android uses the
//! precompiled SPIR-V and does not depend on it).

fn main() {
    println!("cargo:rustc-link-search=native=/usr/lib/x86_64-linux-gnu");
    for l in [
        "glslang",
        "MachineIndependent",
        "GenericCodeGen",
        "OSDependent",
        "OGLCompiler",
        "SPIRV",
        "HLSL",
        "SPIRV-Tools-opt",
        "SPIRV-Tools",
    ] {
        println!("cargo:rustc-link-lib=static={l}");
    }
}
