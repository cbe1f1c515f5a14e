//! The sky and its image-based light on lavapipe (validated, zero messages): the sky has the
//! shape single scattering gives it, and a mirror-smooth metal reflects it.

mod common;

use common::{gpu, render, settings_with, small_features};
use glam::Vec3;
use std::path::Path;
use tessera_graph::CompileOptions;
use tessera_render::camera::View;
use tessera_render::features::{Bloom, Exposure, Features};
use tessera_render::png_out::Picture;

/// Fixed exposure, no bloom: a pixel's value is its radiance, tone mapped, and nothing else.
fn plain() -> Features {
    Features {
        exposure: Exposure::Fixed(1.0),
        bloom: Bloom::Off,
        ..small_features()
    }
}

/// Mean luminance (Rec. 709 weights on the sRGB bytes) of rows `rows` of `p`.
fn mean_luma(p: &Picture, rows: std::ops::Range<u32>) -> f64 {
    mean_luma_in(p, rows, 0..p.width)
}

/// Mean luminance of the rectangle of `rows` and `columns`.
fn mean_luma_in(p: &Picture, rows: std::ops::Range<u32>, columns: std::ops::Range<u32>) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for y in rows {
        for x in columns.clone() {
            let i = ((y * p.width + x) * 4) as usize;
            let [r, g, b] = [p.rgba[i], p.rgba[i + 1], p.rgba[i + 2]].map(f64::from);
            sum += 0.2126 * r + 0.7152 * g + 0.0722 * b;
            n += 1.0;
        }
    }
    sum / n
}

/// Mean of channel `c` over rows `rows`.
fn mean_channel(p: &Picture, rows: std::ops::Range<u32>, c: usize) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for y in rows {
        for x in 0..p.width {
            sum += f64::from(p.rgba[((y * p.width + x) * 4) as usize + c]);
            n += 1.0;
        }
    }
    sum / n
}

/// An empty scene under the renderer's default sun (63° above the horizon): the camera looks
/// 45° up with a 90° field of view, so the top row is the zenith and the bottom row the
/// horizon, seen across the sun's azimuth.
#[test]
fn the_sky_is_not_flat_and_its_horizon_outshines_its_zenith_under_a_high_sun() {
    let gpu = gpu();
    let mut s = settings_with(CompileOptions::ALL, plain());
    let eye = Vec3::new(0.0, 1.0, 0.0);
    // Across the sun's azimuth (its light travels along -0.4, -1, -0.3).
    let across = Vec3::new(-0.3, 0.0, 0.4).normalize();
    s.camera = Some(View {
        position: eye,
        target: eye + across + Vec3::Y,
        up: Vec3::Y,
        yfov: 90f32.to_radians(),
        znear: 0.1,
    });
    let p = render(&gpu, tessera_scene::Scene::empty("sky"), s, 2);
    let band = p.height / 10;
    let zenith = mean_luma(&p, 0..band);
    let horizon = mean_luma(&p, p.height - band..p.height);
    eprintln!("zenith {zenith:.1}, horizon {horizon:.1}");
    assert!(
        horizon > zenith + 10.0,
        "the horizon ({horizon:.1}) should be clearly brighter than the zenith ({zenith:.1})"
    );
    // Rayleigh scattering: the zenith is blue.
    let (r, b) = (mean_channel(&p, 0..band, 0), mean_channel(&p, 0..band, 2));
    assert!(b > r + 20.0, "the zenith is blue: red {r:.1}, blue {b:.1}");
}

