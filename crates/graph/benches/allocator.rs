//! The benchmarks' global allocator: mimalloc, the allocator the `tessera` binary ships
//! with, so that the figures are those of the shipped build. Under glibc's malloc the
//! figures depend on the heap's history: a compile frees ~1.5 MB of scratch, glibc may
//! return it to the kernel (heap-top trimming) and the next compile faults it back in,
//! ~0.3 ms of a 1,000-pass compile when it happens. `benches/compile_system_alloc.rs`
//! keeps the system allocator's figure measured too (docs/perf.md).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
