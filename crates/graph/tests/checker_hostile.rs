//! A plan is untrusted input (`tessera check` reads it from JSON): whatever it says, the
//! checker reports violations and never panics. Real compiled plans (example frames on
//! every profile, random two-queue frames) are mutated one field at a time: every integer
//! (subpass, attachment and timeline indices, placements, levels, classes...) set to values
//! out of every range, every name to an unknown one or another kept pass, every string to
//! each enum value, every boolean flipped, every list element dropped or repeated.

mod frames;

use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tessera_graph::{check, compile, frame_file, Capabilities, CompileOptions, Graph, Plan};

/// Integers out of (and at the edge of) every range a plan's indices have.
const INTEGERS: &[u64] = &[
    0,
    1,
    2,
    3,
    5,
    9,
    64,
    65_535,
    1 << 31,
    u32::MAX as u64,
    1 << 40,
    u64::MAX,
];

/// Strings that are values of the plan's enums (queues, ops, positions, units, layouts...).
const WORDS: &[&str] = &[
    "nope",
    "",
    "graphics",
    "async_compute",
    "load",
    "clear",
    "dont_care",
    "store",
    "after",
    "before",
    "release",
    "acquire",
    "level",
    "order",
    "exclusive",
    "concurrent",
    "UNDEFINED",
    "GENERAL",
    "PRESENT_SRC_KHR",
    "COLOR_ATTACHMENT_OPTIMAL",
];

/// Every scalar and every list element of `v`, as JSON pointers.
fn paths(v: &Value, at: String, scalars: &mut Vec<String>, elements: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                paths(x, format!("{at}/{k}"), scalars, elements);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                elements.push(format!("{at}/{i}"));
                paths(x, format!("{at}/{i}"), scalars, elements);
            }
        }
        _ => scalars.push(at),
    }
}

/// The mutants of `plan`'s JSON: one change each.
fn mutants(plan: &Value, names: &[String]) -> Vec<Value> {
    let (mut scalars, mut elements) = (Vec::new(), Vec::new());
    paths(plan, String::new(), &mut scalars, &mut elements);
    let mut out = Vec::new();
    let mut with = |at: &str, f: &dyn Fn(&mut Value)| {
        let mut m = plan.clone();
        if let Some(x) = m.pointer_mut(at) {
            f(x);
            out.push(m);
        }
    };
    for at in &scalars {
        match plan.pointer(at) {
            Some(Value::Number(_)) => {
                for &n in INTEGERS {
                    with(at, &|x| *x = Value::from(n));
                }
            }
            Some(Value::String(_)) => {
                for w in WORDS
                    .iter()
                    .copied()
                    .chain(names.iter().map(String::as_str))
                {
                    with(at, &|x| *x = Value::from(w));
                }
            }
            Some(Value::Bool(b)) => with(at, &|x| *x = Value::from(!b)),
            _ => {}
        }
        with(at, &|x| *x = Value::Null);
    }
    for at in &elements {
        let (list, index) = at.rsplit_once('/').expect("an element path has a parent");
        let i: usize = index.parse().expect("an element path ends in an index");
        for repeat in [false, true] {
            let mut m = plan.clone();
            if let Some(Value::Array(a)) = m.pointer_mut(list) {
                if repeat {
                    let x = a[i].clone();
                    a.push(x);
                } else {
                    a.remove(i);
                }
                out.push(m);
            }
        }
    }
    out
}

/// Checks every mutant of the plan of `graph` on `caps`; returns how many were checked.
fn check_mutants(what: &str, graph: &Graph, caps: &Capabilities) -> usize {
    let options = CompileOptions::ALL;
    let plan = compile(graph, caps, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
    let json = serde_json::to_value(&plan).expect("plans serialize");
    let mut names: Vec<String> = plan.order.iter().take(2).map(|n| n.to_string()).collect();
    names.extend(plan.order.last().map(|n| n.to_string()));
    names.extend(graph.resources.iter().take(2).map(|r| r.name.to_string()));
    let mut checked = 0;
    for m in mutants(&json, &names) {
        let Ok(mutant) = serde_json::from_value::<Plan>(m.clone()) else {
            continue;
        };
        // As `tessera check` does: the plan's own device and options when it has them.
        let caps = mutant.device.clone().unwrap_or_else(|| caps.clone());
        let options = mutant.options.unwrap_or(options);
        let run = catch_unwind(AssertUnwindSafe(|| {
            check::check(graph, &caps, &options, &mutant)
        }));
        if run.is_err() {
            let diff: Vec<String> = diff(&json, &m, String::new());
            panic!("{what}: the checker panics on a plan changed at {diff:?}");
        }
        checked += 1;
    }
    checked
}

/// Where two JSON values differ (the first few pointers).
fn diff(a: &Value, b: &Value, at: String) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x
            .iter()
            .flat_map(|(k, v)| match y.get(k) {
                Some(w) => diff(v, w, format!("{at}/{k}")),
                None => vec![format!("{at}/{k}")],
            })
            .take(3)
            .collect(),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .flat_map(|(i, (v, w))| diff(v, w, format!("{at}/{i}")))
            .take(3)
            .collect(),
        _ if a == b => Vec::new(),
        _ => vec![format!("{at}: {b}")],
    }
}

#[test]
fn mutated_example_plans_give_violations_not_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs");
    let mut checked = 0;
    for frame in [
        "tile_deferred",
        "tile_msaa",
        "tile_deferred_depth_input",
        "present",
        "async_scenario1",
        "async_inside_render_pass",
    ] {
        let (graph, _) =
            frame_file::load(&dir.join(format!("{frame}.json"))).unwrap_or_else(|e| panic!("{e}"));
        for profile in ["desktop", "mali"] {
            let caps = Capabilities::profile(profile).expect("known profile");
            checked += check_mutants(&format!("{frame} on {profile}"), &graph, &caps);
        }
    }
    assert!(checked > 1000, "only {checked} mutants parsed");
}

#[test]
fn mutated_random_two_queue_plans_give_violations_not_panics() {
    for seed in 0..4 {
        let (graph, caps) = frames::frame(seed, 10, true);
        check_mutants(&format!("random frame {seed}"), &graph, &caps);
    }
}

/// The report of issue "Nothing a new machine or a hostile input can break": a render-pass
/// dependency whose `src_subpass` is out of range (only `dst_subpass` was range-checked).
#[test]
fn an_out_of_range_src_subpass_is_a_violation() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs");
    let (graph, _) =
        frame_file::load(&dir.join("tile_deferred.json")).unwrap_or_else(|e| panic!("{e}"));
    let caps = Capabilities::profile("mali").expect("known profile");
    let options = CompileOptions::ALL;
    let mut plan = compile(&graph, &caps, &options).expect("valid frame");
    let rp = plan
        .render_passes
        .iter_mut()
        .find(|rp| !rp.dependencies.is_empty())
        .expect("a merged render pass with dependencies");
    for d in &mut rp.dependencies {
        d.by_region = true;
    }
    rp.dependencies[0].src_subpass = 1000;
    let v = check::check(&graph, &caps, &options, &plan).unwrap_err();
    assert!(
        v.iter()
            .any(|v| v.rule == "rp.dependency" && v.detail.contains("1000 ->")),
        "{v:#?}"
    );
}