/// A white, mirror-smooth metal sphere seen from the side, lit from its left (the sun's
/// highlight is there, away from the region measured): with image-based light its upper
/// half mirrors the sky, which a noon sun (here 8 lux-units) makes bright; without it the
/// metal takes only half the settings' constant hemisphere ambient, whatever the sun.
#[test]
fn a_mirror_smooth_metal_sphere_reflects_the_sky() {
    let scene = tessera_scene::scene_file::parse(
        r#"
name = "mirror"
[camera]
position = [0, 1, 4]
target = [0, 1, 0]
yfov = 40
[[lights]]
kind = "directional"
direction = [1, -0.6, 0]
intensity = 8
[[objects]]
shape = "sphere"
translation = [0, 1, 0]
material = { base_color = [1, 1, 1], metallic = 1, roughness = 0 }
"#,
        Path::new("mirror.toml"),
    )
    .expect("the scene parses");
    let gpu = gpu();
    let top = |ibl: bool| {
        let features = Features { ibl, ..plain() };
        let p = render(
            &gpu,
            scene.clone(),
            settings_with(CompileOptions::ALL, features),
            2,
        );
        // The sphere fills the middle of the picture (a third of its height); its upper
        // part, a little below its top, faces the sky.
        let (w, h) = (p.width, p.height);
        mean_luma_in(&p, h * 35 / 100..h * 40 / 100, w * 46 / 100..w * 54 / 100)
    };
    let (with, without) = (top(true), top(false));
    eprintln!("sphere top: with IBL {with:.1}, without {without:.1}");
    assert!(
        with > without + 20.0,
        "with IBL ({with:.1}) the sphere's top should be much brighter than without ({without:.1})"
    );
}

/// The environment's passes, in declaration order.
const ENVIRONMENT_PASSES: [&str; 4] = [
    "sky cubemap",
    "specular prefilter",
    "irradiance",
    "brdf lut",
];

/// The running plan's culled and skipped passes among the environment's.
fn environment_state(r: &tessera_render::Renderer) -> (Vec<String>, Vec<String>) {
    let plan = r.executor().plan().expect("a plan");
    let of = |names: &[tessera_graph::name::Name]| -> Vec<String> {
        names
            .iter()
            .map(|n| n.to_string())
            .filter(|n| ENVIRONMENT_PASSES.contains(&n.as_str()))
            .collect()
    };
    (of(&plan.culled), of(&plan.skipped))
}

/// The first frame runs the environment; while the sun stays put the next frames skip its
/// writers (the plan lists them as skipped, and `sky cubemap`, which feeds only them, is
/// culled) and the picture stays; moving the sun runs the sky's passes again (not the BRDF
/// table's) and changes the picture; putting it back gives the first picture again.
#[test]
fn the_environment_runs_only_when_the_sun_changes() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let s = settings_with(CompileOptions::ALL, plain());
    let mut r =
        tessera_render::Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.render(0.0).expect("frame 1");
    let (culled, skipped) = environment_state(&r);
    assert!(
        culled.is_empty(),
        "frame 1 runs the environment: {culled:?}"
    );
    let first = r.picture().unwrap().unwrap();
    r.render(0.0).expect("frame 2");
    let (culled, skipped2) = environment_state(&r);
    assert_eq!(
        culled, ENVIRONMENT_PASSES,
        "frame 2 culls every environment pass"
    );
    assert_eq!(
        skipped2,
        ["specular prefilter", "irradiance", "brdf lut"],
        "the persistent resources' writers are skipped, not merely culled"
    );
    assert!(skipped.is_empty());
    assert_eq!(
        r.picture().unwrap().unwrap().rgba,
        first.rgba,
        "the kept environment draws the same picture"
    );
    // A sun from the other side, lower.
    r.set_sun(Some(Vec3::new(-0.6, -0.5, 0.6)));
    r.render(0.0).expect("frame 3");
    let (culled, _) = environment_state(&r);
    assert_eq!(
        culled,
        ["brdf lut"],
        "the sky's passes run again, the BRDF table does not"
    );
    let moved = r.picture().unwrap().unwrap();
    let d = moved.difference(&first).expect("same size");
    assert!(d.max > 30, "moving the sun changes the picture: {d:?}");
    r.render(0.0).expect("frame 4");
    assert_eq!(environment_state(&r).0, ENVIRONMENT_PASSES);
    r.set_sun(None);
    r.render(0.0).expect("frame 5");
    assert_eq!(
        r.picture().unwrap().unwrap().rgba,
        first.rgba,
        "the scene's sun again: the first picture again"
    );
    r.destroy();
    common::assert_no_messages_since(&gpu, before);
}
