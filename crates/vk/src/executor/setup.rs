//! The setup sequence of a plan: compile for the device's capabilities → create the
//! resources unbound (sharing modes as the first plan asks) → put their real sizes in the
//! graph → recompile → check that the memoryless decisions and sharing modes did not change.
//! Binding follows in `plan_state`. Two compiles per rebuild; no GPU work.

use super::device_state::DeviceState;
use super::{ExecOptions, TestHooks};
use crate::device::Gpu;
use crate::resources::{self, concurrent_set, memoryless_set, Unbound};
use crate::VkError;
use tessera_graph::{compile, CompileOptions, Graph, Plan};

/// Resources the plan does not create: the imports the renderer hands in every frame (the
/// `per_frame` ones, or all with [`ExecOptions::imports_handed_in`]), and the history and
/// persistent resources, which outlive plans (`history`, `persistent`).
pub(crate) fn external_set(graph: &Graph, options: &ExecOptions) -> Vec<bool> {
    graph
        .resources
        .iter()
        .map(|r| {
            r.is_history()
                || r.is_kept_across_plans()
                || r.is_imported() && (r.is_per_frame() || options.imports_handed_in)
        })
        .collect()
}

/// What [`compile_for_device`] makes.
pub(crate) struct DevicePlan {
    /// The graph with real sizes.
    pub graph: Graph,
    /// Its plan.
    pub plan: Plan,
    /// The resources, unbound.
    pub unbound: Unbound,
    /// The odd frames' copies of the resources the plan doubles for overlapping frames
    /// (`frame_overlap.doubled`; the others are null placeholders), unbound.
    pub twins: Option<Unbound>,
}

/// The graph with real sizes, its plan, and the unbound resources.
pub(crate) fn compile_for_device(
    gpu: &Gpu,
    dev: &DeviceState,
    options: &ExecOptions,
    hooks: &TestHooks,
    declared: &Graph,
    compile_options: &CompileOptions,
) -> Result<DevicePlan, VkError> {
    // Before anything is created: an image beyond the device's limits is one error.
    gpu.check_extents(declared)?;
    let mut g = declared.clone();
    let caps = &dev.caps;
    let plan0 = compile(&g, caps, compile_options).map_err(VkError::Compile)?;
    let memoryless = memoryless_set(&g, &plan0);
    // Sharing modes depend on the schedule only, not on sizes: the final plan keeps them
    // (checked below).
    let concurrent = concurrent_set(&g, &plan0, dev.families);
    let external = external_set(&g, options);
    let unbound =
        resources::create_unbound(gpu, &g, &memoryless, &concurrent, dev.families, &external)?;
    for (r, req) in g.resources.iter_mut().zip(&unbound.requirements) {
        r.size = Some(req.size);
    }
    let checked = (|| {
        let mut plan = compile(&g, caps, compile_options).map_err(VkError::Compile)?;
        if let Some(alter) = hooks.alter_plan {
            alter(&mut plan);
        }
        if memoryless_set(&g, &plan) != memoryless {
            return Err(VkError::Setup(
                "memoryless decisions changed with the real sizes".into(),
            ));
        }
        let now = concurrent_set(&g, &plan, dev.families);
        if let Some(i) = (0..now.len()).find(|&i| now[i] != unbound.concurrent[i]) {
            return Err(VkError::Setup(format!(
                "'{}' was created with another sharing mode than the plan asks for",
                g.resources[i].name
            )));
        }
        Ok(plan)
    })();
    let plan = match checked {
        Ok(plan) => plan,
        Err(e) => {
            resources::Resources::from_unbound(unbound).destroy(gpu);
            return Err(e);
        }
    };
    let doubled = doubled_set(&g, &plan);
    if !doubled.contains(&true) {
        return Ok(DevicePlan {
            graph: g,
            plan,
            unbound,
            twins: None,
        });
    }
    // The twins: the same create infos, every other resource a placeholder.
    let others: Vec<bool> = doubled.iter().map(|d| !d).collect();
    let concurrent = unbound.concurrent.clone();
    match resources::create_unbound(gpu, &g, &memoryless, &concurrent, dev.families, &others) {
        Ok(twins) => Ok(DevicePlan {
            graph: g,
            plan,
            unbound,
            twins: Some(twins),
        }),
        Err(e) => {
            resources::Resources::from_unbound(unbound).destroy(gpu);
            Err(e)
        }
    }
}

/// The resources `plan` doubles for overlapping frames (indexed by resource).
pub(crate) fn doubled_set(graph: &Graph, plan: &Plan) -> Vec<bool> {
    let mut out = vec![false; graph.resources.len()];
    for d in plan.frame_overlap.iter().flat_map(|o| &o.doubled) {
        if let Some(r) = graph.find_resource(&d.resource) {
            out[r.index()] = true;
        }
    }
    out
}
