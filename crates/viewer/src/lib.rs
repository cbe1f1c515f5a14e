//! # tessera-viewer
//!
//! The render graph viewer behind `tessera graph`. It reads only a compiled [`Plan`] and the
//! [`Graph`] it was compiled from, so it works on any frame file.
//!
//! - [`model`] derives the page model: plain data (pass rows in execution order grouped into
//!   render passes, queue lanes and semaphores, culled passes, attachments with their DRAM
//!   bytes, breaks with the bytes they cost, resource lifetimes, memory maps, barriers, history
//!   resources with their physical resources and the passes that hand their content to the
//!   next frame, totals, and for a plan with `frame_overlap` two consecutive frames on the
//!   queue lanes with the cross-frame waits and the memory the overlap costs).
//!   Every number comes from the plan, or from the graph's resource sizes where the plan names a
//!   resource, and is checked against the plan by the tests.
//! - [`html`] writes the model as one self-contained HTML page (inline CSS, JS and SVG; no
//!   network), [`dot`] as a Graphviz digraph.
//! - [`format`] writes byte sizes and counted nouns (the page's script follows the same rules).
//! - [`diff`] compares two plans (passes, merges, load/store ops, placements, barriers, bytes,
//!   history buffering), for `tessera plan --diff` and for the page's diff section.
//!
//! [`Plan`]: tessera_graph::Plan
//! [`Graph`]: tessera_graph::Graph

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diff;
pub mod dot;
pub mod format;
pub mod html;
pub mod model;

pub use diff::PlanDiff;
pub use model::Page;
