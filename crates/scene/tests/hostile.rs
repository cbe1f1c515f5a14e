//! Hostile inputs, each crafted small in its own temporary folder: special files, scenes
//! that amplify a model, glTF URIs that leave the model's folder, headers that claim more
//! than the caps, values the scene format refuses, and the messages a newcomer reads.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tessera_scene::SceneError;

/// Little-endian f32s as bytes.
fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A glTF of one triangle whose positions are in `tri.bin`; `edit` changes the JSON.
fn triangle(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    std::fs::write(
        dir.join("tri.bin"),
        f32s(&[0., 0., 0., 1., 0., 0., 0., 1., 0.]),
    )
    .unwrap();
    let mut gltf = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "uri": "tri.bin", "byteLength": 36 }],
        "bufferViews": [{ "buffer": 0, "byteLength": 36 }],
        "accessors": [{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "nodes": [{ "mesh": 0 }],
        "scenes": [{ "nodes": [0] }]
    });
    edit(&mut gltf);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&gltf).unwrap()).unwrap();
    path
}

fn load_err(path: &Path) -> String {
    match tessera_scene::load(path) {
        Ok(_) => panic!("{} loaded, expected an error", path.display()),
        Err(e) => e.to_string(),
    }
}

fn mkfifo(path: &Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn special_files_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A model named by a scene that is /dev/zero under a .glb name.
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.glb")).unwrap();
    std::fs::write(d.join("s.toml"), "[[objects]]\nmodel = 'zero.glb'\n").unwrap();
    let e = load_err(&d.join("s.toml"));
    assert!(e.contains("not a regular file (a character device)"), "{e}");
    // A scene file that is a FIFO, and a glTF buffer that is one: either would block forever.
    if mkfifo(&d.join("fifo.toml")) && mkfifo(&d.join("fifo.bin")) {
        let e = load_err(&d.join("fifo.toml"));
        assert!(e.contains("fifo.toml: not a regular file (a FIFO)"), "{e}");
        let m = triangle(d, "m.gltf", |g| g["buffers"][0]["uri"] = json!("fifo.bin"));
        let e = load_err(&m);
        assert!(e.contains("buffer 0: ") && e.contains("a FIFO"), "{e}");
    }
    // A scene file is read only up to its limit, not whole.
    let big = d.join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(tessera_scene::MAX_SCENE_FILE_BYTES + 1).unwrap();
    let e = load_err(&big);
    assert!(e.contains("big.toml: file: too large"), "{e}");
}

/// A model of `n` vertices in a few hundred bytes: a POSITION accessor without a buffer
/// view reads as zeros.
fn zero_model(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join(format!("zeros{n}.gltf"));
    let gltf = json!({
        "asset": { "version": "2.0" },
        "accessors": [{ "componentType": 5126, "count": n, "type": "VEC3" }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }],
        "nodes": [{ "mesh": 0 }],
        "scenes": [{ "nodes": [0] }]
    });
    std::fs::write(&path, serde_json::to_vec(&gltf).unwrap()).unwrap();
    path
}

#[test]
fn repeats_are_checked_before_any_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    zero_model(d, 1 << 16);
    let scene = d.join("s.toml");
    std::fs::write(
        &scene,
        "[[objects]]\nmodel = 'zeros65536.gltf'\nrepeat = { count = 10000, offset = [1, 0, 0] }\n",
    )
    .unwrap();
    let t = Instant::now();
    let e = load_err(&scene);
    assert!(
        e.contains("s.toml: objects[0].repeat.count: the scene would hold 655360000 vertices, the limit is 16777216"),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    // Shared shapes cost no memory per copy but are drawn per copy.
    let e = tessera_scene::scene_file::parse(
        "[[objects]]\nshape = 'sphere'\nsegments = 256\nrings = 256\nrepeat = { count = 10000, offset = [1, 0, 0] }\n",
        &scene,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("objects[0].repeat.count: the scene would hold")
            && e.contains("drawn triangles"),
        "{e}"
    );
}

