//! Scene files: the built-in courtyard's content, that the file on disk is the same scene,
//! that bad keys and values name the file and the key, and that models load through them.

mod common;

use std::path::{Path, PathBuf};

use tessera_scene::{scene_file, AlphaMode, LightKind, Scene};

fn workspace_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

#[test]
fn builtin_equals_the_file_on_disk() {
    let builtin = tessera_scene::builtin();
    let disk = tessera_scene::load(&workspace_file(scene_file::COURTYARD_PATH)).unwrap();
    assert_eq!(builtin, disk);
    common::assert_sane(&builtin, "courtyard");
}

#[test]
fn courtyard_content() {
    let s = tessera_scene::builtin();
    assert_eq!(s.name, "courtyard");
    let moving_points = s
        .lights
        .iter()
        .filter(|l| l.kind == LightKind::Point && l.motion.is_some())
        .count();
    assert!(moving_points >= 64, "{moving_points} moving point lights");
    assert_eq!(
        s.lights
            .iter()
            .filter(|l| l.kind == LightKind::Directional)
            .count(),
        1
    );
    assert!(
        s.materials
            .iter()
            .filter(|m| m.alpha_mode == AlphaMode::Blend)
            .count()
            >= 3
    );
    assert!(s
        .materials
        .iter()
        .any(|m| m.emissive.iter().any(|&e| e > 1.0)));
    // The material grid covers metallic and roughness from 0 to 1 in both combinations.
    for (m, r) in [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (0.5, 0.5)] {
        assert!(
            s.materials
                .iter()
                .any(|x| x.metallic == m && x.roughness == r),
            "no material with metallic {m} roughness {r}"
        );
    }
    assert!(!s.textures.is_empty() && s.textures.iter().all(|t| t.srgb));
    let tris = s.triangle_count();
    assert!((2_000..=40_000).contains(&tris), "{tris} triangles");
    let cam = s.camera.expect("camera");
    // The camera sees the middle of the courtyard: the bounds' centre is in front of it.
    let to_centre = (s.bounds.center() - cam.position).normalize();
    let forward = (cam.target - cam.position).normalize();
    assert!(
        forward.dot(to_centre) > 0.8,
        "camera looks away from the scene"
    );
    assert!(!s.bounds.is_empty());
}

#[test]
fn lights_move() {
    let s = tessera_scene::builtin();
    let (a, b) = (s.light_positions_at(0.0), s.light_positions_at(1.5));
    for (i, l) in s.lights.iter().enumerate() {
        assert_eq!(a[i], l.position, "light {i} at t=0 is its position");
        if let Some(m) = l.motion {
            assert!((a[i] - b[i]).length() > 0.1, "light {i} did not move");
            // Ring lights stay on their circle.
            let d = b[i] - m.center;
            let horizontal = glam::Vec2::new(d.x, d.z).length();
            assert!((horizontal - m.radius).abs() < 1e-3);
            assert!(d.y.abs() <= m.bob_amplitude + 1e-4);
        } else {
            assert_eq!(a[i], b[i]);
        }
    }
    let moved = s.lights_at(2.0);
    assert_eq!(moved.len(), s.lights.len());
    assert_eq!(
        moved.iter().map(|l| l.position).collect::<Vec<_>>(),
        s.light_positions_at(2.0)
    );
}

fn parse(text: &str) -> Result<Scene, tessera_scene::SceneError> {
    scene_file::parse(text, Path::new("dir/test.toml"))
}

