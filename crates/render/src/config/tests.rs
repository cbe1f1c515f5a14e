//! The configuration's tests: every key read, every error message.

use super::*;
use crate::features::{Lighting, RenderPath};

#[test]
fn feature_value_names_round_trip_through_their_parsers() {
    for &v in SSAO_VALUES {
        assert_eq!(parse_ssao(v).name(), v);
    }
    for &v in BLOOM_VALUES {
        assert_eq!(parse_bloom(v).name(), v);
    }
    for &v in AA_VALUES {
        assert_eq!(parse_aa(v).name(), v);
    }
}

fn err(text: &str) -> String {
    Config::parse(text, "config/x.toml")
        .expect_err(text)
        .to_string()
}

#[test]
fn the_builtin_file_is_the_defaults() {
    let c = Config::builtin();
    assert_eq!(c.features, Features::default());
    assert_eq!(c.options(), CompileOptions::ALL);
    assert_eq!(c, Config::default());
    // An empty file too.
    let e = Config::parse("", "e.toml").unwrap();
    assert_eq!(e.features, Features::default());
    assert_eq!(e.graph, CompileOptions::ALL);
    assert_eq!(e.render, Config::default().render);
}

#[test]
fn the_builtin_file_documents_every_key() {
    for key in FEATURE_KEYS
        .iter()
        .chain(GRAPH_KEYS)
        .chain(RENDER_KEYS)
        .chain(WINDOW_KEYS)
        .chain(CAMERA_KEYS)
    {
        let line = DEFAULT_TOML
            .lines()
            .position(|l| {
                l.trim_start()
                    .trim_start_matches("# ")
                    .starts_with(&format!("{key} ="))
            })
            .unwrap_or_else(|| panic!("{key} is not in config/default.toml"));
        let before = DEFAULT_TOML.lines().nth(line.saturating_sub(1)).unwrap();
        assert!(before.trim_start().starts_with('#'), "{key} has no comment");
    }
}

#[test]
fn the_mobile_preset_applies_on_mali_and_adreno_only() {
    let c = Config::builtin();
    for p in ["mali", "adreno"] {
        let f = c.features_for(p);
        assert_eq!((f.ssao, f.bloom), (Ssao::Prepass, Bloom::Tonemap), "{p}");
        assert_eq!(f, Features::default().tile_friendly(), "{p}");
    }
    let d = c.features_for("desktop");
    assert_eq!((d.ssao, d.bloom), (Ssao::GBuffer, Bloom::Hdr));
    // [mobile] keys override [features] there only; what [features] turns off stays off
    // on mobile unless [mobile] says otherwise.
    let c = Config::parse(
        "[features]\nbloom = \"off\"\nlights = 8\n[mobile]\nlights = 4\nssao = \"gbuffer\"\n",
        "m.toml",
    )
    .unwrap();
    let m = c.features_for("mali");
    assert_eq!((m.lights, m.ssao, m.bloom), (4, Ssao::GBuffer, Bloom::Off));
    let d = c.features_for("desktop");
    assert_eq!((d.lights, d.ssao, d.bloom), (8, Ssao::GBuffer, Bloom::Off));
}

