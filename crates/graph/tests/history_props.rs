//! Property tests of history resources: random valid graphs with history resources and
//! previous reads compile for every profile and option set (both queues included), their
//! plans pass the independent checker on the lowered graph, the plan's `history` entries
//! are the lowering's (double exactly when some previous read is declared at or after the
//! first use of this frame's content), frame files round-trip them, and a broken history
//! rule is a compile error, never a panic.

mod common;

use common::history::{broken_history, expected_buffering, history_graph};
use common::text::{frame_file_of, write};
use common::{capabilities, options};
use proptest::prelude::*;
use tessera_graph::frame_file::{self, Syntax};
use tessera_graph::graph::{Graph, HistoryRole, Origin};
use tessera_graph::history::{self, Buffering};
use tessera_graph::plan::Plan;
use tessera_graph::{check, compile, Capabilities, CompileOptions};

/// `default` cases, or `PROPTEST_CASES` for a deeper run.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Compiles `graph`, checks the plan against the lowered graph and compares the plan's
/// history entries with the lowering rule.
fn assert_history_plan(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Result<Plan, TestCaseError> {
    let plan = compile(graph, caps, options).map_err(|e| {
        TestCaseError::fail(format!(
            "valid graph rejected: {e}\ngraph:\n{}",
            common::describe(graph)
        ))
    })?;
    let lowered = history::lower(graph);
    if let Err(violations) = check::check(&lowered, caps, options, &plan) {
        let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
        return Err(TestCaseError::fail(format!(
            "{} violation(s) on profile {} with {options:?}:\n{}\ngraph:\n{}plan: {}",
            list.len(),
            caps.profile,
            list.join("\n"),
            common::describe(graph),
            serde_json::to_string(&plan).unwrap_or_default()
        )));
    }
    let expected = expected_buffering(graph);
    prop_assert_eq!(
        plan.history.len(),
        expected.len(),
        "{:#?}\n{}",
        plan.history,
        common::describe(graph)
    );
    for ((id, buffering), h) in expected.iter().zip(&plan.history) {
        let r = graph.resource(*id);
        prop_assert_eq!(h.resource, r.name);
        prop_assert_eq!(
            h.buffering,
            *buffering,
            "'{}': {}\n{}",
            r.name,
            h.reason,
            common::describe(graph)
        );
        let (decided, reason) = history::decision(&lowered, *id).expect("a history resource");
        prop_assert_eq!(decided, h.buffering);
        prop_assert_eq!(&reason, &h.reason);
        match buffering {
            Buffering::Double => {
                let twin = history::previous_name(&r.name);
                prop_assert_eq!(h.previous, Some(twin));
                prop_assert_eq!(h.bytes, 2 * r.bytes());
                let tid = lowered.find_resource(twin.as_str()).expect("the twin");
                prop_assert_eq!(
                    lowered.resource(*id).origin,
                    Origin::History(HistoryRole::Current { previous: tid })
                );
                // Previous reads moved to the twin; this frame's half keeps the rest.
                for p in &lowered.passes {
                    for u in &p.uses {
                        prop_assert!(u.resource != *id || !u.previous);
                        prop_assert!(u.resource != tid || (u.previous && !u.access.writes()));
                    }
                }
            }
            Buffering::Single => {
                prop_assert_eq!(h.previous, None);
                prop_assert_eq!(h.bytes, r.bytes());
                prop_assert_eq!(
                    lowered.resource(*id).origin,
                    Origin::History(HistoryRole::Single)
                );
            }
        }
    }
    // History resources are never placed in (aliased) transient memory.
    for block in &plan.memory.blocks {
        for p in &block.placements {
            prop_assert!(
                !plan
                    .history
                    .iter()
                    .any(|h| h.resource == p.resource || h.previous == Some(p.resource)),
                "'{}' placed in a block",
                p.resource
            );
        }
    }
    Ok(plan)
}

/// Options with async compute on, so that compute passes asked onto the async queue go
/// there (the other switches as drawn).
fn two_queues(options: CompileOptions) -> CompileOptions {
    CompileOptions {
        async_compute: true,
        ..options
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128), ..ProptestConfig::default() })]

    #[test]
    fn history_plans_pass_the_checker(
        graph in history_graph(),
        caps in capabilities(),
        options in options(),
    ) {
        assert_history_plan(&graph, &caps, &options)?;
    }

    #[test]
    fn history_plans_pass_on_every_profile_and_two_queues(graph in history_graph()) {
        for profile in Capabilities::PROFILES {
            let mut caps = Capabilities::profile(profile).expect("known profile");
            for options in [CompileOptions::ALL, CompileOptions::NONE] {
                assert_history_plan(&graph, &caps, &options)?;
            }
            caps.async_compute = true;
            assert_history_plan(&graph, &caps, &two_queues(CompileOptions::ALL))?;
        }
    }

    #[test]
    fn history_frame_files_round_trip(graph in history_graph(), caps in capabilities()) {
        let lowered = history::lower(&graph).into_owned();
        for syntax in [Syntax::Json, Syntax::Toml] {
            let text = write(&frame_file_of(&lowered, &caps), syntax);
            let (parsed, parsed_caps) = frame_file::parse(&text, syntax, "generated")
                .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(&parsed, &lowered, "{}", text);
            prop_assert_eq!(&parsed_caps, &caps);
        }
    }

    #[test]
    fn broken_history_rules_are_errors((graph, mutation) in broken_history(), caps in capabilities()) {
        let result = compile(&graph, &caps, &CompileOptions::ALL);
        prop_assert!(
            result.is_err(),
            "mutation '{}' compiled:\n{}",
            mutation,
            common::describe(&graph)
        );
    }
}

/// The generator covers both bufferings, passes that read the previous content and write
/// this frame's (TAA), history resources read before and after the first write, previous
/// reads on the async queue, double-buffered pairs used on both queues, and single ones whose
/// first use of this frame's content reads it (an exposure adapted in place).
#[test]
fn history_graphs_cover_both_bufferings() {
    let (mut single, mut double, mut same_pass, mut async_previous, mut shared) = (0, 0, 0, 0, 0);
    let mut reads_at_entry = 0;
    let mut caps = Capabilities::desktop();
    caps.async_compute = true;
    for seed in 0..150 {
        let g = common::sample(&history_graph(), seed);
        for (id, b) in expected_buffering(&g) {
            match b {
                Buffering::Single => single += 1,
                Buffering::Double => double += 1,
            }
            let first = g
                .passes
                .iter()
                .flat_map(|p| &p.uses)
                .find(|u| u.resource == id && !u.previous);
            reads_at_entry += usize::from(first.is_some_and(|u| u.access.reads(u.clear)));
        }
        for p in &g.passes {
            let prev = p.uses.iter().filter(|u| u.previous);
            for u in prev {
                same_pass += usize::from(
                    p.uses
                        .iter()
                        .any(|v| v.resource == u.resource && !v.previous),
                );
                async_previous += usize::from(p.queue == tessera_graph::QueueKind::AsyncCompute);
            }
        }
        if let Ok(plan) = compile(&g, &caps, &CompileOptions::ALL) {
            shared += plan
                .sharing
                .iter()
                .filter(|s| s.resource.ends_with(" (previous)"))
                .count();
        }
    }
    assert!(
        single >= 20
            && double >= 20
            && same_pass >= 5
            && async_previous >= 5
            && shared >= 1
            && reads_at_entry >= 5,
        "single {single}, double {double}, same pass {same_pass}, async previous {async_previous}, shared pairs {shared}, single ones read at entry {reads_at_entry}"
    );
}
