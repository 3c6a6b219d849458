//! The transposition table: two-entry buckets keyed by the full Zobrist key. The first entry is
//! depth-preferred (replaced only by a deeper or equally deep result, or one from a newer search),
//! the second always takes the newest result. Mate scores are stored relative to the node and
//! converted back with the ply on probing. Moves read from the table are checked by the caller
//! before use.

use super::search::{MATE, MATE_BOUND};
use crate::rules::Pos;

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (no move reached alpha).
    Upper,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i16,
    depth: i8,
    /// Bound in bits 0-1 (0 = empty), generation in bits 2-7.
    meta: u8,
    best: u8,
}

/// A probe hit.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    pub best: Option<Pos>,
}

pub struct Table {
    entries: Vec<[Entry; 2]>,
    generation: u8,
}

/// The `best` byte of an entry without a move (an off-board grid cell).
const NO_MOVE: u8 = 0xFF;

const ENTRY_BYTES: usize = std::mem::size_of::<[Entry; 2]>();

impl Table {
    /// A table using at most about `bytes` of memory (at least one bucket).
    pub fn new(bytes: usize) -> Table {
        let buckets = (bytes / ENTRY_BYTES).max(1);
        let buckets = if buckets.is_power_of_two() {
            buckets
        } else {
            buckets.next_power_of_two() / 2
        };
        Table {
            entries: vec![[Entry::default(); 2]; buckets],
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.entries.fill([Entry::default(); 2]);
        self.generation = 0;
    }

    /// Starts a new search: older entries become replaceable.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    fn bucket(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 1)
    }

    pub fn probe(&self, key: u64, ply: i32) -> Option<Hit> {
        let bucket = &self.entries[self.bucket(key)];
        let entry = bucket.iter().find(|e| e.key == key && e.meta & 3 != 0)?;
        let bound = match entry.meta & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Hit {
            score: score_from_table(entry.score as i32, ply),
            depth: entry.depth as i32,
            bound,
            best: (entry.best != NO_MOVE).then_some(Pos(entry.best)),
        })
    }

    pub fn store(
        &mut self,
        key: u64,
        ply: i32,
        score: i32,
        depth: i32,
        bound: Bound,
        best: Option<Pos>,
    ) {
        let generation = self.generation;
        let index = self.bucket(key);
        let bucket = &mut self.entries[index];
        let code = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let first = &bucket[0];
        let slot = if first.key == key
            || first.meta & 3 == 0
            || first.meta >> 2 != generation
            || depth >= first.depth as i32
        {
            0
        } else {
            1
        };
        // Keep an older best move when the new result has none.
        let old_best = if bucket[slot].key == key {
            bucket[slot].best
        } else {
            NO_MOVE
        };
        bucket[slot] = Entry {
            key,
            score: score_to_table(score, ply) as i16,
            depth: depth.clamp(-100, 100) as i8,
            meta: code | (generation << 2),
            best: best.map_or(old_best, |p| p.0),
        };
    }
}

/// Mate scores count plies from the root; the table stores them counted from the node.
fn score_to_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

fn score_from_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        (score - ply).min(MATE)
    } else if score <= -MATE_BOUND {
        (score + ply).max(-MATE)
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_with_mate_adjustment() {
        let mut table = Table::new(1 << 16);
        table.new_search();
        let key = 0x1234_5678_9abc_def0;
        table.store(key, 4, MATE - 9, 6, Bound::Exact, Some(Pos::CENTER));
        let hit = table.probe(key, 2).unwrap();
        assert_eq!(hit.score, MATE - 7);
        assert_eq!(hit.best, Some(Pos::CENTER));
        assert_eq!(hit.bound, Bound::Exact);
        assert!(table.probe(key ^ 1, 2).is_none());
        table.clear();
        assert!(table.probe(key, 2).is_none());
    }

    #[test]
    fn deeper_entries_survive_shallow_ones() {
        let mut table = Table::new(ENTRY_BYTES);
        table.new_search();
        table.store(1, 0, 10, 8, Bound::Exact, None);
        table.store(2, 0, 20, 2, Bound::Lower, None);
        table.store(3, 0, 30, 1, Bound::Upper, None);
        assert_eq!(table.probe(1, 0).unwrap().depth, 8);
        assert!(table.probe(2, 0).is_none());
        assert_eq!(table.probe(3, 0).unwrap().score, 30);
    }
}