#[test]
fn every_key_is_read() {
    let c = Config::parse(
        r#"
[render]
width = 64
height = 36
scene = "scenes/a.gltf"
frames = 2
path = "forward"
msaa = 2
lighting = "raster"
animate = false
[window]
width = 800
height = 600
present_mode = "mailbox"
[camera]
position = [1, 2.5, 3]
target = [0, 0, 0]
[features]
shadows = false
cascades = 2
shadow_size = 512
lights = 0
clustering = false
ssao = "prepass"
ibl = false
bloom = "tonemap"
exposure = "fixed"
exposure_value = 1.5
aa = "off"
resolution_scale = 0.5
debug_view = "shadow1"
path = "deferred"
msaa = 1
lighting = "compute"
post = "raster"
[graph]
merge = false
memoryless = false
alias = false
async = false
reorder = false
minimize_syncs = false
overlap_frames = false
"#,
        "dir/c.toml",
    )
    .unwrap();
    assert_eq!(
        c.render,
        RenderSection {
            width: 64,
            height: 36,
            scene: SceneChoice::File(PathBuf::from("dir/scenes/a.gltf")),
            frames: 2,
            path: Some(RenderPath::Forward),
            msaa: Some(2),
            lighting: Some(Lighting::Raster),
            post: None,
            animate: false,
        }
    );
    assert_eq!(c.window.present_mode, PresentMode::Mailbox);
    assert_eq!((c.window.width, c.window.height), (800, 600));
    assert_eq!(c.camera.position, Some([1.0, 2.5, 3.0]));
    assert_eq!(c.camera.target, Some([0.0; 3]));
    let f = Features {
        shadows: false,
        cascades: 2,
        shadow_size: 512,
        lights: 0,
        clustering: false,
        ssao: Ssao::Prepass,
        ibl: false,
        bloom: Bloom::Tonemap,
        exposure: Exposure::Fixed(1.5),
        aa: Aa::Off,
        resolution_scale: 0.5,
        debug_view: DebugView::Shadow(1),
        path: RenderPath::Forward,
        msaa: 2,
        lighting: Lighting::Raster,
        post: crate::features::PostPath::Raster,
    };
    assert_eq!(c.features, f);
    assert_eq!(c.options(), CompileOptions::NONE);
    // Auto exposure keeps the value as its compensation.
    let c = Config::parse("[features]\nexposure_value = 2\n", "a.toml").unwrap();
    assert_eq!(c.features.exposure, Exposure::Auto { compensation: 2.0 });
    // An absolute scene path stays as it is.
    let c = Config::parse("[render]\nscene = \"/s/b.glb\"\n", "d/a.toml").unwrap();
    assert_eq!(c.render.scene, SceneChoice::File("/s/b.glb".into()));
}

#[test]
fn an_unknown_section_names_the_allowed_ones() {
    let e = err("[render]\nwidth = 4\n\n[featurs]\nssao = \"off\"\n");
    assert!(
        e.starts_with("config/x.toml:4:2: unknown section [featurs]"),
        "{e}"
    );
    assert!(
        e.contains("allowed sections: render, window, camera, features, graph, mobile"),
        "{e}"
    );
    let e = err("width = 4\n");
    assert!(
        e.starts_with("config/x.toml:1:1: key width outside any section"),
        "{e}"
    );
    let e = err("features = 4\n");
    assert!(
        e.starts_with("config/x.toml:1:12: features = 4: expected a section"),
        "{e}"
    );
}

#[test]
fn an_unknown_key_names_the_allowed_ones() {
    let e = err("[features]\nshadows = true\nssoa = \"off\"\n");
    assert!(e.starts_with("config/x.toml:3:1: unknown key [features] ssoa; allowed: shadows, cascades, shadow_size,"), "{e}");
    assert!(e.ends_with("debug_view, path, msaa, lighting, post"), "{e}");
    let e = err("[mobile]\nmerge = false\n");
    assert!(
        e.starts_with("config/x.toml:2:1: unknown key [mobile] merge; allowed: shadows"),
        "{e}"
    );
    let e = err("[graph]\nasync_compute = false\n");
    assert!(e.contains(":2:1: unknown key [graph] async_compute; allowed: merge, memoryless, alias, async, reorder, minimize_syncs"), "{e}");
    // A sub-table is an unknown key of its section.
    let e = err("[features.ssao]\nx = 1\n");
    assert!(e.contains("[features] ssao = "), "{e}");
}

#[test]
fn a_wrong_type_names_the_expected_one() {
    let e = err("[features]\nshadows = \"yes\"\n");
    assert_eq!(
        e,
        "config/x.toml:2:11: [features] shadows = \"yes\": expected true or false"
    );
    let e = err("[render]\nwidth = 1.5\n");
    assert_eq!(
        e,
        "config/x.toml:2:9: [render] width = 1.5: expected an integer from 1 to 16384"
    );
    let e = err("[camera]\nposition = [1, 2]\n");
    assert!(
        e.starts_with("config/x.toml:2:12: [camera] position = [1, 2]: expected an array of three"),
        "{e}"
    );
    let e = err("[features]\nssao = false\n");
    assert!(
        e.contains(
            ":2:8: [features] ssao = false: expected one of \"gbuffer\", \"prepass\", \"off\""
        ),
        "{e}"
    );
}

