//! `tessera render --capture` and `tessera verify-capture` on the renderer's real frame
//! (lavapipe, RenderDoc's in-app API, validation and synchronization validation on): the
//! desktop compile and a compile that merges the whole deferred frame into one render pass
//! with memoryless attachments (lavapipe's facts with the mali profile's tile rules), each
//! with every optimisation on and off, must verify clean; a plan altered in one place (a
//! load op, a subpass removed, a pass renamed) must fail, naming the render pass and the
//! attachment or pass. Bad input gets one error naming the file.
//!
//! RenderDoc (librenderdoc.so, renderdoccmd) must be installed (`scripts/test.sh` does):
//! without it these tests fail saying so.

mod common;
use common::{scratch, tessera, text};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A capture of the last of three 320x180 frames, with its side files.
struct Captured {
    rdc: PathBuf,
    plan: serde_json::Value,
    device: serde_json::Value,
    render_stdout: String,
}

fn capture(name: &str, extra: &[&str]) -> Captured {
    let dir = scratch(name);
    let rdc = dir.join(format!("{name}.rdc"));
    let png = dir.join(format!("{name}.png"));
    let mut args = vec![
        "render",
        "--width",
        "320",
        "--height",
        "180",
        "--frames",
        "3",
        "--out",
        png.to_str().unwrap(),
        "--capture",
        rdc.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = tessera(&args);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{name}: {stdout}{}", text(&o.stderr));
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    assert!(
        stdout.contains("RenderDoc capture of the last frame"),
        "{stdout}"
    );
    let json = |suffix: &str| -> serde_json::Value {
        let p = dir.join(format!("{name}.{suffix}.json"));
        let t = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        serde_json::from_str(&t).unwrap()
    };
    assert!(
        dir.join(format!("{name}.frame.json")).is_file(),
        "no frame description beside the capture"
    );
    Captured {
        rdc,
        plan: json("plan"),
        device: json("device"),
        render_stdout: stdout,
    }
}

/// `tessera verify-capture ARGS`: (exit code, stdout + stderr).
fn verify(args: &[&str]) -> (i32, String) {
    let mut all = vec!["verify-capture"];
    all.extend_from_slice(args);
    let o = tessera(&all);
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout) + &text(&o.stderr),
    )
}

