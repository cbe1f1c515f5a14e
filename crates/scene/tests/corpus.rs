//! Every glTF file of Debian's `assimp-testmodels` (`/usr/share/assimp/models/glTF2`) is
//! classified below: valid ones must load with sane content, broken ones must fail with an
//! error that names the file and says what is wrong. A file missing from the table, or a table
//! entry missing from disk, fails the test, so the corpus and the table stay in step.

mod common;

use std::path::{Path, PathBuf};

const ROOT: &str = "/usr/share/assimp/models/glTF2";

enum Expect {
    /// Loads; `tris` = it has triangles; `textures` = exact texture count; `camera`.
    Ok {
        tris: bool,
        textures: usize,
        camera: bool,
    },
    /// Fails with a message containing the phrase.
    Err(&'static str),
}
use Expect::*;

const fn ok(textures: usize) -> Expect {
    Ok {
        tris: true,
        textures,
        camera: false,
    }
}
/// Loads but draws nothing (points and lines are skipped; scenes without nodes are empty).
const EMPTY: Expect = Ok {
    tris: false,
    textures: 0,
    camera: false,
};

const TABLE: &[(&str, Expect)] = &[
    (
        "2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        Ok {
            tris: true,
            textures: 0,
            camera: true,
        },
    ),
    // Its normals are not unit length: renormalised with a warning.
    ("BoxBadNormals-glTF-Binary/BoxBadNormals.glb", ok(0)),
    // The same image as base colour (sRGB) and another slot: two textures.
    ("BoxTexcoords-glTF/boxTexcoords.gltf", ok(2)),
    ("BoxTextured-glTF-Binary/BoxTextured.glb", ok(1)),
    ("BoxTextured-glTF-Embedded/BoxTextured.gltf", ok(1)),
    // Specular-glossiness is drawn with its core metallic-roughness fallback.
    (
        "BoxTextured-glTF-pbrSpecularGlossiness/BoxTextured.gltf",
        ok(1),
    ),
    // Requires KHR_technique_webgl (shading only): drawn with the core material, no texture.
    ("BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf", ok(0)),
    ("BoxTextured-glTF/BoxTextured.gltf", ok(1)),
    (
        "BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb",
        Err("mesh 0 primitive 0: POSITION 0 is not finite"),
    ),
    ("ClearCoat-glTF/ClearCoatTest.gltf", ok(5)),
    // Vertex counts that are not multiples of 3 and line primitives: partial triangles dropped,
    // lines skipped, with warnings.
    ("IncorrectVertexArrays/Cube.gltf", ok(0)),
    (
        "IndexOutOfRange/AllIndicesOutOfRange.gltf",
        Err("mesh 0 primitive 0: element 0 of indices accessor 0 is out of range: every index must be below the 24 vertices"),
    ),
    (
        "IndexOutOfRange/IndexOutOfRange.gltf",
        Err("is out of range: every index must be below the 24 vertices"),
    ),
    (
        "MissingBin/BoxTextured.gltf",
        Err("buffer 0: /usr/share/assimp/models/glTF2/MissingBin/BoxTextured0.bin: no such file"),
    ),
    (
        "RecursiveNodes/RecursiveNodes.gltf",
        Err("node 0: the node hierarchy has a cycle"),
    ),
    (
        "SchemaFailures/sceneWrongType.gltf",
        Err("not a valid glTF file: invalid type: string \"hello\""),
    ),
    // "scene": 0 with no scenes, and a scene without nodes: empty scenes with a warning.
    ("TestNoRootNode/NoScene.gltf", EMPTY),
    ("TestNoRootNode/SceneWithoutNodes.gltf", EMPTY),
    (
        "cameras/Cameras.gltf",
        Ok {
            tris: true,
            textures: 0,
            camera: true,
        },
    ),
    (
        "draco/2CylinderEngine.gltf",
        Err("Draco mesh compression (KHR_draco_mesh_compression) is not supported"),
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_00.gltf",
        EMPTY,
    ), // points
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_01.gltf",
        EMPTY,
    ), // lines
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_02.gltf",
        EMPTY,
    ), // line loop
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_03.gltf",
        EMPTY,
    ), // line strip
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_04.gltf",
        ok(0),
    ), // strip
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_05.gltf",
        ok(0),
    ), // fan
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_06.gltf",
        ok(0),
    ), // list
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_07.gltf",
        EMPTY,
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_08.gltf",
        EMPTY,
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_09.gltf",
        EMPTY,
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_10.gltf",
        EMPTY,
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_11.gltf",
        ok(0),
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_12.gltf",
        ok(0),
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_13.gltf",
        ok(0),
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_14.gltf",
        ok(0),
    ),
    (
        "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_15.gltf",
        ok(0),
    ),
    // Morph targets are ignored: the base pose is drawn.
    (
        "glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf",
        ok(0),
    ),
    // Materials naming texcoord sets beyond 0: sampled with set 0, with a warning.
    ("issue_3269/texcoord_crash.gltf", ok(1)),
    // Skinning ignored: the bind pose is drawn.
    ("simple_skin/simple_skin.gltf", ok(0)),
    ("textureTransform/TextureTransformTest.gltf", ok(5)),
    (
        "wrongTypes/badArray.gltf",
        Err("invalid type: map, expected a sequence"),
    ),
    // An extension object of the wrong shape for one we do not read: ignored.
    ("wrongTypes/badExtension.gltf", ok(1)),
    (
        "wrongTypes/badNumber.gltf",
        Err("invalid type: string \"not a number\", expected f32"),
    ),
    (
        "wrongTypes/badObject.gltf",
        Err("invalid type: string \"not an object\""),
    ),
    (
        "wrongTypes/badString.gltf",
        Err("invalid type: integer `42`, expected a string"),
    ),
    ("wrongTypes/badUint.gltf", Err("invalid type: integer `-1`")),
];