#[test]
fn scene_assembly_is_linear_in_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    triangle(d, "tri.gltf", |_| {});
    let mut text = String::new();
    for i in 0..5 {
        text += &format!(
            "[[objects]]\nmodel = 'tri.gltf'\ntranslation = [0, {i}, 0]\nrepeat = {{ count = 10000, offset = [1, 0, 0] }}\n"
        );
    }
    // 60 grids of distinct materials: 61440 materials, each looked up once.
    for i in 0..60 {
        text += &format!(
            "[[material_grids]]\nshape = 'box'\norigin = [0, 0, {i}]\nspacing = 1\ncolumns = 32\nrows = 32\nbase_color = [{}, 0.5, 0.5]\n",
            i as f32 / 60.0
        );
    }
    let t = Instant::now();
    let s = tessera_scene::scene_file::parse(&text, &d.join("s.toml")).unwrap();
    let took = t.elapsed();
    assert_eq!(s.instances.len(), 50_000 + 60 * 32 * 32);
    assert_eq!(s.materials.len(), 50_000 + 60 * 32 * 32);
    assert_eq!(s.vertices.len(), 3 * 50_000 + 24);
    assert!(
        s.bounds.max.x >= 9999.0 && s.bounds.max.z >= 59.0,
        "{:?}",
        s.bounds
    );
    // Quadratic assembly took minutes here; linear takes about a second unoptimised.
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn uris_stay_inside_the_model_folder() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path();
    std::fs::write(
        outside.join("secret.bin"),
        f32s(&[0., 0., 0., 1., 0., 0., 0., 1., 0.]),
    )
    .unwrap();
    let d = outside.join("model");
    std::fs::create_dir(&d).unwrap();
    std::os::unix::fs::symlink("../secret.bin", d.join("link.bin")).unwrap();
    let abs = outside.join("secret.bin").display().to_string();
    for (uri, why) in [
        ("../secret.bin", "leaves the model's folder"),
        ("%2E%2E/secret.bin", "leaves the model's folder"),
        (abs.as_str(), "is an absolute path"),
        (&format!("file://{abs}"), "has the scheme 'file:'"),
        ("/dev/zero", "is an absolute path"),
        ("link.bin", "resolves to a file outside the model's folder"),
        ("", "the URI is empty"),
    ] {
        let m = triangle(&d, "m.gltf", |g| g["buffers"][0]["uri"] = json!(uri));
        let e = load_err(&m);
        assert!(
            e.contains("m.gltf: buffer 0: ") && e.contains(why),
            "{uri:?}: {e}"
        );
    }
    // Percent-encoded names inside the folder are read, as the spec allows.
    std::fs::create_dir(d.join("sub dir")).unwrap();
    std::fs::copy(outside.join("secret.bin"), d.join("sub dir/a.bin")).unwrap();
    let m = triangle(&d, "m.gltf", |g| {
        g["buffers"][0]["uri"] = json!("sub%20dir/../sub%20dir/a.bin")
    });
    let s = tessera_scene::load(&m).unwrap();
    assert_eq!(s.triangle_count(), 1);
}

#[test]
fn errors_never_echo_bytes_of_a_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Indices 0, 1 and 29557 ("us" of some file's text) for three vertices.
    let mut bin = f32s(&[0., 0., 0., 1., 0., 0., 0., 1., 0.]);
    bin.extend([0u16, 1, 29557].iter().flat_map(|i| i.to_le_bytes()));
    bin.extend([0, 0]);
    std::fs::write(d.join("idx.bin"), &bin).unwrap();
    let m = triangle(d, "m.gltf", |g| {
        g["buffers"][0] = json!({ "uri": "idx.bin", "byteLength": 44 });
        g["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "buffer": 0, "byteOffset": 36, "byteLength": 6 }));
        g["accessors"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" }));
        g["meshes"][0]["primitives"][0]["indices"] = json!(1);
    });
    let e = load_err(&m);
    assert!(
        e.ends_with("m.gltf: mesh 0 primitive 0: element 2 of indices accessor 1 is out of range: every index must be below the 3 vertices"),
        "{e}"
    );
    assert!(!e.contains("29557"), "{e}");
    // The same through a sparse accessor's indices.
    let m = triangle(d, "sparse.gltf", |g| {
        g["buffers"][0] = json!({ "uri": "idx.bin", "byteLength": 44 });
        g["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "buffer": 0, "byteOffset": 38, "byteLength": 4 }));
        g["accessors"][0]["sparse"] = json!({
            "count": 2,
            "indices": { "bufferView": 1, "componentType": 5123 },
            "values": { "bufferView": 0 }
        });
    });
    let e = load_err(&m);
    assert!(
        e.contains("sparse index 1 is out of range") && !e.contains("29557"),
        "{e}"
    );
}

/// A PNG of a header only: signature, IHDR claiming `w`×`h`, an empty IDAT, IEND.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend(kind);
        out.extend(data);
        let crc = crc32(&out[start..]);
        out.extend(crc.to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]); // 8-bit RGBA
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &[]);
    chunk(&mut png, b"IEND", &[]);
    png
}

