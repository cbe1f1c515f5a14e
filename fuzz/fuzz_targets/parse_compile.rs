//! Fuzz target: arbitrary bytes as a frame file, read both as JSON and as TOML, then
//! compiled for the file's device with every optimisation on and off, and every compiled
//! plan checked by the independent checker. Any panic, or a plan the checker rejects, is a
//! finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_graph::frame_file::{self, Syntax};
use tessera_graph::{check, compile, CompileOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for syntax in [Syntax::Json, Syntax::Toml] {
        let Ok((graph, caps)) = frame_file::parse(text, syntax, "fuzz") else {
            continue;
        };
        for options in [CompileOptions::ALL, CompileOptions::NONE] {
            if let Ok(plan) = compile(&graph, &caps, &options) {
                if let Err(violations) = check::check(&graph, &caps, &options, &plan) {
                    panic!("checker rejects a compiled plan: {violations:#?}");
                }
            }
        }
    }
});
