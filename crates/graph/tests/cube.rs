//! Cube-map images (`ImageDesc::cube`): six square single-sampled layers, described in frame
//! files as `"cube": true`, refused with words that say why when the shape is not a cube.

use tessera_graph::graph::{Graph, ImageDesc};
use tessera_graph::{compile, frame_file, Access, Capabilities, CompileOptions, Format};

fn frame(desc: ImageDesc) -> Graph {
    let mut g = Graph::new("cube");
    let sky = g.image("sky", desc);
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
    g.resource_mut(out).output = true;
    g.compute("bake").uses(sky, Access::StorageWrite);
    g.compute("show")
        .uses(sky, Access::Sampled)
        .uses(out, Access::StorageWrite);
    g
}

#[test]
fn a_cube_map_compiles_and_counts_its_six_faces_and_mips() {
    let desc = ImageDesc::cube(Format::R16G16B16A16_SFLOAT, 16).mips(3);
    assert_eq!((desc.layers, desc.cube), (6, true));
    // 6 faces × (16² + 8² + 4²) texels × 8 bytes.
    assert_eq!(desc.estimated_bytes(), 6 * (256 + 64 + 16) * 8);
    let plan = compile(&frame(desc), &Capabilities::desktop(), &CompileOptions::ALL)
        .expect("a cube map compiles");
    assert!(plan.culled.is_empty());
}

#[test]
fn a_cube_map_that_is_not_six_square_single_sampled_layers_is_refused() {
    let cube = ImageDesc::cube(Format::R16G16B16A16_SFLOAT, 16);
    for (desc, what) in [
        (cube.layers(5), "5 layers"),
        (ImageDesc { width: 8, ..cube }, "8×16"),
        (cube.samples(4), "4 samples"),
    ] {
        let err = compile(&frame(desc), &Capabilities::desktop(), &CompileOptions::ALL)
            .expect_err(what)
            .to_string();
        assert!(
            err.contains("'sky'") && err.contains("cube map") && err.contains(what),
            "{what}: {err}"
        );
    }
}

#[test]
fn frame_files_describe_cube_maps() {
    let text = r#"{
        "resources": [
            {"name": "sky", "kind": "image", "format": "R16G16B16A16_SFLOAT", "width": 16, "height": 16, "layers": 6, "cube": true},
            {"name": "out", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 8, "height": 8, "output": true}
        ],
        "passes": [
            {"name": "bake", "kind": "compute", "uses": [{"resource": "sky", "access": "storage_write"}]},
            {"name": "show", "kind": "compute", "uses": [
                {"resource": "sky", "access": "sampled"},
                {"resource": "out", "access": "storage_write"}]}
        ]
    }"#;
    let (g, caps) = frame_file::parse(text, frame_file::Syntax::Json, "cube.json").expect("parses");
    let sky = g.find_resource("sky").unwrap();
    assert_eq!(
        g.resource(sky).image_desc().copied(),
        Some(ImageDesc::cube(Format::R16G16B16A16_SFLOAT, 16))
    );
    let described = frame_file::FrameFile::describe(&g, &caps);
    let json = serde_json::to_string(&described).unwrap();
    assert!(json.contains(r#""cube":true"#), "{json}");
    let (again, _) = frame_file::parse(&json, frame_file::Syntax::Json, "again.json").unwrap();
    assert_eq!(again, g);
    // A buffer is no cube map.
    let bad = r#"{"resources": [{"name": "b", "kind": "buffer", "size": 16, "cube": true}], "passes": []}"#;
    let err = frame_file::parse(bad, frame_file::Syntax::Json, "bad.json")
        .expect_err("a cube buffer")
        .to_string();
    assert!(err.contains("cube"), "{err}");
}