fn textured(d: &Path, image: &str) -> PathBuf {
    triangle(d, "tex.gltf", |g| {
        g["images"] = json!([{ "uri": image }]);
        g["textures"] = json!([{ "source": 0 }]);
        g["materials"] =
            json!([{ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } }]);
        g["meshes"][0]["primitives"][0]["material"] = json!(0);
    })
}

#[test]
fn declared_sizes_are_checked_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 16384² passes the per-texture cap: refused from its header, nothing decoded.
    std::fs::write(d.join("huge.png"), png_header(16384, 16384)).unwrap();
    let t = Instant::now();
    let e = load_err(&textured(d, "huge.png"));
    assert!(
        e.contains(
            "tex.gltf: image 0: too large: 16384×16384 texels; the limit is 16777216 per texture"
        ),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    // Within the cap, the same header-only file is a decoding error that quotes nothing.
    std::fs::write(d.join("small.png"), png_header(64, 64)).unwrap();
    let e = load_err(&textured(d, "small.png"));
    assert!(e.contains("image 0: cannot be decoded"), "{e}");
    // Vertex counts over the cap, declared by a few hundred bytes, are refused before any
    // accessor is read; so are several primitives that only together pass it.
    let e = load_err(&zero_model(d, tessera_scene::MAX_VERTICES + 1));
    assert!(
        e.contains("too large: the meshes declare at least 16777217 vertices"),
        "{e}"
    );
    let m = triangle(d, "two.gltf", |g| {
        g["accessors"] = json!([{ "componentType": 5126, "count": 1 << 23, "type": "VEC3" },
                                { "componentType": 5126, "count": (1 << 23) + 1, "type": "VEC3" }]);
        g["meshes"][0]["primitives"] = json!([{ "attributes": { "POSITION": 0 } },
                                              { "attributes": { "POSITION": 1 } }]);
    });
    let t = Instant::now();
    let e = load_err(&m);
    assert!(
        e.contains("mesh 0 primitive 1: too large: the meshes declare"),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn gltf_values_the_scene_format_refuses_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            json!({ "cameras": [{ "type": "perspective", "perspective": { "yfov": 0.0, "znear": 0.1 } }] }),
            "m.gltf: camera 0: perspective.yfov 0 is not between 0 and π radians",
        ),
        (
            json!({ "cameras": [{ "type": "perspective", "perspective": { "yfov": 1.0, "znear": 1.0, "zfar": 0.5 } }] }),
            "camera 0: perspective.zfar 0.5 must be larger than znear 1",
        ),
        (
            json!({ "extensions": { "KHR_lights_punctual": { "lights": [
                { "type": "spot", "spot": { "innerConeAngle": 0.6, "outerConeAngle": 0.5 } }] } } }),
            "m.gltf: KHR_lights_punctual light 0: spot.innerConeAngle 0.6 is not in [0, outerConeAngle 0.5)",
        ),
        (
            json!({ "extensions": { "KHR_lights_punctual": { "lights": [
                { "type": "point", "intensity": -5.0 }] } } }),
            "KHR_lights_punctual light 0: intensity -5 must be a non-negative number",
        ),
    ];
    for (extra, phrase) in cases {
        let m = triangle(d, "m.gltf", |g| {
            for (k, v) in extra.as_object().unwrap() {
                g[k] = v.clone();
            }
            g["extensionsUsed"] = json!(["KHR_lights_punctual"]);
        });
        let e = load_err(&m);
        assert!(e.contains(phrase), "expected '{phrase}', got: {e}");
    }
}