/// Subpass lists of the plan's render passes.
fn render_passes(plan: &serde_json::Value) -> Vec<Vec<String>> {
    plan["render_passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rp| {
            rp["subpasses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Verifies `c` clean and checks the table has a row for every planned render pass.
fn assert_verifies(label: &str, c: &Captured) {
    let (code, out) = verify(&[c.rdc.to_str().unwrap()]);
    assert_eq!(code, 0, "{label}: {out}");
    assert!(
        out.contains("result: the capture matches the plan"),
        "{label}: {out}"
    );
    let rps = render_passes(&c.plan);
    assert!(!rps.is_empty(), "{label}: no render pass planned");
    for (k, rp) in rps.iter().enumerate() {
        let row = format!("{k}  {}", rp.join(" | "));
        assert!(
            out.lines()
                .any(|l| l.starts_with(&row) && l.ends_with("ok")),
            "{label}: no clean row for render pass {k} ({row}): {out}"
        );
    }
    let passes = c.plan["order"].as_array().unwrap().len();
    assert!(
        out.contains(&format!(
            "debug labels: {passes} of {passes} planned passes"
        )),
        "{label}: {out}"
    );
    assert_eq!(c.device["renderdoc_attached"], true, "{label}");
}

#[test]
fn desktop_frame_verifies_with_every_optimisation_on_and_off() {
    // Raster lighting: a subpass the default plan merges (compute lighting merges nothing).
    let all = capture("desktop", &["--lighting", "raster"]);
    let none = capture("desktop-naive", &["--lighting", "raster", "--no-optimize"]);
    assert_verifies("desktop", &all);
    assert_verifies("desktop --no-optimize", &none);
    // Off really is off: the naive plan merges nothing.
    let merged = |c: &Captured| {
        render_passes(&c.plan)
            .iter()
            .filter(|r| r.len() > 1)
            .count()
    };
    assert!(merged(&all) > 0, "{:?}", render_passes(&all.plan));
    assert_eq!(merged(&none), 0, "{:?}", render_passes(&none.plan));
}

/// The deferred frame merged into one render pass with memoryless G-buffer, depth and HDR.
fn merged() -> &'static Captured {
    static MERGED: OnceLock<Captured> = OnceLock::new();
    MERGED.get_or_init(|| {
        capture(
            "tiler",
            &[
                "--profile",
                "mali",
                "--tile-rules",
                "mali",
                "--path",
                "deferred",
                "--msaa",
                "1",
            ],
        )
    })
}

/// The merged render pass of `c`'s plan (index, subpasses) and its memoryless attachments.
fn merged_pass(c: &Captured) -> (usize, Vec<String>, Vec<String>) {
    let (k, rp) = render_passes(&c.plan)
        .into_iter()
        .enumerate()
        .max_by_key(|(_, rp)| rp.len())
        .unwrap();
    let memoryless = c.plan["render_passes"][k]["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["memoryless"] == true)
        .map(|a| a["resource"].as_str().unwrap().to_string())
        .collect();
    (k, rp, memoryless)
}

#[test]
fn merged_tiler_frame_verifies_with_every_optimisation_on_and_off() {
    let all = merged();
    let (_, rp, memoryless) = merged_pass(all);
    assert!(
        ["gbuffer", "lighting", "transparents"]
            .iter()
            .all(|p| rp.iter().any(|s| s == p)),
        "the tile rules do not merge the deferred frame: {rp:?}"
    );
    assert!(
        memoryless.iter().any(|m| m == "gbuffer albedo"),
        "{memoryless:?}"
    );
    // lavapipe has no lazily allocated memory: the executor says where they went.
    let fallbacks = all.device["memoryless_in_ordinary_memory"]
        .as_array()
        .unwrap();
    assert_eq!(fallbacks.len(), memoryless.len(), "{fallbacks:?}");
    assert!(
        all.render_stdout
            .contains("memoryless attachments in ordinary memory"),
        "{}",
        all.render_stdout
    );
    assert_verifies("tiler", all);
    let (_, out) = verify(&[all.rdc.to_str().unwrap()]);
    assert!(out.contains("gbuffer albedo (memoryless)"), "{out}");
    assert!(
        out.contains("note: memoryless") && out.contains("no lazily allocated memory type"),
        "{out}"
    );
    let none = capture(
        "tiler-naive",
        &[
            "--profile",
            "mali",
            "--tile-rules",
            "mali",
            "--path",
            "deferred",
            "--msaa",
            "1",
            "--no-optimize",
        ],
    );
    assert_verifies("tiler --no-optimize", &none);
    assert!(render_passes(&none.plan).iter().all(|r| r.len() == 1));
}

/// `plan` altered by `change`, written beside the capture as `name`.
fn altered(c: &Captured, name: &str, change: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut plan = c.plan.clone();
    change(&mut plan);
    let p = c.rdc.with_file_name(name);
    std::fs::write(&p, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    p
}

fn verify_with_plan(c: &Captured, plan: &Path) -> (i32, String) {
    let frame = c.rdc.with_extension("frame.json");
    verify(&[
        c.rdc.to_str().unwrap(),
        "--plan",
        plan.to_str().unwrap(),
        "--frame",
        frame.to_str().unwrap(),
    ])
}

#[test]
fn verifier_fails_on_an_altered_load_op_a_removed_subpass_and_a_renamed_pass() {
    let c = merged();
    let (k, rp, memoryless) = merged_pass(c);
    let place = format!("render pass {k} [{}]", rp.join(", "));

    // A memoryless attachment's clear becomes a load.
    let target = memoryless[0].clone();
    let p = altered(c, "load.plan.json", |plan| {
        for a in plan["render_passes"][k]["attachments"]
            .as_array_mut()
            .unwrap()
        {
            if a["resource"] == target.as_str() {
                a["load_op"] = "load".into();
            }
        }
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("{place}, attachment '{target}': loadOp")),
        "{out}"
    );

    // The last subpass of the merged render pass is gone.
    let removed = rp.last().unwrap().clone();
    let p = altered(c, "subpass.plan.json", |plan| {
        plan["render_passes"][k]["subpasses"]
            .as_array_mut()
            .unwrap()
            .pop();
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    let short = format!("render pass {k} [{}]", rp[..rp.len() - 1].join(", "));
    assert!(
        out.contains(&format!("{short}: (subpasses, attachments, dependencies)")),
        "{out}"
    );
    assert!(out.contains(&format!("\"{removed}\"")), "{out}");

    // A pass renamed in the plan: its label in the capture no longer matches.
    let old = rp[1].clone();
    let new = format!("{old} (renamed)");
    let p = altered(c, "label.plan.json", |plan| {
        let rename = |v: &mut serde_json::Value| {
            for s in v.as_array_mut().unwrap() {
                if s == old.as_str() {
                    *s = new.as_str().into();
                }
            }
        };
        rename(&mut plan["order"]);
        rename(&mut plan["render_passes"][k]["subpasses"]);
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("pass '{new}' of the plan has no debug label")),
        "{out}"
    );
    assert!(
        out.contains(&format!("the capture labels '{old}'")),
        "{out}"
    );
}

/// The memoryless rules are checked against the capture's own facts (the usage each image
/// was created with, the ops recorded), not only against the plan's ops.
#[test]
fn verifier_checks_memoryless_attachments_against_their_images() {
    let c = merged();
    let (k, _, memoryless) = merged_pass(c);
    let stored = c.plan["render_passes"][k]["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["memoryless"] == false && a["store_op"] == "store")
        .map(|a| a["resource"].as_str().unwrap().to_string())
        .expect("the merged render pass stores an attachment");
    let kept = memoryless[0].clone();
    let p = altered(c, "memoryless.plan.json", |plan| {
        for a in plan["render_passes"][k]["attachments"]
            .as_array_mut()
            .unwrap()
        {
            if a["resource"] == stored.as_str() {
                a["memoryless"] = true.into();
            }
            if a["resource"] == kept.as_str() {
                a["memoryless"] = false.into();
            }
        }
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    for expected in [
        format!("attachment '{stored}': memoryless but stored"),
        format!("attachment '{stored}': memoryless but its image was created without TRANSIENT_ATTACHMENT"),
        format!("attachment '{kept}': created with TRANSIENT_ATTACHMENT usage, but the plan keeps it in memory"),
    ] {
        assert!(out.contains(&expected), "missing {expected:?}: {out}");
    }
}

#[test]
fn bad_input_gets_one_error_naming_the_file() {
    let dir = scratch("bad");
    // No side files beside the capture.
    let rdc = dir.join("lonely.rdc");
    std::fs::write(&rdc, b"not a capture").unwrap();
    let (code, out) = verify(&[rdc.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lonely.plan.json") && out.contains("missing"),
        "{out}"
    );
    // Side files present, but the capture is not one.
    let c = merged();
    let plan = c.rdc.with_extension("plan.json");
    let frame = c.rdc.with_extension("frame.json");
    let (code, out) = verify(&[
        rdc.to_str().unwrap(),
        "--plan",
        plan.to_str().unwrap(),
        "--frame",
        frame.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("lonely.rdc") && out.contains("renderdoccmd convert failed"),
        "{out}"
    );
    // A plan that is not JSON names its line.
    let broken = dir.join("broken.plan.json");
    std::fs::write(&broken, "{\n  \"order\": [,\n").unwrap();
    let (code, out) = verify(&[
        c.rdc.to_str().unwrap(),
        "--plan",
        broken.to_str().unwrap(),
        "--frame",
        frame.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("broken.plan.json:2:"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
}

/// A stand-in `renderdoccmd` that records where it was asked to write the XML, the mode of
/// that folder, and writes a tiny XML there.
const FAKE_RENDERDOCCMD: &str = r#"#!/bin/sh
# convert -f RDC -o XML -c xml
printf '%s\n' "$5" > "$TESSERA_TEST_LOG"
stat -c %a "$(dirname "$5")" >> "$TESSERA_TEST_LOG"
printf '<rdc></rdc>\n' > "$5"
"#;

#[test]
fn the_converted_xml_goes_to_a_private_folder_with_a_fixed_name() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = scratch("tmpxml");
    let bin = dir.join("bin");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let fake = bin.join("renderdoccmd");
    std::fs::write(&fake, FAKE_RENDERDOCCMD).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A capture with a 240-character name: its name used to go into the XML's name, which
    // then passed the file system's 255-byte limit.
    let name = "c".repeat(236);
    let rdc = dir.join(format!("{name}.rdc"));
    std::fs::write(&rdc, b"capture").unwrap();
    let plan = common::tessera(&["plan", "assets/graphs/deferred.json", "--json"]);
    std::fs::write(dir.join(format!("{name}.plan.json")), &plan.stdout).unwrap();
    std::fs::copy(
        common::repo().join("assets/graphs/deferred.json"),
        dir.join(format!("{name}.frame.json")),
    )
    .unwrap();
    let log = dir.join("log");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["verify-capture", rdc.to_str().unwrap()])
        .current_dir(&dir)
        .env("PATH", path)
        .env("TMPDIR", &tmp)
        .env("TESSERA_TEST_LOG", &log)
        .output()
        .unwrap();
    let out = text(&o.stdout) + &text(&o.stderr);
    assert!(!out.contains("panicked"), "{out}");
    let logged = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{e}: {out}"));
    let mut lines = logged.lines();
    let xml = Path::new(lines.next().unwrap());
    assert_eq!(lines.next(), Some("700"), "the folder is private: {logged}");
    assert_eq!(xml.file_name().unwrap(), "capture.xml", "{logged}");
    assert!(
        !logged.contains("ccc"),
        "no name from the capture's: {logged}"
    );
    let folder = xml.parent().unwrap();
    assert_eq!(folder.parent().unwrap(), tmp, "in TMPDIR: {logged}");
    assert!(!out.contains("File name too long"), "{out}");
    // Read and removed: nothing is left in the temporary folder.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The forward path at 4× as a Mali plans it: multisampled colour and depth resolved on
/// write-back (the prepass's depth resolve in its mode).
fn msaa() -> &'static Captured {
    static C: OnceLock<Captured> = OnceLock::new();
    C.get_or_init(|| {
        capture(
            "msaa",
            &[
                "--profile",
                "mali",
                "--tile-rules",
                "mali",
                "--path",
                "forward",
                "--msaa",
                "4",
                "--aa",
                "fxaa",
                "--ssao",
                "prepass",
            ],
        )
    })
}

/// (render pass, attachment index, resource) of each multisampled attachment resolved on
/// write-back in `plan`, depth ones flagged.
fn resolved_ms(plan: &serde_json::Value) -> Vec<(usize, usize, String, bool)> {
    let mut out = Vec::new();
    for (k, rp) in plan["render_passes"].as_array().unwrap().iter().enumerate() {
        for (i, a) in rp["attachments"].as_array().unwrap().iter().enumerate() {
            if a["samples"].as_u64().unwrap_or(1) > 1 && a["resolve_target"].is_string() {
                let name = a["resource"].as_str().unwrap().to_string();
                out.push((k, i, name, a["resolve_mode"].is_string()));
            }
        }
    }
    out
}

/// The capture of the 4× forward frame matches its plan, and each way a plan can get MSAA
/// wrong is reported, naming the render pass and attachment: a resolve removed, a sample
/// count changed, a multisampled attachment stored, and the depth resolve mode changed.
#[test]
fn msaa_resolves_on_write_back_verify_and_their_mutations_are_reported() {
    let c = msaa();
    assert_verifies("forward 4x", c);
    let resolved = resolved_ms(&c.plan);
    let (ck, ci, colour, _) = resolved
        .iter()
        .find(|r| !r.3)
        .cloned()
        .expect("a resolved multisampled colour attachment");
    let (dk, di, depth, _) = resolved
        .iter()
        .find(|r| r.3)
        .cloned()
        .expect("a resolved multisampled depth attachment (the SSAO prepass)");
    let place = |k: usize| format!("render pass {k} [{}]", render_passes(&c.plan)[k].join(", "));

    let p = altered(c, "no-resolve.plan.json", |plan| {
        plan["render_passes"][ck]["attachments"][ci]["resolve_target"] = serde_json::Value::Null;
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("{}: resolves on write-back into", place(ck))),
        "{out}"
    );

    let p = altered(c, "samples.plan.json", |plan| {
        plan["render_passes"][ck]["attachments"][ci]["samples"] = 1.into();
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "{}, attachment '{colour}': samples VK_SAMPLE_COUNT_4_BIT, planned VK_SAMPLE_COUNT_1_BIT",
            place(ck)
        )),
        "{out}"
    );

    let p = altered(c, "stored.plan.json", |plan| {
        plan["render_passes"][ck]["attachments"][ci]["store_op"] = "store".into();
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("{}, attachment '{colour}': storeOp", place(ck))),
        "{out}"
    );

    let planned = c.plan["render_passes"][dk]["attachments"][di]["resolve_mode"]
        .as_str()
        .unwrap()
        .to_string();
    let other = if planned == "min" { "max" } else { "min" };
    let p = altered(c, "mode.plan.json", |plan| {
        plan["render_passes"][dk]["attachments"][di]["resolve_mode"] = other.into();
    });
    let (code, out) = verify_with_plan(c, &p);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "resolves depth with VK_RESOLVE_MODE_{}_BIT in the capture, planned VK_RESOLVE_MODE_{}_BIT",
            planned.to_uppercase(),
            other.to_uppercase()
        )),
        "{depth}: {out}"
    );
}
