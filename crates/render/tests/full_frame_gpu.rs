//! The whole frame on lavapipe: every graph optimisation, alone and together, with the
//! async-compute queue emulated (cross-queue semaphores, ownership transfers and the
//! temporal exposure buffer exercised on one queue family) and folded, renders the same
//! picture as every optimisation off at frame 10, with zero validation and
//! synchronization-validation messages; and the full frame's golden image.

mod common;

use common::*;
use tessera_graph::CompileOptions;

/// Frames per run: enough for the auto exposure to settle, and for frames in flight to wrap
/// around their slots several times.
const FRAMES: u64 = 10;

fn frame_10(
    gpu: &std::sync::Arc<tessera_vk::Gpu>,
    options: CompileOptions,
    emulate: bool,
) -> tessera_render::png_out::Picture {
    let mut s = settings_with(options, small_features());
    s.emulate_async = emulate;
    render(gpu, tessera_scene::builtin(), s, FRAMES)
}

/// The option sets compared: all on, each one off, each one alone.
fn variants() -> Vec<(String, CompileOptions)> {
    type Switch = fn(&mut CompileOptions) -> &mut bool;
    let switches: [(&str, Switch); 6] = [
        ("merge", |o| &mut o.merge),
        ("memoryless", |o| &mut o.memoryless),
        ("alias", |o| &mut o.alias),
        ("async", |o| &mut o.async_compute),
        ("reorder", |o| &mut o.reorder),
        ("minimize syncs", |o| &mut o.minimize_syncs),
    ];
    let mut v = vec![("all".to_string(), CompileOptions::ALL)];
    for (name, f) in switches {
        let mut off = CompileOptions::ALL;
        *f(&mut off) = false;
        v.push((format!("all but {name}"), off));
        let mut alone = CompileOptions::NONE;
        *f(&mut alone) = true;
        v.push((format!("{name} alone"), alone));
    }
    v
}

fn same_picture_whatever_the_plan(emulate: bool) {
    let gpu = gpu();
    let reference = frame_10(&gpu, CompileOptions::NONE, emulate);
    for (name, options) in variants() {
        let p = frame_10(&gpu, options, emulate);
        assert!(
            p == reference,
            "{name} (emulated async: {emulate}) differs from every optimisation off: {:?}",
            p.difference(&reference)
        );
    }
}

#[test]
fn every_optimisation_gives_the_same_picture_with_async_emulated() {
    same_picture_whatever_the_plan(true);
}

#[test]
fn every_optimisation_gives_the_same_picture_on_one_queue() {
    same_picture_whatever_the_plan(false);
}

/// Emulating the async queue changes submissions, never the picture.
#[test]
fn golden_full_frame_and_emulated_async_agree() {
    let gpu = gpu();
    let folded = frame_10(&gpu, CompileOptions::ALL, false);
    check_golden("full_frame", &folded);
    let emulated = frame_10(&gpu, CompileOptions::ALL, true);
    assert!(folded == emulated, "{:?}", folded.difference(&emulated));
}
