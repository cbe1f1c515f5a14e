//! Sufficient synchronisation index sets (SSIS): the cross-queue wait minimisation of the
//! DAG article, on an abstract problem (nodes on queues) so it can be tested on the article's
//! own scenarios, including its three-queue one.
//!
//! Every node has a 1-based index on its queue. The SSIS of a node holds, per queue, the
//! highest index on that queue known to have completed before the node starts: its own
//! index for its own queue, and whatever its queue predecessor and its kept waits bring. A
//! node's *needs* are, per other queue, the highest index among its direct cross-queue
//! dependencies. Nodes are processed in a topological order; a node starts from its queue
//! predecessor's SSIS (same-queue order is implicit and never a semaphore), then, while some
//! queue's need is not covered, keeps the dependency whose SSIS covers the most uncovered
//! queues (ties: the higher index) and merges that SSIS into its own. Dependencies never
//! picked are implied by the kept ones plus queue order, and are dropped.
//!
//! Invariants: every need is covered by the end (the latest dependency on a queue always
//! covers that queue, so each round covers at least one); kept waits are a subset of the
//! dependencies; with two queues a node keeps at most one wait, and no kept wait is implied by
//! the others (each is kept only when its queue was still uncovered, and later choices never
//! change an earlier node's SSIS). Cost: O(nodes · queues · deps²) in the worst case, linear in
//! practice.

