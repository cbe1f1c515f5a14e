//! The checker's cost and size limits: a plan of thousands of copies of one barrier is
//! checked (rejected for the copies, with the same violations as two copies give) without
//! its rules growing quadratic in them, and a plan over a limit is refused, unchecked, with
//! one violation that names the list and the limit. Nothing here measures time.

use std::path::Path;
use tessera_graph::check::{self, limits, Violation};
use tessera_graph::{compile, frame_file, Capabilities, CompileOptions, Graph, Plan};

fn tile_deferred() -> (Graph, Capabilities, Plan) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs/tile_deferred.json");
    let (graph, _) = frame_file::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let caps = Capabilities::desktop();
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("valid frame");
    (graph, caps, plan)
}

/// The plan with `copies` copies of its first layout transition in all.
fn with_copies(plan: &Plan, copies: usize) -> Plan {
    let mut p = plan.clone();
    let i = p
        .barriers
        .iter()
        .position(|b| b.old_layout != b.new_layout)
        .expect("a layout transition");
    let b = p.barriers[i].clone();
    p.barriers.splice(i..i, std::iter::repeat_n(b, copies - 1));
    p
}

fn violations(graph: &Graph, caps: &Capabilities, plan: &Plan) -> Vec<Violation> {
    let started = std::time::Instant::now();
    let v = check::check(graph, caps, &CompileOptions::ALL, plan)
        .err()
        .unwrap_or_default();
    eprintln!(
        "{} barriers: checked in {:?}",
        plan.barriers.len(),
        started.elapsed()
    );
    v
}

#[test]
fn thousands_of_copies_of_one_barrier_get_the_verdict_of_two() {
    let (graph, caps, plan) = tile_deferred();
    assert_eq!(violations(&graph, &caps, &plan), []);
    let two = violations(&graph, &caps, &with_copies(&plan, 2));
    assert!(
        two.iter().any(|v| v.rule == "barrier.duplicate"),
        "{two:#?}"
    );
    for copies in [3_000, 20_000] {
        let many = violations(&graph, &caps, &with_copies(&plan, copies));
        assert_eq!(many, two, "{copies} copies");
    }
}

#[test]
fn a_plan_over_a_limit_is_refused_with_one_clear_violation() {
    let (graph, caps, plan) = tile_deferred();
    let copies = limits::MAX_LIST + 1;
    let v = violations(&graph, &caps, &with_copies(&plan, copies));
    let want = format!(
        "the plan's barriers: {}, over the checker's limit of {}",
        plan.barriers.len() + copies - 1,
        limits::MAX_LIST
    );
    assert!(
        v.len() == 1 && v[0].rule == "plan.too_large" && v[0].detail.contains(&want),
        "{v:#?}"
    );
    let mut big = plan.clone();
    big.culled = vec![tessera_graph::Name::from("x"); limits::MAX_LIST + 1];
    let v = violations(&graph, &caps, &big);
    assert!(
        v.len() == 1 && v[0].detail.starts_with("the plan's culled: 65537"),
        "{v:#?}"
    );
}
