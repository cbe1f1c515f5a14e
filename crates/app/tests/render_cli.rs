//! `tessera render`: the picture and summary of a small render, JSON output, and bad input
//! (scene files, glTF, flags) rejected with one clear error before a device is opened.

mod common;
use common::{scratch, tessera, text};

#[test]
fn renders_the_courtyard_into_a_png_and_reports_the_plan() {
    let dir = scratch("courtyard");
    let out = dir.join("f.png");
    let o = tessera(&[
        "render",
        "--width",
        "160",
        "--height",
        "90",
        "--frames",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    assert!(
        // Merged with `gbuffer` unless SSAO samples the G-buffer depth (the default).
        stdout.contains("lighting -> transparents -> tonemap"),
        "{stdout}"
    );
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    for pass in ["gbuffer", "lighting", "transparents", "tonemap"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.trim_start().starts_with(pass) && l.ends_with(" us")),
            "no GPU time of {pass}: {stdout}"
        );
    }
    let png = std::fs::read(&out).expect("the picture was written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[test]
fn json_summary_of_a_gltf_model_with_every_optimisation_off() {
    let dir = scratch("json");
    let out = dir.join("box.png");
    let o = tessera(&[
        "render",
        "--scene",
        "/usr/share/assimp/models/glTF2/BoxTextured-glTF/BoxTextured.gltf",
        "--width",
        "64",
        "--height",
        "48",
        "--frames",
        "1",
        "--no-optimize",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["validation_messages"], 0);
    // No merging: every raster pass (shadows and the four deferred ones) is a render pass of
    // its own.
    assert_eq!(v["render_passes"].as_array().map(Vec::len), Some(5), "{v}");
    assert!(
        v["timings_us"].as_array().is_some_and(|t| t.len() >= 5),
        "{v}"
    );
    assert!(out.exists());
}

#[test]
fn bad_input_gives_one_error_naming_what() {
    let dir = scratch("bad");
    let broken = "/usr/share/assimp/models/glTF2/IndexOutOfRange/IndexOutOfRange.gltf";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--scene".into(), broken.into()],
            "IndexOutOfRange.gltf",
        ),
        (
            vec![
                "--scene".into(),
                dir.join("missing.glb").display().to_string(),
            ],
            "missing.glb",
        ),
        (vec!["--scene".into(), "Cargo.toml".into()], "Cargo.toml"),
        (vec!["--width".into(), "0".into()], "--width"),
        (vec!["--frames".into(), "0".into()], "--frames"),
        (vec!["--exposure=-1".into()], "--exposure"),
        (
            vec![
                "--out".into(),
                dir.join("no/such/dir/f.png").display().to_string(),
            ],
            "--out",
        ),
    ];
    for (args, names) in cases {
        let mut all = vec!["render".to_string()];
        all.extend(args.clone());
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let o = tessera(&refs);
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
