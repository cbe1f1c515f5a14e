fn main() {
    if std::env::args().len() == 1 {
        let s = tessera_scene::builtin();
        println!(
            "builtin: v={} tris={} lights={} mats={} tex={}",
            s.vertices.len(),
            s.triangle_count(),
            s.lights.len(),
            s.materials.len(),
            s.textures.len()
        );
    }
    for a in std::env::args().skip(1) {
        match tessera_scene::load(std::path::Path::new(&a)) {
            Ok(s) => println!(
                "OK {a}: v={} i={} meshes={} mats={} tex={} inst={} lights={} cam={} tris={}",
                s.vertices.len(),
                s.indices.len(),
                s.meshes.len(),
                s.materials.len(),
                s.textures.len(),
                s.instances.len(),
                s.lights.len(),
                s.camera.is_some(),
                s.triangle_count()
            ),
            Err(e) => println!("ERR {e}"),
        }
    }
}
