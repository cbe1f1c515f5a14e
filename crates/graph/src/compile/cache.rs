//! Compile caching: a frame whose graph, capabilities and options equal the previous
//! frame's reuses the previous plan.
//!
//! The previous inputs are kept and compared field by field (graph, capabilities, options):
//! exact, so no collision can hand out a wrong plan, and cheaper than hashing first, because
//! the comparison stops at the first difference and an unchanged frame is one linear pass
//! over its data (names are shared, so equal names often compare by pointer). A 64-bit key
//! ([`Compiler::key`]) is still exposed for callers that index several plans.

use super::compile;
use crate::caps::{Capabilities, CompileOptions};
use crate::error::CompileError;
use crate::graph::Graph;
use crate::hash::FxHasher;
use crate::plan::Plan;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A compiler that remembers the previous frame's plan.
#[derive(Debug, Default)]
pub struct Compiler {
    last: Option<Cached>,
    hits: u64,
    misses: u64,
}

#[derive(Debug)]
struct Cached {
    graph: Graph,
    caps: Capabilities,
    options: CompileOptions,
    plan: Arc<Plan>,
}

impl Compiler {
    /// A compiler with an empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Compiles, or returns the previous plan when nothing changed.
    pub fn compile(
        &mut self,
        graph: &Graph,
        caps: &Capabilities,
        options: &CompileOptions,
    ) -> Result<Arc<Plan>, CompileError> {
        if let Some(c) = &self.last {
            if c.options == *options && c.caps == *caps && c.graph == *graph {
                self.hits += 1;
                return Ok(Arc::clone(&c.plan));
            }
        }
        self.misses += 1;
        let plan = Arc::new(compile(graph, caps, options)?);
        log::debug!(
            "compiled '{}': {} passes kept, {} culled",
            graph.name,
            plan.order.len(),
            plan.culled.len()
        );
        self.last = Some(Cached {
            graph: graph.clone(),
            caps: caps.clone(),
            options: *options,
            plan: Arc::clone(&plan),
        });
        Ok(plan)
    }

    /// (cache hits, cache misses) so far.
    pub fn stats(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// A 64-bit structural key of everything a plan depends on (graph, capabilities,
    /// options), for callers that keep several plans; equal inputs give equal keys.
    pub fn key(graph: &Graph, caps: &Capabilities, options: &CompileOptions) -> u64 {
        let mut h = FxHasher::default();
        graph.hash(&mut h);
        caps.hash(&mut h);
        options.hash(&mut h);
        h.finish()
    }
}
