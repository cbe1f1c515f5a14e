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
    // The desktop frame lights in compute (`lighting = "compute"`): lighting is in no
    // render pass, and transparents draw in one of their own after it.
    assert!(stdout.contains("render pass: transparents\n"), "{stdout}");
    assert!(!stdout.contains("render pass: lighting"), "{stdout}");
    // The desktop post chain is compute (`post = "compute"`): tone mapping is in no render
    // pass (`--post raster` gives it one of its own).
    assert!(!stdout.contains("render pass: tonemap"), "{stdout}");
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
    // No merging: every raster pass (shadows, the G-buffer and transparents; lighting, tone
    // mapping and FXAA are compute on desktop) is a render pass of its own.
    assert_eq!(v["render_passes"].as_array().map(Vec::len), Some(3), "{v}");
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

#[test]
fn a_config_file_sets_size_frames_and_the_mobile_preset_and_flags_override_it() {
    let dir = scratch("config");
    let cfg = dir.join("small.toml");
    std::fs::write(
        &cfg,
        "[render]\nwidth = 64\nheight = 36\nframes = 1\n\
         [features]\ncascades = 2\nshadow_size = 256\nlights = 8\n\
         [mobile]\nlights = 4\n",
    )
    .unwrap();
    let out = dir.join("m.png");
    let o = tessera(&[
        "render",
        "--config",
        cfg.to_str().unwrap(),
        "--profile",
        "mali",
        "--aa",
        "off",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["profile"], "mali", "{v}");
    assert_eq!(v["config"], cfg.to_str().unwrap(), "{v}");
    assert_eq!(v["frames"], 1, "{v}");
    let f = &v["features"];
    // [features], then the mobile preset (tile-friendly SSAO and bloom, [mobile]'s lights),
    // then the flag.
    assert_eq!(f["cascades"], 2, "{v}");
    assert_eq!(f["shadow_size"], 256, "{v}");
    assert_eq!(f["lights"], 4, "{v}");
    assert_eq!(f["ssao"], "prepass", "{v}");
    assert_eq!(f["bloom"], "tonemap", "{v}");
    assert_eq!(f["aa"], "off", "{v}");
    assert_eq!(v["validation_messages"], 0, "{v}");
    // The picture has [render]'s size (PNG IHDR: width and height, big-endian).
    let png = std::fs::read(&out).expect("the picture was written");
    assert_eq!(&png[16..24], &[0, 0, 0, 64, 0, 0, 0, 36]);
}

#[test]
fn a_bad_config_file_gives_one_line_naming_file_line_and_allowed_values() {
    let dir = scratch("badconfig");
    let cases = [
        (
            "[render]\nwidth = 64\n[features]\nssao = \"half\"\n",
            ":4:8: [features] ssao = \"half\": expected one of \"gbuffer\", \"prepass\", \"off\"",
        ),
        (
            "[features]\nssoa = \"off\"\n",
            ":2:1: unknown key [features] ssoa; allowed: shadows, cascades,",
        ),
        (
            "[graph]\nmerge = 1\n",
            ":2:9: [graph] merge = 1: expected true or false",
        ),
        (
            "[feature]\n",
            ":1:2: unknown section [feature]; allowed sections: render,",
        ),
        ("[features\n", ":1:"),
    ];
    for (i, (body, expected)) in cases.iter().enumerate() {
        let cfg = dir.join(format!("bad{i}.toml"));
        std::fs::write(&cfg, body).unwrap();
        let o = tessera(&["render", "--config", cfg.to_str().unwrap()]);
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{body} succeeded");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("{}{expected}", cfg.display())),
            "{body}: {err}"
        );
    }
    // A relative scene resolves against the file's directory (and is loaded before a device
    // is opened).
    let cfg = dir.join("scene.toml");
    std::fs::write(&cfg, "[render]\nscene = \"missing.glb\"\n").unwrap();
    let o = tessera(&["render", "--config", cfg.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains(&dir.join("missing.glb").display().to_string()),
        "{err}"
    );
}

#[test]
fn a_bad_feature_flag_names_the_flag_and_the_allowed_values() {
    let cases: [(&[&str], &[&str]); 7] = [
        (
            &["--cascades", "2", "--debug-view", "shadow2"],
            &["--debug-view shadow2", "cascades"],
        ),
        (
            &["--ssao", "bogus"],
            &["--ssao", "gbuffer", "prepass", "off"],
        ),
        (&["--bloom", "x"], &["--bloom", "hdr", "tonemap", "off"]),
        (
            &["--debug-view", "shadow9"],
            &["--debug-view", "albedo", "shadow3"],
        ),
        (
            &["--profile", "nvidia"],
            &["--profile", "desktop", "mali", "adreno"],
        ),
        (
            &["--shadow-size", "1000"],
            &["--shadow-size", "power of two from 64 to 8192"],
        ),
        (
            &["--resolution-scale", "4"],
            &["--resolution-scale", "0.25", "2"],
        ),
    ];
    for (args, names) in cases {
        let mut all = vec!["render"];
        all.extend(args);
        let o = tessera(&all);
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        for n in names {
            assert!(err.contains(n), "{args:?}: {n} not in {err}");
        }
    }
}

#[test]
fn a_pre_rotated_render_is_the_upright_frame_turned_for_the_panel() {
    // `--rotate 270` writes the physical image of a 270° surface (90×160 for a 160×90
    // frame); turned as the presentation engine would (three quarter turns clockwise) it
    // is the upright render, exactly (the last post pass writes it turned by a texel remap).
    let dir = scratch("rotate");
    let render = |deg: &str| {
        let out = dir.join(format!("r{deg}.png"));
        let o = tessera(&[
            "render",
            "--width",
            "160",
            "--height",
            "90",
            "--frames",
            "2",
            "--rotate",
            deg,
            "--out",
            out.to_str().unwrap(),
        ]);
        let stdout = text(&o.stdout);
        assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
        assert!(stdout.contains("validation messages: 0"), "{stdout}");
        tessera_render::png_out::Picture::read_png(&out).expect("the picture")
    };
    let upright = render("0");
    let p = render("270");
    assert_eq!((p.width, p.height), (90, 160));
    let p = p.turned_cw(3);
    assert!(p == upright, "{:?}", p.difference(&upright));
    let o = tessera(&["render", "--rotate", "45"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--rotate"), "{}", text(&o.stderr));
}