#[test]
fn good_file_parses() {
    let s = parse(
        r#"
        name = "t"
        [camera]
        position = [0, 2, 5]
        target = [0, 0, 0]
        [[lights]]
        kind = "spot"
        position = [0, 3, 0]
        direction = [0, -1, 0]
        inner_cone = 10
        outer_cone = 30
        [[objects]]
        shape = "sphere"
        translation = [1, 2, 3]
        quaternion = [0, 0, 0, 1]
        scale = 2
        material = { base_color = [1, 0, 0, 0.5], alpha_mode = "mask", alpha_cutoff = 0.3, texture = "bricks", texture_size = 64 }
        [[objects]]
        shape = "box"
        rotation = [0, 90, 0]
        repeat = { count = 3, offset = [2, 0, 0] }
        "#,
    )
    .unwrap();
    assert_eq!(s.name, "t");
    assert_eq!(s.instances.len(), 4);
    assert_eq!(
        s.instances[0].transform.w_axis.truncate(),
        glam::Vec3::new(1.0, 2.0, 3.0)
    );
    assert_eq!(s.instances[3].transform.w_axis.x, 4.0);
    // Rotating a unit box 90° about Y maps +X to -Z.
    let x = s.instances[1].transform.transform_vector3(glam::Vec3::X);
    assert!((x - glam::Vec3::NEG_Z).length() < 1e-5, "{x}");
    let m = &s.materials[s.meshes[0].primitives[0].material];
    assert_eq!(m.alpha_mode, AlphaMode::Mask { cutoff: 0.3 });
    assert_eq!(s.textures[0].width, 64);
    assert!(matches!(s.lights[0].kind, LightKind::Spot { .. }));
    assert!((s.camera.unwrap().yfov - 50f32.to_radians()).abs() < 1e-6);
    common::assert_sane(&s, "good file");
}

