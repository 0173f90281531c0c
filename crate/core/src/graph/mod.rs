//! The record graph of one transcript: uuid index, parent/children links, roots, and the
//! records off the active chain grouped into branches. Which leaf the client resumes from and
//! what it splices into the chain are the client's rules, built on this graph
//! (`crate::client::leaf::choose`, `crate::client::chain::active_chain`); the graph knows
//! nothing of them.
//!
//! Everything works on record indexes into a [`Scan`]; no transcript text is read here. Walks
//! are loop-safe: a parent cycle stops a walk and is reported, never hangs it.

use crate::scan::{record, Scan};
use rustc_hash::{FxHashMap, FxHashSet};

/// "No record" in index vectors.
pub const NONE: u32 = u32::MAX;

/// How a record is linked to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// No uuid, a root (`parentUuid` null or absent), or a record whose uuid a later one took.
    None,
    /// `parentUuid` names a record of the file.
    Parent,
    /// A compaction boundary (`parentUuid: null`) followed across its `logicalParentUuid`.
    Logical,
    /// `parentUuid` names no record; re-attached, as the client does, to the conversation record
    /// with the newest timestamp before the record's own.
    Reattached,
    /// `parentUuid` names no record and nothing could take its place (e.g. a slice's first record).
    Dangling,
}

/// Records not on the active chain, grouped into branches.
#[derive(Clone, Debug, Default)]
pub struct Branches {
    /// Records in branch order, file order within a branch.
    pub records: Vec<u32>,
    /// Per record: its branch's first record (the branch id).
    pub branch: Vec<u32>,
    /// Per record: the chain record its branch forks from, or [`NONE`] for a detached island.
    pub fork: Vec<u32>,
}

pub struct Graph<'a> {
    scan: &'a Scan,
    by_uuid: FxHashMap<&'a str, u32>,
    /// Records whose uuid a later record reuses; the later one takes their place (as in the
    /// client), so these are left out of the graph.
    pub duplicates: Vec<u32>,
    pub parent: Vec<u32>,
    pub link: Vec<Link>,
    child_start: Vec<u32>,
    child_list: Vec<u32>,
    pub roots: Vec<u32>,
}

fn is_kind(s: &Scan, r: &record::Record, k: &str) -> bool {
    r.kind.is_some_and(|v| s.str(v) == k)
}

