//! The `deform` pass in the compiled frame (no device): declared after `frame constants`
//! (which writes its `deform frame`) and before every geometry pass, which read
//! `animated vertices` behind a compute-write → vertex-input barrier; the CPU reference's
//! route declares no pass, and a frame that deforms nothing declares neither buffer.

use tessera_graph::sync::{AccessMask, StageMask};
use tessera_graph::{compile, Capabilities, CompileOptions, Graph, Plan};
use tessera_render::frame::deform::{Deformation, GpuDeform};
use tessera_render::renderer::FrameSource;
use tessera_render::Settings;

fn graph(deform: Deformation) -> Graph {
    let scene = tessera_scene::builtin();
    let settings = Settings {
        width: 64,
        height: 48,
        ..Settings::default()
    };
    let source = FrameSource {
        scene: &scene,
        settings: &settings,
        frame: 0,
        previous: None,
        taa_frames: None,
        environment: Default::default(),
        deform: &deform,
    };
    let sizes = (
        std::mem::size_of_val(scene.vertices.as_slice()) as u64,
        std::mem::size_of_val(scene.indices.as_slice()) as u64,
    );
    // The bodies borrow the scene: dropped here, before it.
    let (g, bodies, _) = source.declare(0.0, sizes, &[], None, None, None);
    drop(bodies);
    g
}

fn gpu_deform() -> Deformation {
    Deformation::Gpu(GpuDeform {
        vertices: 100,
        static_bytes: [8000, 32, 2400],
        frame: vec![[0.0; 4]; 9],
    })
}

fn plan(g: &Graph, options: &CompileOptions) -> Plan {
    compile(g, &Capabilities::desktop(), options).expect("the frame compiles")
}

fn position(plan: &Plan, pass: &str) -> usize {
    plan.order
        .iter()
        .position(|n| n.as_str() == pass)
        .unwrap_or_else(|| panic!("{pass} is not in the plan"))
}

#[test]
fn deform_runs_between_the_upload_and_the_geometry() {
    let g = graph(gpu_deform());
    let pass = g
        .passes
        .iter()
        .find(|p| p.name.as_str() == "deform")
        .expect("a deform pass");
    assert_eq!(pass.kind, tessera_graph::PassKind::Compute);
    for options in [CompileOptions::ALL, CompileOptions::NONE] {
        let plan = plan(&g, &options);
        let deform = position(&plan, "deform");
        assert!(position(&plan, "frame constants") < deform);
        for geometry in ["gbuffer", "shadows"] {
            assert!(
                deform < position(&plan, geometry),
                "{geometry} before deform"
            );
        }
        assert!(
            plan.barriers
                .iter()
                .any(|b| b.resource.as_str() == "animated vertices"
                    && b.src_stage.intersects(StageMask::COMPUTE_SHADER)
                    && b.src_access.intersects(AccessMask::SHADER_STORAGE_WRITE)
                    && b.dst_stage.intersects(StageMask::VERTEX_INPUT)
                    && b.dst_access.intersects(AccessMask::VERTEX_ATTRIBUTE_READ)),
            "no storage write → vertex input barrier on animated vertices: {:#?}",
            plan.barriers
        );
    }
}

#[test]
fn the_cpu_route_and_a_still_frame_declare_no_pass() {
    let vertex = tessera_scene::Vertex {
        position: [0.0; 3],
        normal: [0.0, 0.0, 1.0],
        tangent: [1.0, 0.0, 0.0, 1.0],
        uv: [0.0; 2],
    };
    let has = |g: &Graph, pass: &str| g.passes.iter().any(|p| p.name.as_str() == pass);
    let buffer = |g: &Graph, name: &str| g.resources.iter().any(|r| r.name.as_str() == name);
    let cpu = graph(Deformation::Cpu(vec![vertex; 10]));
    assert!(!has(&cpu, "deform"));
    assert!(buffer(&cpu, "animated vertices") && !buffer(&cpu, "deform frame"));
    let still = graph(Deformation::None);
    assert!(!has(&still, "deform"));
    assert!(!buffer(&still, "animated vertices"));
    assert!(has(&graph(gpu_deform()), "deform"));
}
