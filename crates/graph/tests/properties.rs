//! Property tests: every plan the compiler produces for a random valid graph passes the
//! independent checker (all profiles, both queues, options ALL / NONE / mixed); invalid
//! graphs give errors, never panics; arbitrary or mangled frame text never panics, and
//! frame files round-trip.

mod common;

use common::coverage::{middle_reads, MiddleReads};
use common::{capabilities, frame_text, invalid_graph, mangled_frame_text, options, valid_graph};
use proptest::prelude::*;
use tessera_graph::compile::validate;
use tessera_graph::frame_file::{self, Syntax};
use tessera_graph::graph::Graph;
use tessera_graph::{check, compile, Capabilities, CompileOptions};

/// `default` cases, or `PROPTEST_CASES` for a deeper run.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn assert_checked(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Result<(), TestCaseError> {
    let plan = compile(graph, caps, options)
        .map_err(|e| TestCaseError::fail(format!("valid graph rejected: {e}")))?;
    if let Err(violations) = check::check(graph, caps, options, &plan) {
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
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(192), ..ProptestConfig::default() })]

    #[test]
    fn every_plan_passes_the_checker(graph in valid_graph(), caps in capabilities(), options in options()) {
        assert_checked(&graph, &caps, &options)?;
    }

    #[test]
    fn all_and_none_pass_on_every_profile(graph in valid_graph()) {
        for profile in Capabilities::PROFILES {
            let caps = Capabilities::profile(profile).expect("known profile");
            for options in [CompileOptions::ALL, CompileOptions::NONE] {
                assert_checked(&graph, &caps, &options)?;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn invalid_graphs_are_errors((graph, mutation) in invalid_graph(), caps in capabilities()) {
        let result = compile(&graph, &caps, &CompileOptions::ALL);
        prop_assert!(result.is_err(), "mutation '{mutation}' compiled");
        // The validate phase's screen rejects what its rule-by-rule walk rejects, and the
        // phase gives the walk's error.
        prop_assert!(!validate::all_rules_hold(&graph, &caps), "mutation '{}' screened", mutation);
        prop_assert_eq!(
            validate::validate(&graph, &caps),
            validate::validate_rule_by_rule(&graph, &caps),
            "mutation '{}'", mutation
        );
    }

    #[test]
    fn validation_screen_passes_valid_graphs(graph in valid_graph(), caps in capabilities()) {
        prop_assert!(validate::all_rules_hold(&graph, &caps));
        prop_assert_eq!(validate::validate_rule_by_rule(&graph, &caps), Ok(()));
    }

    #[test]
    fn frame_files_round_trip((graph, caps, text, syntax) in frame_text()) {
        let (parsed, parsed_caps) = frame_file::parse(&text, syntax, "generated")
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&parsed, &graph);
        prop_assert_eq!(parsed_caps, caps);
    }

    #[test]
    fn mangled_text_never_panics((text, syntax) in mangled_frame_text()) {
        for s in [syntax, if syntax == Syntax::Json { Syntax::Toml } else { Syntax::Json }] {
            if let Ok((graph, caps)) = frame_file::parse(&text, s, "mangled") {
                // Whatever parses and compiles must still be a correct plan.
                if compile(&graph, &caps, &CompileOptions::ALL).is_ok() {
                    assert_checked(&graph, &caps, &CompileOptions::ALL)?;
                }
            }
        }
    }
}

/// The generator makes render passes whose attachments are read (input attachment, depth
/// test, blending) before their last subpass, stored and not: the plans above cover stores
/// that must wait for such reads (counted on `mali`, where adjacent raster passes merge).
/// Its graphs are mostly stored; `renderpass_props` generates the not-stored and resolved
/// cases in bulk (and counts them).
#[test]
fn valid_graphs_read_attachments_before_their_last_subpass() {
    let caps = Capabilities::profile("mali").expect("the mali profile");
    let mut total = MiddleReads::default();
    for seed in 0..200 {
        let g = common::sample(&valid_graph(), seed);
        if let Ok(plan) = compile(&g, &caps, &CompileOptions::ALL) {
            total.add(middle_reads(&g, &plan));
        }
    }
    assert!(total.store >= 10 && total.dont_care >= 1, "{total:?}");
}

/// The random graphs include depth/stencil resolves (with and without a mode), which compile
/// into plans that record their mode.
#[test]
fn valid_graphs_include_depth_resolves() {
    let caps = Capabilities::profile("mali").expect("the mali profile");
    let (mut declared, mut planned) = (0, 0);
    for seed in 0..400 {
        let g = common::sample(&valid_graph(), seed);
        let depth_resolve = |u: &tessera_graph::Use| {
            u.access == tessera_graph::Access::Resolve
                && g.resource(u.resource)
                    .image_desc()
                    .is_some_and(|d| d.format.is_depth_stencil())
        };
        declared += g
            .passes
            .iter()
            .flat_map(|p| &p.uses)
            .filter(|u| depth_resolve(u))
            .count();
        let plan = compile(&g, &caps, &CompileOptions::ALL).expect("valid graphs compile");
        planned += plan
            .render_passes
            .iter()
            .flat_map(|rp| rp.attachments.iter())
            .filter(|a| a.resolve_mode.is_some())
            .count();
    }
    assert!(
        declared >= 5 && planned >= 3,
        "declared {declared}, planned {planned}"
    );
}