impl<'a> Graph<'a> {
    pub fn new(scan: &'a Scan) -> Graph<'a> {
        let n = scan.records.len();
        let mut by_uuid: FxHashMap<&'a str, u32> = FxHashMap::default();
        by_uuid.reserve(n);
        let mut duplicates = Vec::new();
        for (i, r) in scan.records.iter().enumerate() {
            if let Some(u) = r.uuid {
                if let Some(old) = by_uuid.insert(scan.str(u), i as u32) {
                    duplicates.push(old);
                }
            }
        }
        duplicates.sort_unstable();
        let mut g = Graph {
            scan,
            by_uuid,
            duplicates,
            parent: vec![NONE; n],
            link: vec![Link::None; n],
            child_start: Vec::new(),
            child_list: Vec::new(),
            roots: Vec::new(),
        };
        let mut dangling = Vec::new();
        for i in 0..n {
            if !g.canonical(i as u32) {
                continue;
            }
            let r = &scan.records[i];
            let found = |u: Option<record::Str>| u.and_then(|u| g.by_uuid.get(scan.str(u)).copied());
            if r.parent_uuid.is_some() {
                match found(r.parent_uuid) {
                    Some(p) if p as usize != i => {
                        g.parent[i] = p;
                        g.link[i] = Link::Parent;
                    }
                    Some(_) => g.link[i] = Link::Dangling,
                    None => dangling.push(i as u32),
                }
            } else if let Some(p) = found(r.logical_parent_uuid).filter(|&p| p as usize != i) {
                g.parent[i] = p;
                g.link[i] = Link::Logical;
            }
        }
        g.reattach(&dangling);
        // Children, CSR.
        let mut count = vec![0u32; n + 1];
        for &p in &g.parent {
            if p != NONE {
                count[p as usize + 1] += 1;
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        g.child_list = vec![0; count[n] as usize];
        for (i, &p) in g.parent.iter().enumerate() {
            if p != NONE {
                g.child_list[fill[p as usize] as usize] = i as u32;
                fill[p as usize] += 1;
            }
        }
        g.child_start = count;
        g.roots = (0..n as u32).filter(|&i| g.canonical(i) && g.parent[i as usize] == NONE).collect();
        g
    }

    /// Dangling parents: the client re-attaches such a record to the conversation record with the
    /// newest timestamp before its own (observed on 2.1.332); without one, it stays a root.
    fn reattach(&mut self, dangling: &[u32]) {
        if dangling.is_empty() {
            return;
        }
        let s = self.scan;
        let mut by_time: Vec<(i64, u32)> = (0..s.records.len() as u32)
            .filter(|&i| self.canonical(i) && self.is_conversation(i))
            .filter_map(|i| s.records[i as usize].timestamp_ms.map(|t| (t, i)))
            .collect();
        by_time.sort_unstable();
        for &i in dangling {
            let own = s.records[i as usize].timestamp_ms;
            let before = own.map(|t| by_time.partition_point(|&(bt, _)| bt < t)).unwrap_or(0);
            if before > 0 {
                self.parent[i as usize] = by_time[before - 1].1;
                self.link[i as usize] = Link::Reattached;
            } else {
                self.link[i as usize] = Link::Dangling;
            }
        }
    }

    pub fn scan(&self) -> &'a Scan {
        self.scan
    }

    /// The record that holds `uuid` (the last one, when the uuid is duplicated).
    pub fn index_of(&self, uuid: &str) -> Option<u32> {
        self.by_uuid.get(uuid).copied()
    }

    /// The record has a uuid and no later record took it over.
    pub fn canonical(&self, i: u32) -> bool {
        let r = &self.scan.records[i as usize];
        r.uuid.is_some_and(|u| self.by_uuid.get(self.scan.str(u)) == Some(&i))
    }

    pub fn children(&self, i: u32) -> &[u32] {
        let (a, b) = (self.child_start[i as usize], self.child_start[i as usize + 1]);
        &self.child_list[a as usize..b as usize]
    }

    /// A `user` or `assistant` record of the main conversation (not a sidechain).
    pub fn is_conversation(&self, i: u32) -> bool {
        let r = &self.scan.records[i as usize];
        !r.has(record::F_SIDECHAIN) && (is_kind(self.scan, r, "user") || is_kind(self.scan, r, "assistant"))
    }

    /// From `i` up to its root (`i` first). Stops at a cycle; the flag says whether it did.
    pub fn ancestors(&self, i: u32) -> (Vec<u32>, bool) {
        let mut seen = FxHashSet::default();
        let mut out = Vec::new();
        let mut at = i;
        while at != NONE {
            if !seen.insert(at) {
                return (out, true);
            }
            out.push(at);
            at = self.parent[at as usize];
        }
        (out, false)
    }

    /// Whether any descendant of `i` is a conversation record (loop-safe).
    pub fn has_conversation_descendant(&self, i: u32) -> bool {
        let mut seen = FxHashSet::default();
        let mut stack: Vec<u32> = self.children(i).to_vec();
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            if self.is_conversation(c) {
                return true;
            }
            stack.extend_from_slice(self.children(c));
        }
        false
    }

    /// Records off the active chain (`chain`: its records, as `client::Chain::records`), grouped
    /// into branches (a branch is named by its first record below the chain). Only branches holding a conversation record are kept: progress
    /// and bookkeeping records hanging off the chain are not branches.
    pub fn branches(&self, chain: &[u32]) -> Branches {
        let n = self.scan.records.len();
        let on_chain: FxHashSet<u32> = chain.iter().copied().collect();
        // Branch root per record, memoised; NONE = not yet known.
        let mut root_of = vec![NONE; n];
        let mut fork_of = vec![NONE; n];
        for i in 0..n as u32 {
            if on_chain.contains(&i) || !self.canonical(i) || root_of[i as usize] != NONE {
                continue;
            }
            let mut path = vec![i];
            let mut seen: FxHashSet<u32> = [i].into_iter().collect();
            let (root, fork) = loop {
                let last = *path.last().unwrap();
                let p = self.parent[last as usize];
                if p == NONE || !seen.insert(p) {
                    break (last, NONE);
                }
                if on_chain.contains(&p) {
                    break (last, p);
                }
                if root_of[p as usize] != NONE {
                    break (root_of[p as usize], fork_of[p as usize]);
                }
                path.push(p);
            };
            for &q in &path {
                root_of[q as usize] = root;
                fork_of[q as usize] = fork;
            }
        }
        let mut keep: FxHashSet<u32> = FxHashSet::default();
        for i in 0..n as u32 {
            if root_of[i as usize] != NONE && self.is_conversation(i) {
                keep.insert(root_of[i as usize]);
            }
        }
        let mut recs: Vec<u32> =
            (0..n as u32).filter(|&i| root_of[i as usize] != NONE && keep.contains(&root_of[i as usize])).collect();
        recs.sort_by_key(|&i| (root_of[i as usize], i));
        Branches {
            branch: recs.iter().map(|&i| root_of[i as usize]).collect(),
            fork: recs.iter().map(|&i| fork_of[i as usize]).collect(),
            records: recs,
        }
    }

    /// The branches (ids as in [`Branches::branch`]) that fork from `chain` at record `at` or
    /// below it. Empty means the chain below `at` is a linear continuation: what a stale
    /// `last-prompt` pointer needs for the `auto` leaf policy (spliced fragments and results,
    /// progress and bookkeeping records are not branches).
    pub fn branches_below(&self, chain: &[u32], branches: &Branches, at: u32) -> Vec<u32> {
        let Some(from) = chain.iter().position(|&r| r == at) else {
            return Vec::new();
        };
        let pos: FxHashMap<u32, usize> = chain.iter().enumerate().map(|(k, &r)| (r, k)).collect();
        let mut out: Vec<u32> = branches
            .branch
            .iter()
            .zip(&branches.fork)
            .filter(|(_, f)| pos.get(f).is_some_and(|&p| p >= from))
            .map(|(b, _)| *b)
            .collect();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests;
