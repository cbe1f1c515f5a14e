//! Prints what a scene holds: `cargo run -p tessera-scene --example inspect -- FILE...`
//! (no argument: the built-in courtyard). Errors are printed, one per file, and do not stop
//! the others, so a whole directory of models can be checked at once.

fn summary(s: &tessera_scene::Scene) -> String {
    format!(
        "{} vertices, {} triangles, {} meshes, {} materials, {} textures, {} instances, {} lights, camera: {}",
        s.vertices.len(),
        s.triangle_count(),
        s.meshes.len(),
        s.materials.len(),
        s.textures.len(),
        s.instances.len(),
        s.lights.len(),
        s.camera.is_some()
    )
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        println!("builtin: {}", summary(&tessera_scene::builtin()));
    }
    for f in files {
        match tessera_scene::load(std::path::Path::new(&f)) {
            Ok(s) => println!("ok {f}: {}", summary(&s)),
            Err(e) => println!("error {e}"),
        }
    }
}