#[test]
fn bad_keys_and_values_name_file_and_key() {
    let cases: &[(&str, &str, &str)] = &[
        ("colour = 1", "colour", "unknown field"),
        (
            "[[objects]]\nshape = 'cone'",
            "objects[0].shape",
            "unknown shape 'cone'",
        ),
        (
            "[[objects]]\nshape = 'box'\nmaterial = { roughness = 1.5 }",
            "objects[0].material.roughness",
            "not in 0..=1",
        ),
        (
            "[[objects]]\nshape = 'box'\nmaterial = { roughness = 'high' }",
            "objects[0].material.roughness",
            "invalid type",
        ),
        (
            "[[objects]]\nshape = 'box'\n[[objects]]\nshape = 'box'\nmaterial = { metalic = 1 }",
            "objects[1].material.metalic",
            "unknown field",
        ),
        (
            "[[objects]]\nshape = 'box'\nmaterial = { texture = 'plaid' }",
            "objects[0].material.texture",
            "unknown procedural texture",
        ),
        (
            "[[objects]]\nshape = 'box'\nmaterial = { alpha_mode = 'glass' }",
            "objects[0].material.alpha_mode",
            "unknown alpha mode",
        ),
        (
            "[[objects]]\nshape = 'box'\nmaterial = { base_color = [1, 1] }",
            "objects[0].material.base_color",
            "3 (RGB) or 4",
        ),
        (
            "[[objects]]\nshape = 'box'\nscale = [1, 0, 1]",
            "objects[0].scale",
            "zero",
        ),
        (
            "[[objects]]\nshape = 'box'\nrotation = [0, 1, 0]\nquaternion = [0, 0, 0, 1]",
            "objects[0].quaternion",
            "not both",
        ),
        (
            "[[objects]]\ntranslation = [0, 0, 0]",
            "objects[0].shape",
            "missing",
        ),
        (
            "[[objects]]\nshape = 'box'\nmodel = 'a.glb'",
            "objects[0].model",
            "not both",
        ),
        (
            "[[objects]]\nmodel = 'a.obj'",
            "objects[0].model",
            "not a .gltf or .glb",
        ),
        (
            "[[objects]]\nshape = 'sphere'\nsegments = 1",
            "objects[0].segments",
            "not in 3..=256",
        ),
        (
            "[[objects]]\nshape = 'box'\nrepeat = { count = 0, offset = [1, 0, 0] }",
            "objects[0].repeat.count",
            "not in 1..=10000",
        ),
        (
            "[[lights]]\nkind = 'area'",
            "lights[0].kind",
            "unknown light kind",
        ),
        (
            "[[lights]]\nkind = 'point'\nintensity = -1",
            "lights[0].intensity",
            "non-negative",
        ),
        (
            "[[lights]]\nkind = 'directional'\ndirection = [0, 0, 0]",
            "lights[0].direction",
            "zero",
        ),
        (
            "[[lights]]\nkind = 'directional'\nmotion = { radius = 1 }",
            "lights[0].motion",
            "no position",
        ),
        (
            "[[lights]]\nkind = 'point'\nmotion = { radius = 1, sped = 2 }",
            "lights[0].motion.sped",
            "unknown field",
        ),
        (
            "[[light_rings]]\ncount = 0\ncenter = [0, 0, 0]\nradius = 1",
            "light_rings[0].count",
            "not in 1..=4096",
        ),
        (
            "[[light_rings]]\ncount = 4\ncenter = [0, 0, 0]\nradius = 1\ncolors = []",
            "light_rings[0].colors",
            "at least one",
        ),
        (
            "[camera]\nposition = [0, 0, 0]\ntarget = [0, 0, 0]",
            "camera.target",
            "equals",
        ),
        (
            "[camera]\nposition = [0, 0, 1]\ntarget = [0, 0, 0]\nyfov = 200",
            "camera.yfov",
            "between 0 and 180",
        ),
        (
            "[camera]\nposition = [0, 0, 1]\ntarget = [0, 0, 0]\nzoom = 2",
            "camera.zoom",
            "unknown field",
        ),
        (
            "[camera]\nposition = [0, 0]\ntarget = [0, 0, 0]",
            "camera.position",
            "invalid length",
        ),
        (
            "[[material_grids]]\norigin = [0, 0, 0]\nspacing = 1\ncolumns = 0\nrows = 2",
            "material_grids[0].columns",
            "not in 1..=64",
        ),
        ("name = ", "name", "line 1"),
    ];
    let mut failures = Vec::new();
    for (text, key, phrase) in cases {
        match parse(text) {
            Ok(_) => failures.push(format!("{text:?}: parsed, expected an error at {key}")),
            Err(e) => {
                let msg = e.to_string();
                if !msg.starts_with("dir/test.toml: ")
                    || !msg.contains(&format!(": {key}: "))
                    || !msg.contains(phrase)
                {
                    failures.push(format!(
                        "{text:?}: expected key {key} and '{phrase}', got: {msg}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn models_load_relative_to_the_scene_file() {
    let root = Path::new("/usr/share/assimp/models/glTF2");
    assert!(
        root.is_dir(),
        "{} is missing: install assimp-testmodels",
        root.display()
    );
    let text = r#"
        [[objects]]
        model = "BoxTextured-glTF-Binary/BoxTextured.glb"
        translation = [10, 0, 0]
        repeat = { count = 2, offset = [0, 5, 0] }
        [[objects]]
        shape = "plane"
    "#;
    let s = scene_file::parse(text, &root.join("scene.toml")).unwrap();
    common::assert_sane(&s, "model scene");
    assert_eq!(s.instances.len(), 3);
    assert_eq!(s.textures.len(), 2, "one per placed copy");
    assert!(s.bounds.max.x > 10.0 && s.bounds.max.y > 5.0);
    let e = scene_file::parse(
        "[[objects]]\nmodel = 'MissingBin/BoxTextured.gltf'",
        &root.join("scene.toml"),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("scene.toml: objects[0].model: ")
            && msg.contains("MissingBin/BoxTextured.gltf: buffer 0"),
        "{msg}"
    );
}

#[test]
fn unreadable_scene_files_error() {
    let e = tessera_scene::load(Path::new("/nonexistent/scene.toml")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/scene.toml"), "{e}");
    let e = tessera_scene::load(Path::new("scene.obj")).unwrap_err();
    assert!(
        e.to_string().contains("scene.obj: unknown scene format"),
        "{e}"
    );
}