#[test]
fn accessors_without_a_buffer_view_read_as_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // POSITION: zeros with vertex 1 and 2 substituted; TEXCOORD_0: zeros only.
    let mut bin = f32s(&[1., 0., 0., 0., 1., 0.]);
    bin.extend([1u16, 2].iter().flat_map(|i| i.to_le_bytes()));
    std::fs::write(d.join("sparse.bin"), &bin).unwrap();
    let m = triangle(d, "m.gltf", |g| {
        g["buffers"][0] = json!({ "uri": "sparse.bin", "byteLength": 28 });
        g["bufferViews"] = json!([{ "buffer": 0, "byteLength": 24 },
                                  { "buffer": 0, "byteOffset": 24, "byteLength": 4 }]);
        g["accessors"] = json!([
            { "componentType": 5126, "count": 3, "type": "VEC3", "sparse": {
                "count": 2,
                "indices": { "bufferView": 1, "componentType": 5123 },
                "values": { "bufferView": 0 } } },
            { "componentType": 5126, "count": 3, "type": "VEC2" }
        ]);
        g["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(1);
    });
    let s = tessera_scene::load(&m).unwrap_or_else(|e| panic!("{e}"));
    common::assert_sane(&s, "sparse without views");
    let p: Vec<[f32; 3]> = s.vertices.iter().map(|v| v.position).collect();
    assert_eq!(p, [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]]);
    assert!(s.vertices.iter().all(|v| v.uv == [0.0, 0.0]));
}

#[test]
fn each_error_names_the_file_and_says_what_is_wrong_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shown = |p: &Path| p.display().to_string();
    // A missing scene and a missing model.
    let e = load_err(&d.join("none.toml"));
    assert_eq!(e, format!("{}: no such file", shown(&d.join("none.toml"))));
    std::fs::write(d.join("s.toml"), "[[objects]]\nmodel = 'gone.glb'\n").unwrap();
    let e = load_err(&d.join("s.toml"));
    assert_eq!(
        e,
        format!(
            "{}: objects[0].model: {}: no such file",
            shown(&d.join("s.toml")),
            shown(&d.join("gone.glb"))
        )
    );
    // A .glb that is not one.
    std::fs::write(d.join("bad.glb"), b"GLTF\x02\0\0\0").unwrap();
    let e = load_err(&d.join("bad.glb"));
    assert!(e.ends_with("bad.glb: not a valid glTF file: not a glTF binary: bad magic (a .glb file starts with 'glTF')"), "{e}");
    // glTF 1.0, as JSON and as a binary.
    std::fs::write(
        d.join("old.gltf"),
        r#"{"asset": {"version": "1.0"}, "accessors": {"a": {}}}"#,
    )
    .unwrap();
    let e = load_err(&d.join("old.gltf"));
    assert!(e.ends_with("old.gltf: asset.version: unsupported: glTF 1.0 is not supported; only glTF 2.0 is read (convert the file)"), "{e}");
    let mut glb = b"glTF\x01\0\0\0".to_vec();
    glb.extend(20u32.to_le_bytes());
    glb.extend([0; 8]);
    std::fs::write(d.join("old.glb"), &glb).unwrap();
    let e = load_err(&d.join("old.glb"));
    assert!(
        e.contains("old.glb: GLB header: unsupported: glTF 1.0 is not supported"),
        "{e}"
    );
    // Whatever is wrong is said once.
    for e in [load_err(&d.join("none.toml")), load_err(&d.join("s.toml"))] {
        assert_eq!(e.matches("no such file").count(), 1, "{e}");
        assert!(!e.contains("cannot read"), "{e}");
    }
    let e = SceneError::NotFound {
        path: "x.glb".into(),
    }
    .to_string();
    assert_eq!(e, "x.glb: no such file");
}