fn corpus_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")) {
                out.push(p);
            }
        }
    }
    let root = Path::new(ROOT);
    assert!(
        root.is_dir(),
        "{ROOT} is missing: install the Debian package assimp-testmodels (scripts/deps.sh does)"
    );
    let mut files = Vec::new();
    walk(root, &mut files);
    let mut rel: Vec<String> = files
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
        .collect();
    rel.sort();
    rel
}

#[test]
fn table_covers_the_corpus() {
    let files = corpus_files();
    let table: Vec<&str> = TABLE.iter().map(|(p, _)| *p).collect();
    let unclassified: Vec<_> = files
        .iter()
        .filter(|f| !table.contains(&f.as_str()))
        .collect();
    let missing: Vec<_> = table
        .iter()
        .filter(|t| !files.iter().any(|f| f == *t))
        .collect();
    assert!(
        unclassified.is_empty(),
        "files not in the table: {unclassified:?}"
    );
    assert!(missing.is_empty(), "table entries not on disk: {missing:?}");
}

#[test]
fn every_file_behaves_as_classified() {
    assert!(
        Path::new(ROOT).is_dir(),
        "{ROOT} is missing: install assimp-testmodels"
    );
    let mut failures = Vec::new();
    for (rel, expect) in TABLE {
        let path = Path::new(ROOT).join(rel);
        match (tessera_scene::load(&path), expect) {
            (
                Result::Ok(scene),
                Ok {
                    tris,
                    textures,
                    camera,
                },
            ) => {
                common::assert_sane(&scene, rel);
                if *tris != (scene.triangle_count() > 0) {
                    failures.push(format!(
                        "{rel}: {} triangles, expected some: {tris}",
                        scene.triangle_count()
                    ));
                }
                if *textures != scene.textures.len() {
                    failures.push(format!(
                        "{rel}: {} textures, expected {textures}",
                        scene.textures.len()
                    ));
                }
                if *camera != scene.camera.is_some() {
                    failures.push(format!(
                        "{rel}: camera {:?}, expected one: {camera}",
                        scene.camera
                    ));
                }
            }
            (Result::Ok(_), Err(phrase)) => {
                failures.push(format!("{rel}: loaded, expected an error with '{phrase}'"))
            }
            (Result::Err(e), Ok { .. }) => failures.push(format!("{rel}: expected to load: {e}")),
            (Result::Err(e), Err(phrase)) => {
                let msg = e.to_string();
                if !msg.contains(path.to_str().unwrap()) {
                    failures.push(format!("{rel}: error does not name the file: {msg}"));
                }
                if !msg.contains(phrase) {
                    failures.push(format!("{rel}: error lacks '{phrase}': {msg}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn details_of_known_files() {
    let load = |rel: &str| tessera_scene::load(&Path::new(ROOT).join(rel)).unwrap();
    // BoxTextured: 12 triangles, one sRGB 211×211 texture with 8 levels, one material + default.
    let s = load("BoxTextured-glTF/BoxTextured.gltf");
    assert_eq!(s.triangle_count(), 12);
    assert_eq!(
        (
            s.textures[0].width,
            s.textures[0].height,
            s.textures[0].mips.len()
        ),
        (211, 211, 8)
    );
    assert!(s.textures[0].srgb);
    assert_eq!(
        s.materials[s.meshes[0].primitives[0].material].base_color_texture,
        Some(0)
    );
    // The same box through .glb and embedded data URIs gives the same geometry and image.
    for other in [
        "BoxTextured-glTF-Binary/BoxTextured.glb",
        "BoxTextured-glTF-Embedded/BoxTextured.gltf",
    ] {
        let o = load(other);
        assert_eq!(o.vertices, s.vertices, "{other}");
        assert_eq!(o.textures[0].mips, s.textures[0].mips, "{other}");
    }
    // Cameras.gltf: a perspective camera with finite values.
    let c = load("cameras/Cameras.gltf").camera.unwrap();
    assert!(c.yfov > 0.0 && c.yfov < 3.2 && c.znear > 0.0, "{c:?}");
    // BoxBadNormals: repaired to unit length.
    let b = load("BoxBadNormals-glTF-Binary/BoxBadNormals.glb");
    assert!(b
        .vertices
        .iter()
        .all(|v| (glam::Vec3::from(v.normal).length() - 1.0).abs() < 1e-4));
    // Strip and fan give the same two triangles' area as the list.
    for n in ["04", "05", "06", "11", "12", "13"] {
        let m = load(&format!(
            "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_{n}.gltf"
        ));
        assert_eq!(m.triangle_count(), 2, "mode file {n}");
    }
    // The engine: many instances through a deep hierarchy, bounds cover them.
    let e = load("2CylinderEngine-glTF-Binary/2CylinderEngine.glb");
    assert!(e.instances.len() > 50 && e.triangle_count() > 100_000);
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn truncated_and_random_files_error_cleanly() {
    let glb =
        std::fs::read(Path::new(ROOT).join("BoxTextured-glTF-Binary/BoxTextured.glb")).unwrap();
    for cut in [0, 3, 11, 12, 19, 20, 100, glb.len() / 2, glb.len() - 1] {
        let p = temp(&format!("cut{cut}.glb"), &glb[..cut]);
        let e = tessera_scene::load(&p).expect_err("truncated GLB must not load");
        assert!(e.to_string().contains(p.to_str().unwrap()), "{e}");
    }
    // Deterministic pseudo-random bytes, with and without a GLB magic.
    let mut x = 0x2545_f491_u32;
    let mut bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    for (name, b) in [
        ("random.gltf", bytes.clone()),
        ("random.glb", {
            bytes[..4].copy_from_slice(b"glTF");
            bytes
        }),
    ] {
        let p = temp(name, &b);
        let e = tessera_scene::load(&p).expect_err("random bytes must not load");
        assert!(e.to_string().contains(p.to_str().unwrap()), "{e}");
    }
    let e = tessera_scene::load(Path::new("/nonexistent/x.glb")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/x.glb"), "{e}");
}

/// Flipping any byte of a valid GLB (header, JSON chunk, binary chunk with the PNG) never
/// panics, and whatever still loads is sane.
#[test]
fn corrupted_glb_never_panics() {
    let glb =
        std::fs::read(Path::new(ROOT).join("BoxTextured-glTF-Binary/BoxTextured.glb")).unwrap();
    // Every third byte, alternating the flip, keeps this a few seconds on a small machine.
    for i in (0..glb.len()).step_by(3) {
        let flip = if i % 2 == 0 { 0x5a } else { 0x80 };
        let mut b = glb.clone();
        b[i] ^= flip;
        let p = temp("flip.glb", &b);
        if let Result::Ok(s) = tessera_scene::load(&p) {
            common::assert_sane(&s, &format!("flip {flip:#x} at {i}"));
        }
    }
}
