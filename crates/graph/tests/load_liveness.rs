//! Property test: the load and store operations of every plan for a random valid graph (all
//! profiles, both queues, random options) are those the liveness rule gives, derived again by
//! a quadratic walk of the later uses (`common::liveness`) rather than the compiler's chains:
//! no `LOAD` of dead content, no lost content, no `STORE` nobody reads.

mod common;

use common::{capabilities, options, valid_graph};
use proptest::prelude::*;
use tessera_graph::compile;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn loads_and_stores_follow_liveness(graph in valid_graph(), caps in capabilities(), options in options()) {
        let plan = compile(&graph, &caps, &options)
            .map_err(|e| TestCaseError::fail(format!("valid graph rejected: {e}")))?;
        let walk = common::liveness::walk(&graph, &plan);
        prop_assert!(
            walk.wrong.is_empty(),
            "{} with {:?}:\n{}\ngraph:\n{}",
            caps.profile,
            options,
            walk.wrong.join("\n"),
            common::describe(&graph)
        );
    }
}
