//! Compute lighting against raster lighting on lavapipe (validated, zero messages): the same
//! `shade()` on the same G-buffer texels gives the same picture within the stated tolerance,
//! and the graph's optimisations change nothing on either path.

mod common;

use common::{gpu, render, settings_with, small_features};
use tessera_graph::CompileOptions;
use tessera_render::features::{Features, Lighting, Ssao};

fn features(lighting: Lighting, ssao: Ssao, clustering: bool) -> Features {
    Features {
        lighting,
        ssao,
        clustering,
        ..small_features()
    }
}

/// The two lighting paths agree to within one step of 255 per channel, on at most 0.1% of
/// the channels (measured on lavapipe at 320×180: 5 of 230,400 channels differ, by 1). Why not bit for bit: the raster pass gets each pixel's UV by interpolating the
/// full-screen triangle's, the compute pass computes `(x + 0.5) / width`; the two differ in the
/// last bits of a float, which moves the reconstructed position and, rarely, a tone-mapped
/// value across an 8-bit step. The raster pass also adds the lit colour to the G-buffer's
/// emission by blending in the HDR format, compute adds before storing. Without the compute
/// pass's sky or its emission a region would differ by far more; without its point lights,
/// shadows or SSAO whole regions would.
#[test]
fn compute_lighting_matches_raster_lighting() {
    let gpu = gpu();
    for (ssao, clustering) in [(Ssao::GBuffer, true), (Ssao::Off, false)] {
        let raster = render(
            &gpu,
            tessera_scene::builtin(),
            settings_with(
                CompileOptions::ALL,
                features(Lighting::Raster, ssao, clustering),
            ),
            2,
        );
        let compute = render(
            &gpu,
            tessera_scene::builtin(),
            settings_with(
                CompileOptions::ALL,
                features(Lighting::Compute, ssao, clustering),
            ),
            2,
        );
        let d = compute.difference(&raster).expect("same size");
        let channels = raster.rgba.len() as f64;
        let off: usize = compute
            .rgba
            .iter()
            .zip(&raster.rgba)
            .filter(|(a, b)| a != b)
            .count();
        eprintln!("{ssao:?} clustering {clustering}: {d:?}, {off} channels differ");
        assert!(d.max <= 1, "{ssao:?}: {d:?}");
        assert!(
            (off as f64) <= channels * 0.001,
            "{ssao:?}: {off} channels differ"
        );
    }
}

/// On either lighting path, every optimisation off (and the async queue emulated) gives the
/// picture all on gives, bit for bit.
#[test]
fn optimisations_never_change_the_picture_on_either_lighting_path() {
    let gpu = gpu();
    for lighting in [Lighting::Compute, Lighting::Raster] {
        let f = features(lighting, Ssao::GBuffer, true);
        let all = render(
            &gpu,
            tessera_scene::builtin(),
            settings_with(CompileOptions::ALL, f.clone()),
            2,
        );
        for (name, options, emulate) in [
            ("none", CompileOptions::NONE, false),
            ("emulated async", CompileOptions::ALL, true),
            ("emulated async, none", CompileOptions::NONE, true),
        ] {
            let mut s = settings_with(options, f.clone());
            s.emulate_async = emulate;
            let p = render(&gpu, tessera_scene::builtin(), s, 2);
            assert!(p == all, "{lighting:?}, {name}: {:?}", p.difference(&all));
        }
    }
}

/// lavapipe stores `B10G11R11_UFLOAT_PACK32` images, so compute lighting stays compute there
/// (a device without that support would light in the raster pass, with a warning), and
/// raster stays raster.
#[test]
fn compute_lighting_runs_where_the_device_stores_hdr() {
    use tessera_render::gpu::lighting_support::{clamp_lighting, hdr_storage};
    let gpu = gpu();
    assert!(hdr_storage(&gpu));
    assert_eq!(clamp_lighting(&gpu, Lighting::Compute), Lighting::Compute);
    assert_eq!(clamp_lighting(&gpu, Lighting::Raster), Lighting::Raster);
}
