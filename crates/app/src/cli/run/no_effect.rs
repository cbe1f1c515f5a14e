//! Which optimisations cannot change the running plan, and why: the UI greys their
//! switches with the reason on hover, so a switch that shows "the plan is the same" is
//! known before it is pressed.
//!
//! A device fact says it where one does (no lazily allocated memory, one queue family);
//! otherwise the frame's declared graph is compiled with the switch flipped and the plans
//! compared as the UI reports a change ([`changes`]: passes, render passes, barriers,
//! semaphores, memory, tile traffic, merges, queues, order), a few hundred microseconds per
//! switch, once per re-plan.

use super::actions::Optimisation;
use super::toggles::{changes, flag};
use tessera_graph::{compile, Capabilities, CompileOptions, Graph, Plan};

/// Every optimisation, in the key table's order.
pub const ALL: [Optimisation; 6] = [
    Optimisation::Merge,
    Optimisation::Memoryless,
    Optimisation::Alias,
    Optimisation::Async,
    Optimisation::Reorder,
    Optimisation::Overlap,
];

/// `options` with `o` flipped.
pub fn flipped(mut options: CompileOptions, o: Optimisation) -> CompileOptions {
    let flag = flag(&mut options, o);
    *flag = !*flag;
    options
}

/// Why `o` cannot matter on a device with `caps` under `options`, from the device alone.
fn device_reason(o: Optimisation, caps: &Capabilities, options: &CompileOptions) -> Option<String> {
    match o {
        Optimisation::Memoryless if !caps.lazily_allocated => Some(
            "no lazily allocated memory on this device: memoryless has nothing to keep in \
             tile memory"
                .into(),
        ),
        Optimisation::Async | Optimisation::Overlap if !caps.async_compute => Some(
            "one queue family on this device: async passes run on the graphics queue \
             (--emulate-async runs the cross-queue parts anyway)"
                .into(),
        ),
        Optimisation::Overlap if !options.async_compute => {
            Some("frames overlap across queues only with async on".into())
        }
        _ => None,
    }
}

/// The optimisations that cannot change `plan` (compiled from `graph`), with the reason.
pub fn without_effect(graph: &Graph, plan: &Plan) -> Vec<(Optimisation, String)> {
    let (Some(caps), Some(options)) = (&plan.device, plan.options) else {
        return Vec::new();
    };
    ALL.iter()
        .filter_map(|&o| {
            if let Some(why) = device_reason(o, caps, &options) {
                return Some((o, why));
            }
            let other = compile(graph, caps, &flipped(options, o)).ok()?;
            changes(plan, &other).is_empty().then(|| {
                (
                    o,
                    "this frame's plan is the same either way on this device".to_string(),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_graph::{Access, Format, ImageDesc};

    /// Two raster passes that merge, the second reading the first's colour as an input
    /// attachment.
    fn mergeable() -> Graph {
        let mut g = Graph::new("two subpasses");
        let a = g.image("a", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        g.resource_mut(out).output = true;
        g.raster("draw").clears(a, Access::ColorWrite);
        g.raster("light")
            .uses(a, Access::InputAttachment)
            .clears(out, Access::ColorWrite);
        g
    }

    #[test]
    fn a_switch_the_device_cannot_use_is_greyed_with_the_reason() {
        let g = mergeable();
        let caps = Capabilities::desktop();
        let plan = compile(&g, &caps, &CompileOptions::ALL).expect("compiles");
        let greyed = without_effect(&g, &plan);
        let reason = |o| {
            greyed
                .iter()
                .find(|(g, _)| *g == o)
                .map(|(_, r)| r.as_str())
        };
        assert!(
            reason(Optimisation::Memoryless).is_some_and(|r| r.contains("lazily allocated")),
            "{greyed:?}"
        );
        // Merging does change this plan: not greyed.
        assert_eq!(reason(Optimisation::Merge), None, "{greyed:?}");
        // No compute pass: the async queue has nothing to take.
        assert!(reason(Optimisation::Async).is_some(), "{greyed:?}");
    }

    #[test]
    fn on_a_tiler_memoryless_matters() {
        let g = mergeable();
        let caps = Capabilities::profile("mali").expect("mali");
        let plan = compile(&g, &caps, &CompileOptions::ALL).expect("compiles");
        let greyed = without_effect(&g, &plan);
        assert!(
            !greyed.iter().any(|(o, _)| *o == Optimisation::Memoryless),
            "{greyed:?}"
        );
    }
}
