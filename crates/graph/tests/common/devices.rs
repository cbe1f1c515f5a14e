//! Capabilities (the named profiles, sometimes with the async queue toggled) and compile
//! options (everything on, everything off, or any mix).

use proptest::prelude::*;
use tessera_graph::{Capabilities, CompileOptions};

/// The named profiles of docs/frame-format.md.
pub fn profile_caps() -> impl Strategy<Value = Capabilities> {
    prop::sample::select(Capabilities::PROFILES)
        .prop_map(|p| Capabilities::profile(p).expect("known profile"))
}

/// A profile, with `async_compute` flipped one time in four.
pub fn capabilities() -> impl Strategy<Value = Capabilities> {
    (profile_caps(), prop::bool::weighted(0.25)).prop_map(|(mut c, flip)| {
        if flip {
            c.async_compute = !c.async_compute;
        }
        c
    })
}

/// `ALL`, `NONE`, or any combination of switches.
pub fn options() -> impl Strategy<Value = CompileOptions> {
    let mixed = any::<[bool; 7]>().prop_map(|b| CompileOptions {
        reorder: b[0],
        merge: b[1],
        memoryless: b[2],
        alias: b[3],
        async_compute: b[4],
        minimize_syncs: b[5],
        overlap_frames: b[6],
    });
    prop_oneof![Just(CompileOptions::ALL), Just(CompileOptions::NONE), mixed]
}
