//! Quality of transient memory aliasing over random realistic frames: per size class, the
//! mean and worst ratio of aliased bytes to the lower bound, for the aliasing article's
//! algorithm and for Tessera's planner.
//!
//! `cargo run --release -p tessera-graph --example alias_quality [GRAPHS] [FIRST_SEED]`
//! (default 1200 graphs from seed 0; odd seeds use two queues). Results are printed per size
//! class for one queue, two queues, and all graphs. Each frame is compiled and its plan's
//! timeline is placed by both algorithms; the planner's total must equal the plan's.

#[path = "../tests/frames/mod.rs"]
mod frames;

use tessera_graph::compile::memory::{article, bound, planner, Problem, Timeline};
use tessera_graph::{compile, CompileOptions};

const CLASSES: &[(usize, usize)] = &[(5, 12), (13, 40), (41, 100), (101, 200)];

#[derive(Default)]
struct Stats {
    graphs: usize,
    sum: [f64; 2],
    worst: [f64; 2],
    better: usize,
    equal: usize,
    worse: usize,
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let graphs = args.first().copied().unwrap_or(1200);
    let first = args.get(1).copied().unwrap_or(0);
    // stats[queues - 1][class]
    let mut stats: Vec<Vec<Stats>> = (0..2)
        .map(|_| CLASSES.iter().map(|_| Stats::default()).collect())
        .collect();
    let mut rng = frames::Rng::new(first.wrapping_mul(31) + 7);
    for seed in first..first + graphs {
        let class = (seed / 2 % CLASSES.len() as u64) as usize;
        let (lo, hi) = CLASSES[class];
        let n = lo + rng.below(hi - lo + 1);
        let (graph, caps) = frames::frame(seed, n, seed % 2 == 1);
        let plan = match compile(&graph, &caps, &CompileOptions::ALL) {
            Ok(p) => p,
            Err(e) => panic!("seed {seed}: generated frame does not compile: {e}"),
        };
        let memoryless: Vec<bool> = graph
            .resources
            .iter()
            .map(|r| r.declared_memoryless())
            .collect();
        let timeline = Timeline::of_plan(&graph, &plan);
        let problem = Problem::new(&graph, &timeline, &caps, &memoryless);
        let lb = bound::lower_bound(&problem) as f64;
        let a = article::pack(&problem).total();
        let t = planner::pack(&problem).total();
        assert_eq!(
            t, plan.memory.aliased_bytes,
            "seed {seed}: the compiled plan uses the planner"
        );
        let s = &mut stats[usize::from(problem.by_level)][class];
        s.graphs += 1;
        for (k, total) in [a, t].into_iter().enumerate() {
            let r = total as f64 / lb;
            s.sum[k] += r;
            s.worst[k] = s.worst[k].max(r);
        }
        match t.cmp(&a) {
            std::cmp::Ordering::Less => s.better += 1,
            std::cmp::Ordering::Equal => s.equal += 1,
            std::cmp::Ordering::Greater => s.worse += 1,
        }
    }
    println!(
        "aliased bytes / lower bound over {graphs} random frames (seeds {first}..{})",
        first + graphs
    );
    println!("| queues | resources | graphs | article mean | article worst | planner mean | planner worst | planner better / equal / worse |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut all = Stats::default();
    for (q, per_class) in stats.iter().enumerate() {
        let mut sub = Stats::default();
        for ((lo, hi), s) in CLASSES.iter().zip(per_class) {
            row(&format!("{}", q + 1), &format!("{lo}–{hi}"), s);
            merge(&mut sub, s);
        }
        row(&format!("{}", q + 1), "all", &sub);
        merge(&mut all, &sub);
    }
    for (c, (lo, hi)) in CLASSES.iter().enumerate() {
        let mut sub = Stats::default();
        merge(&mut sub, &stats[0][c]);
        merge(&mut sub, &stats[1][c]);
        row("1+2", &format!("{lo}–{hi}"), &sub);
    }
    row("1+2", "all", &all);
}

fn merge(into: &mut Stats, s: &Stats) {
    into.graphs += s.graphs;
    for k in 0..2 {
        into.sum[k] += s.sum[k];
        into.worst[k] = into.worst[k].max(s.worst[k]);
    }
    into.better += s.better;
    into.equal += s.equal;
    into.worse += s.worse;
}

fn row(queues: &str, class: &str, s: &Stats) {
    let g = s.graphs.max(1) as f64;
    println!(
        "| {queues} | {class} | {} | {:.4} | {:.4} | {:.4} | {:.4} | {} / {} / {} |",
        s.graphs,
        s.sum[0] / g,
        s.worst[0],
        s.sum[1] / g,
        s.worst[1],
        s.better,
        s.equal,
        s.worse
    );
}
