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
        settings_with(CompileOptions::ALL, features),
        2,
    )
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