#[test]
fn an_out_of_range_value_names_the_range() {
    let e = err("[features]\ncascades = 7\n");
    assert_eq!(
        e,
        "config/x.toml:2:12: [features] cascades = 7: expected an integer from 1 to 4"
    );
    let e = err("[features]\nshadow_size = 1000\n");
    assert_eq!(e, "config/x.toml:2:15: [features] shadow_size = 1000: expected a power of two from 64 to 8192");
    let e = err("[features]\nshadow_size = 16384\n");
    assert!(
        e.ends_with("expected a power of two from 64 to 8192"),
        "{e}"
    );
    let e = err("[features]\nlights = -1\n");
    assert!(e.ends_with("expected an integer from 0 to 1024"), "{e}");
    let e = err("[features]\nresolution_scale = 3.0\n");
    assert!(
        e.contains(":2:20: [features] resolution_scale = 3.0: expected a number from 0.25 to 2"),
        "{e}"
    );
    for value in ["0", "nan", "inf", "1e308", "-1e308"] {
        let e = err(&format!("[features]\nexposure_value = {value}\n"));
        assert!(
            e.ends_with(&format!(
                "exposure_value = {value}: expected a number greater than 0 and at most 3.4e38"
            )),
            "{e}"
        );
    }
    assert!(Config::parse("[features]\nexposure_value = 3e38\n", "x.toml").is_ok());
    let e = err("[render]\nframes = 99999999999999999999999\n");
    assert!(
        e.contains("[render] frames = 99999999999999999999999: expected an integer from 1 to"),
        "{e}"
    );
    let e = err("[camera]\nposition = [1, 1, 1]\ntarget = [1, 1, 1]\n");
    assert!(
        e.contains(":3:10: [camera] target = [1, 1, 1]: expected a point other than the position"),
        "{e}"
    );
}

#[test]
fn a_shadow_view_needs_its_cascade() {
    let e = err("[features]\ncascades = 2\ndebug_view = \"shadow2\"\n");
    assert_eq!(e, "config/x.toml:3:14: [features] debug_view = \"shadow2\": expected a view of one of the 2 cascades (shadow0 to shadow1), or cascades > 2");
    // [mobile] lowers the cascade count below [features]' view: the view is named.
    let e = err("[features]\ndebug_view = \"shadow1\"\n[mobile]\ncascades = 1\n");
    assert!(
        e.starts_with("config/x.toml:2:14: [features] debug_view = \"shadow1\""),
        "{e}"
    );
    let e = err("[mobile]\ncascades = 1\n[features]\ndebug_view = \"shadow1\"\n");
    assert!(e.starts_with("config/x.toml:4:14:"), "{e}");
    let c = Config::parse(
        "[features]\ncascades = 2\ndebug_view = \"shadow1\"\n",
        "ok.toml",
    )
    .unwrap();
    assert_eq!(c.features.debug_view, DebugView::Shadow(1));
}

#[test]
fn a_bad_name_lists_the_allowed_ones() {
    let e = err("\n\n[features]\nssao = \"half\"\n");
    assert_eq!(e, "config/x.toml:4:8: [features] ssao = \"half\": expected one of \"gbuffer\", \"prepass\", \"off\"");
    let e = err("[mobile]\nbloom = \"tile\"\n");
    assert!(
        e.ends_with("[mobile] bloom = \"tile\": expected one of \"hdr\", \"tonemap\", \"off\""),
        "{e}"
    );
    let e = err("[features]\ndebug_view = \"shadow4\"\n");
    assert!(e.contains("\"shadow3\", \"clusters\", \"exposure\""), "{e}");
    let e = err("[window]\npresent_mode = \"vsync\"\n");
    assert!(
        e.ends_with("expected one of \"fifo\", \"mailbox\", \"immediate\""),
        "{e}"
    );
    let e = err("[render]\nscene = \"a.obj\"\n");
    assert!(
        e.contains(":2:9: [render] scene = \"a.obj\": expected \"builtin\" or the path"),
        "{e}"
    );
}