/// Lists of items, one per owner, kept in one buffer: the list of owner `v` is
/// `items[start[v]..start[v + 1]]`. Replaces a `Vec<Vec<_>>` (one allocation per owner) in
/// the sync phase, where every pass may own a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lists<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Lists {
            start: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T: Copy + PartialEq> Lists<T> {
    /// One list per entry of `lists`.
    pub fn from_lists(lists: &[Vec<T>]) -> Self {
        let mut out = Lists {
            start: Vec::with_capacity(lists.len() + 1),
            items: Vec::with_capacity(lists.iter().map(Vec::len).sum()),
        };
        out.start.push(0);
        for l in lists {
            out.items.extend_from_slice(l);
            out.start.push(out.items.len() as u32);
        }
        out
    }

    /// The distinct items of each of `owners` owners, from `(owner, item)` pairs, each list
    /// in the order its items first appear. A counting sort by owner (stable), then each
    /// list drops repeats: O(pairs + owners + Σ list²), lists being short.
    pub fn distinct_by_owner(owners: usize, pairs: &[(u32, T)]) -> Self {
        let mut start = vec![0u32; owners + 1];
        for &(o, _) in pairs {
            start[o as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        // Every slot is overwritten once below; the initial values only give the length.
        let mut items: Vec<T> = pairs.iter().map(|&(_, x)| x).collect();
        for &(o, x) in pairs {
            let at = &mut next[o as usize];
            items[*at as usize] = x;
            *at += 1;
        }
        // Copy each list, dropping repeats.
        let mut out = Vec::with_capacity(pairs.len());
        let mut begin = 0u32;
        for o in 0..owners {
            let list = start[o] as usize..start[o + 1] as usize;
            start[o] = begin;
            let first = out.len();
            for x in &items[list] {
                if !out[first..].contains(x) {
                    out.push(*x);
                }
            }
            begin = out.len() as u32;
        }
        start[owners] = begin;
        Lists { start, items: out }
    }

    /// The list of `owner`.
    pub fn of(&self, owner: usize) -> &[T] {
        &self.items[self.start[owner] as usize..self.start[owner + 1] as usize]
    }

    /// Where the list of `owner` lies in [`Lists::all`].
    pub fn range_of(&self, owner: usize) -> std::ops::Range<usize> {
        self.start[owner] as usize..self.start[owner + 1] as usize
    }

    /// Every list, one after the other.
    pub fn all(&self) -> &[T] {
        &self.items
    }

    /// Number of owners.
    pub fn owners(&self) -> usize {
        self.start.len() - 1
    }
}

/// The minimisation problem: nodes on queues, with their cross-queue dependencies.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// Number of queues.
    pub queues: usize,
    /// Queue of each node.
    pub queue: Vec<usize>,
    /// 1-based index of each node on its queue.
    pub index: Vec<u32>,
    /// Previous node on the same queue.
    pub prev: Vec<Option<usize>>,
    /// Direct dependencies on other queues (distinct), one list per node.
    pub deps: Lists<usize>,
    /// Processing order: a topological order of queue order plus `deps`.
    pub order: Vec<usize>,
}

/// The kept waits and the final SSIS of each node.
#[derive(Clone, Debug, Default)]
pub struct Solution {
    /// Number of queues (the stride of `ssis` and `via`).
    pub queues: usize,
    /// Kept dependencies of all nodes, each node's together in the order they were chosen;
    /// nodes in processing order (see [`Solution::kept_of`]).
    kept: Vec<usize>,
    /// Where the kept dependencies of each node lie in `kept`.
    kept_at: Vec<(u32, u32)>,
    /// SSIS of each node after its waits: `ssis[node * queues + queue]`.
    pub ssis: Vec<u32>,
    /// For each node and queue (same layout as `ssis`), the kept wait `(waiting node,
    /// dependency)` the SSIS entry came from (directly or through queue order); `None` for
    /// the node's own queue or nothing.
    pub via: Vec<Option<(usize, usize)>>,
}

impl Solution {
    /// SSIS of `node`, one entry per queue.
    pub fn ssis_of(&self, node: usize) -> &[u32] {
        &self.ssis[node * self.queues..(node + 1) * self.queues]
    }

    /// Where each SSIS entry of `node` came from.
    pub fn via_of(&self, node: usize) -> &[Option<(usize, usize)>] {
        &self.via[node * self.queues..(node + 1) * self.queues]
    }

    /// Kept dependencies of `node`, in the order they were chosen.
    pub fn kept_of(&self, node: usize) -> &[usize] {
        let (a, b) = self.kept_at[node];
        &self.kept[a as usize..b as usize]
    }
}

/// Solves `problem`; with `minimize` off every dependency is kept.
pub fn solve(problem: &Problem, minimize: bool) -> Solution {
    let n = problem.queue.len();
    let q = problem.queues;
    let mut sol = Solution {
        queues: q,
        kept: Vec::new(),
        kept_at: vec![(0, 0); n],
        ssis: vec![0; n * q],
        via: vec![None; n * q],
    };
    let mut done = vec![false; n];
    let mut need = vec![0u32; q];
    let mut candidates: Vec<usize> = Vec::new();
    for &v in &problem.order {
        let own = problem.queue[v];
        let row = v * q;
        if let Some(p) = problem.prev[v] {
            sol.ssis.copy_within(p * q..p * q + q, row);
            sol.via.copy_within(p * q..p * q + q, row);
        }
        sol.ssis[row + own] = problem.index[v];
        sol.via[row + own] = None;
        // SSIS entry of a dependency; one not processed yet (only when the caller's order is
        // not topological) is known to have finished itself and nothing else.
        let entry = |sol: &Solution, u: usize, k: usize| -> u32 {
            if done[u] {
                sol.ssis[u * q + k]
            } else if problem.queue[u] == k {
                problem.index[u]
            } else {
                0
            }
        };
        need.iter_mut().for_each(|x| *x = 0);
        for &u in problem.deps.of(v) {
            let qu = problem.queue[u];
            need[qu] = need[qu].max(problem.index[u]);
        }
        candidates.clear();
        candidates.extend_from_slice(problem.deps.of(v));
        let first_kept = sol.kept.len() as u32;
        let merge = |sol: &mut Solution, u: usize| {
            for k in (0..q).filter(|&k| k != own) {
                let x = entry(sol, u, k);
                if x > sol.ssis[row + k] {
                    sol.ssis[row + k] = x;
                    sol.via[row + k] = Some((v, u));
                }
            }
        };
        if minimize {
            loop {
                let uncovered = |sol: &Solution, k: usize| k != own && need[k] > sol.ssis[row + k];
                if !(0..q).any(|k| uncovered(&sol, k)) {
                    break;
                }
                let best = candidates
                    .iter()
                    .enumerate()
                    .map(|(i, &u)| {
                        let covers = (0..q)
                            .filter(|&k| uncovered(&sol, k) && entry(&sol, u, k) >= need[k])
                            .count();
                        (
                            covers,
                            problem.index[u],
                            std::cmp::Reverse(problem.queue[u]),
                            i,
                        )
                    })
                    .max();
                let Some((covers, _, _, i)) = best.filter(|b| b.0 > 0) else {
                    debug_assert!(false, "the latest dependency on a queue always covers it");
                    break;
                };
                let u = candidates.swap_remove(i);
                log::trace!("ssis: node {v} keeps wait on node {u} (covers {covers} queue(s))");
                merge(&mut sol, u);
                sol.kept.push(u);
            }
        } else {
            for &u in &candidates {
                merge(&mut sol, u);
                sol.kept.push(u);
            }
        }
        sol.kept_at[v] = (first_kept, sol.kept.len() as u32);
        done[v] = true;
    }
    sol
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a problem from queue lists (node ids in queue order) and `(node, deps)` lists;
    /// node ids are the article's pass numbers, and the processing order is by id.
    fn problem(queues: &[&[usize]], deps: &[(usize, &[usize])]) -> Problem {
        let n = queues
            .iter()
            .flat_map(|q| q.iter())
            .max()
            .map_or(0, |m| m + 1);
        let mut p = Problem {
            queues: queues.len(),
            queue: vec![0; n],
            index: vec![0; n],
            prev: vec![None; n],
            deps: Lists::default(),
            order: Vec::new(),
        };
        let mut lists = vec![Vec::new(); n];
        for (qi, list) in queues.iter().enumerate() {
            for (i, &node) in list.iter().enumerate() {
                p.queue[node] = qi;
                p.index[node] = i as u32 + 1;
                p.prev[node] = i.checked_sub(1).map(|j| list[j]);
            }
        }
        for &(v, ds) in deps {
            lists[v] = ds
                .iter()
                .copied()
                .filter(|&u| p.queue[u] != p.queue[v])
                .collect();
        }
        p.deps = Lists::from_lists(&lists);
        // Topological: queue order plus deps (Kahn by smallest id first).
        let mut placed = vec![false; n];
        let present: Vec<usize> = queues.iter().flat_map(|q| q.iter().copied()).collect();
        while p.order.len() < present.len() {
            let next = present
                .iter()
                .copied()
                .filter(|&v| !placed[v])
                .filter(|&v| {
                    p.prev[v].is_none_or(|x| placed[x]) && p.deps.of(v).iter().all(|&u| placed[u])
                })
                .min()
                .expect("acyclic");
            placed[next] = true;
            p.order.push(next);
        }
        p
    }

    #[test]
    fn distinct_lists_keep_first_appearance_order_per_owner() {
        let pairs = [(2, 7), (0, 5), (2, 3), (2, 7), (0, 5), (3, 1), (2, 9)];
        let lists = Lists::distinct_by_owner(4, &pairs);
        assert_eq!(lists.owners(), 4);
        assert_eq!(lists.of(0), [5]);
        assert!(lists.of(1).is_empty());
        assert_eq!(lists.of(2), [7, 3, 9]);
        assert_eq!(lists.of(3), [1]);
        assert_eq!(lists.all(), [5, 7, 3, 9, 1]);
        assert_eq!(lists.range_of(2), 1..4);
        assert_eq!(
            lists,
            Lists::from_lists(&[vec![5], vec![], vec![7, 3, 9], vec![1]])
        );
    }

    #[test]
    fn scenario_1_waits_only_on_the_latest_producer() {
        // Queue 0: 1 2 3, queue 1: 4 5 6; pass 3 depends on 4 and 5.
        let p = problem(&[&[1, 2, 3], &[4, 5, 6]], &[(3, &[4, 5])]);
        let s = solve(&p, true);
        assert_eq!(s.kept_of(3), [5]);
        assert_eq!(
            s.ssis_of(3),
            [3, 2],
            "SSIS of 3 is (own 3, closest on queue 1 = 5 at index 2)"
        );
    }

    #[test]
    fn scenario_2_second_consumer_is_implied_by_queue_order() {
        // Queue 0: 1 2 3, queue 1: 4 5 6; passes 5 and 6 depend on 1.
        let p = problem(&[&[1, 2, 3], &[4, 5, 6]], &[(5, &[1]), (6, &[1])]);
        let s = solve(&p, true);
        assert_eq!(s.kept_of(5), [1]);
        assert!(
            s.kept_of(6).is_empty(),
            "6 -> 1 is implied by 5 -> 1 plus queue order"
        );
        assert_eq!(s.via_of(6)[0], Some((5, 1)));
        let all = solve(&p, false);
        assert_eq!(all.kept_of(6), [1]);
    }

    #[test]
    fn scenario_3_three_queues_need_the_iterative_cover() {
        // Queue 0: 1, queue 1: 2 3, queue 2: 4 5 6; 3 depends on 1, 6 on 1, 3 and 5.
        let p = problem(&[&[1], &[2, 3], &[4, 5, 6]], &[(3, &[1]), (6, &[1, 3, 5])]);
        let s = solve(&p, true);
        assert_eq!(s.kept_of(3), [1]);
        assert_eq!(
            s.kept_of(6),
            [3],
            "3 covers queues 0 and 1; queue 2 is 6's own (5 precedes it)"
        );
        assert_eq!(s.ssis_of(6), [1, 2, 3]);
    }

    #[test]
    fn greedy_keeps_several_waits_when_no_single_one_covers() {
        // Queue 0: 1, queue 1: 2, queue 2: 3; 3 depends on 1 and 2, which are unrelated.
        let p = problem(&[&[1], &[2], &[3]], &[(3, &[1, 2])]);
        let s = solve(&p, true);
        let mut kept = s.kept_of(3).to_vec();
        kept.sort();
        assert_eq!(kept, vec![1, 2]);
    }
}
