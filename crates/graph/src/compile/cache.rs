//! Compile caching: a frame whose graph, capabilities and options equal the previous
//! frame's reuses the previous plan.
//!
//! The key is a fast 64-bit hash of everything the plan depends on; on a hash hit the stored
//! inputs are compared too, so a collision can never hand out a wrong plan.

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
    key: u64,
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
        let key = key_of(graph, caps, options);
        if let Some(c) = &self.last {
            if c.key == key && c.options == *options && c.caps == *caps && c.graph == *graph {
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
            key,
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
}

fn key_of(graph: &Graph, caps: &Capabilities, options: &CompileOptions) -> u64 {
    let mut h = FxHasher::default();
    graph.hash(&mut h);
    caps.hash(&mut h);
    options.hash(&mut h);
    h.finish()
}
