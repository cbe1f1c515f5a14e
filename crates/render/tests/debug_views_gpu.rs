//! Debug views on lavapipe: each shows its intermediate as the output through the graph (a
//! golden image each), differs from the lit frame, and runs with zero validation messages.

mod common;

use common::*;
use tessera_graph::CompileOptions;
use tessera_render::features::DebugView;

fn view(gpu: &std::sync::Arc<tessera_vk::Gpu>, v: DebugView) -> tessera_render::png_out::Picture {
    let features = tessera_render::features::Features {
        debug_view: v,
        ..small_features()
    };
    render(
        gpu,
        tessera_scene::builtin(),
        raster_post(settings_with(CompileOptions::ALL, features)),
        2,
    )
}

/// A shadow view shows the cascade's depth: texels drawn in greys (red = green = blue), in
/// many levels across the slice (not one washed-out shade), empty ones apart in dark blue.
/// `min_drawn` is the share of the picture the cascade's casters cover and `min_levels` the
/// grey levels they span (the nearest cascade of the courtyard's view holds little: its
/// slice is the air before the camera).
fn shows_depth(name: &str, p: &tessera_render::png_out::Picture, min_drawn: f64, min_levels: u8) {
    let pixels = p.rgba.chunks_exact(4);
    let total = pixels.len() as f64;
    let empty = pixels.clone().filter(|c| c[2] > c[0] + 20).count() as f64;
    let drawn: Vec<u8> = pixels.filter(|c| c[0] == c[2]).map(|c| c[0]).collect();
    assert!(empty > 0.0, "{name}: empty texels are told apart");
    let share = drawn.len() as f64 / total;
    assert!(share >= min_drawn, "{name}: {:.1}% drawn", share * 100.0);
    let (lo, hi) = (drawn.iter().min().unwrap(), drawn.iter().max().unwrap());
    assert!(hi - lo >= min_levels, "{name}: grey levels {lo}..{hi} only");
}

#[test]
fn each_debug_view_shows_its_own_picture() {
    let gpu = gpu();
    let lit = view(&gpu, DebugView::None);
    let mut seen: Vec<(String, Vec<u8>)> = vec![("none".into(), lit.rgba.clone())];
    for v in [
        DebugView::Albedo,
        DebugView::Normal,
        DebugView::Material,
        DebugView::Depth,
        DebugView::Shadow(0),
        DebugView::Shadow(2),
        DebugView::Ssao,
        DebugView::Clusters,
        DebugView::Exposure,
    ] {
        let p = view(&gpu, v);
        let name = v.name();
        match v {
            DebugView::Shadow(0) => shows_depth(&name, &p, 0.002, 8),
            DebugView::Shadow(_) => shows_depth(&name, &p, 0.05, 64),
            _ => {}
        }
        check_golden(&format!("debug_{name}"), &p);
        for (other, rgba) in &seen {
            assert_ne!(&p.rgba, rgba, "debug view '{name}' looks like '{other}'");
        }
        seen.push((name, p.rgba));
    }
}

/// A debug view's plan is the frame that view needs: lighting and tone mapping feed only the
/// lit picture, so the albedo view culls them.
#[test]
fn a_debug_view_culls_what_only_the_lit_picture_needs() {
    let gpu = gpu();
    let features = tessera_render::features::Features {
        debug_view: DebugView::Albedo,
        ..small_features()
    };
    let mut r = tessera_render::Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings_with(CompileOptions::ALL, features),
    )
    .expect("renderer");
    r.render(0.0).expect("frame");
    let plan = r.executor().plan().expect("a plan").clone();
    r.destroy();
    let kept: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
    let kept: Vec<&str> = kept.iter().map(String::as_str).collect();
    assert!(kept.contains(&"debug view"), "{kept:?}");
    assert!(kept.contains(&"gbuffer"), "{kept:?}");
    assert!(!kept.contains(&"lighting"), "{kept:?}");
    assert!(!kept.contains(&"tonemap"), "{kept:?}");
}