#[test]
fn malformed_toml_is_one_line_with_the_place() {
    let e = err("[features]\nssao = \"off\nbloom = \"hdr\"\n");
    assert!(e.starts_with("config/x.toml:2:"), "{e}");
    assert!(e.contains("invalid TOML"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    let e = err("[features]\nshadows = true\nshadows = false\n");
    assert!(e.starts_with("config/x.toml:3:"), "{e}");
    let e = err("[features]\n[features]\n");
    assert!(e.starts_with("config/x.toml:2:"), "{e}");
}

#[test]
fn load_names_the_file() {
    let dir = std::env::temp_dir().join(format!("tessera-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, "[features]\ncascades = 0\n").unwrap();
    let e = Config::load(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}:2:12: [features] cascades = 0", path.display())),
        "{e}"
    );
    std::fs::write(&path, b"[features]\nssao = \"\xff\"\n").unwrap();
    let e = Config::load(&path).unwrap_err().to_string();
    assert!(e.contains(":2:9: invalid UTF-8"), "{e}");
    std::fs::write(&path, "[render]\nscene = \"s.glb\"\n").unwrap();
    let c = Config::load(&path).unwrap();
    assert_eq!(c.render.scene, SceneChoice::File(dir.join("s.glb")));
    let e = Config::load(&dir.join("missing.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("missing.toml: no such file"), "{e}");
    // Bounded while reading: an endless device or a folder is refused, not read.
    let e = Config::load(Path::new("/dev/zero"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/dev/zero: not a regular file"), "{e}");
    let e = Config::load(&dir).unwrap_err().to_string();
    assert!(e.contains("not a regular file (a directory)"), "{e}");
    std::fs::write(&path, vec![b'#'; MAX_FILE_BYTES + 1]).unwrap();
    let e = Config::load(&path).unwrap_err().to_string();
    assert!(
        e.ends_with("larger than the 1 MiB limit of configuration files"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn feature_names_round_trip_through_a_file() {
    let mut f = Config::builtin().features_for("mali");
    f.debug_view = DebugView::Shadow(2);
    f.exposure = Exposure::Fixed(0.75);
    let text = String::from("[features]\n")
        + &feature_names(&f)
            .iter()
            .map(
                |(k, v)| match v.parse::<f64>().is_ok() || v == "true" || v == "false" {
                    true => format!("{k} = {v}\n"),
                    false => format!("{k} = {v:?}\n"),
                },
            )
            .collect::<String>();
    assert_eq!(
        Config::parse(&text, "r.toml").unwrap().features,
        f,
        "{text}"
    );
}

mod garbled {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Random edits of the default file, and random text: Ok or one error, never a
        /// panic.
        #[test]
        fn any_input_gives_a_config_or_one_error(
            cut in 0..DEFAULT_TOML.len(),
            insert in "[\\[\\]=\"a-z0-9_. \n#'-]{0,12}",
            noise in "\\PC{0,64}",
        ) {
            let mut text = DEFAULT_TOML.as_bytes()[..cut].to_vec();
            text.extend_from_slice(insert.as_bytes());
            text.extend_from_slice(&DEFAULT_TOML.as_bytes()[cut..]);
            let text = String::from_utf8_lossy(&text).into_owned();
            if let Err(e) = Config::parse(&text, "g.toml") {
                let e = e.to_string();
                prop_assert!(e.starts_with("g.toml"), "{e}");
                prop_assert!(!e.contains('\n'), "{e}");
            }
            let _ = Config::parse(&noise, "n.toml");
            let keyed = format!("[features]\n{noise}\n");
            let _ = Config::parse(&keyed, "k.toml");
        }

        #[test]
        fn any_value_of_any_key_gives_a_config_or_one_error(
            section in prop::sample::select(SECTIONS),
            key in prop::sample::select(
                [FEATURE_KEYS, GRAPH_KEYS, RENDER_KEYS, WINDOW_KEYS, CAMERA_KEYS].concat()
            ),
            value in prop_oneof![
                any::<i64>().prop_map(|n| n.to_string()),
                any::<f64>().prop_map(|x| format!("{x:?}")),
                "\"[a-z0-9]{0,8}\"",
                Just("[1, 2, 3]".to_string()),
                Just("[[1], {a = 1}, 3]".to_string()),
                Just("{ x = 1 }".to_string()),
                Just("1979-05-27T07:32:00Z".to_string()),
                Just("inf".to_string()),
            ],
        ) {
            let text = format!("[{section}]\n{key} = {value}\n");
            if let Err(e) = Config::parse(&text, "v.toml") {
                let e = e.to_string();
                prop_assert!(e.starts_with("v.toml:"), "{e}");
                prop_assert!(e.contains(':'), "{e}");
            }
        }
    }
}

#[test]
fn path_and_msaa_choose_per_profile_and_render_overrides_both() {
    let c = Config::builtin();
    let (d, m) = (c.features_for("desktop"), c.features_for("mali"));
    assert_eq!((d.path, d.msaa), (RenderPath::Deferred, 1));
    assert_eq!((m.path, m.msaa, m.aa), (RenderPath::Forward, 4, Aa::Fxaa));
    // [render] chooses for every profile (the desktop's TAA needs a switch with MSAA).
    let c = Config::parse(
        "[render]\npath = \"forward\"\nmsaa = 2\n[features]\naa = \"fxaa\"\n",
        "r.toml",
    )
    .unwrap();
    for p in ["desktop", "mali", "adreno"] {
        let f = c.features_for(p);
        assert_eq!((f.path, f.msaa), (RenderPath::Forward, 2), "{p}");
    }
    // A tiler may go back to deferred.
    let c = Config::parse("[mobile]\npath = \"deferred\"\nmsaa = 1\n", "m.toml").unwrap();
    assert_eq!(c.features_for("mali").path, RenderPath::Deferred);
}

#[test]
fn bad_path_and_msaa_values_give_one_clear_error() {
    let e = err("[render]\npath = \"forwards\"\n");
    assert_eq!(
        e,
        "config/x.toml:2:8: [render] path = \"forwards\": expected one of \"deferred\", \"forward\""
    );
    let e = err("[features]\nmsaa = 3\n");
    assert_eq!(
        e,
        "config/x.toml:2:8: [features] msaa = 3: expected one of 1, 2, 4, 8"
    );
    let e = err("[mobile]\nmsaa = \"4\"\n");
    assert!(
        e.contains("[mobile] msaa = \"4\": expected one of 1, 2, 4, 8"),
        "{e}"
    );
}

#[test]
fn deferred_msaa_and_forward_taa_are_refused_with_the_reason() {
    let e = err("[render]\nmsaa = 4\n[mobile]\npath = \"deferred\"\n");
    assert!(e.starts_with("config/x.toml:2:8: [features] (the desktop profile): msaa = 4 needs path = \"forward\""), "{e}");
    assert!(e.contains("G-buffer"), "{e}");
    let e = err("[render]\npath = \"forward\"\nmsaa = 4\n");
    assert!(
        e.contains("[features] (the desktop profile): aa = \"taa\" needs msaa = 1"),
        "{e}"
    );
    let e = err("[mobile]\naa = \"taa\"\n");
    assert!(
        e.starts_with("config/x.toml: [mobile] (the mali and adreno profiles): aa = \"taa\""),
        "{e}"
    );
}

#[test]
fn post_is_compute_on_desktop_raster_on_tilers_and_render_overrides_both() {
    use crate::features::PostPath;
    let c = Config::builtin();
    assert_eq!(c.features_for("desktop").post, PostPath::Compute);
    for p in MOBILE_PROFILES {
        assert_eq!(c.features_for(p).post, PostPath::Raster, "{p}");
    }
    let c = Config::parse("[render]\npost = \"raster\"\n", "x.toml").unwrap();
    assert_eq!(c.features_for("desktop").post, PostPath::Raster);
    let c = Config::parse("[mobile]\npost = \"compute\"\n", "x.toml").unwrap();
    assert_eq!(c.features_for("mali").post, PostPath::Compute);
    let e = err("[render]\npost = \"fragment\"\n");
    assert_eq!(
        e,
        "config/x.toml:2:8: [render] post = \"fragment\": expected one of \"raster\", \"compute\""
    );
}
