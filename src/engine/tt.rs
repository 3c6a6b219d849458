//! The transposition table: two-entry buckets keyed by the full Zobrist key. The first entry is
//! depth-preferred (replaced only by a deeper or equally deep result, or one from a newer search),
//! the second always takes the newest result. Mate scores are stored relative to the node and
//! converted back with the ply on probing. Moves read from the table are checked by the caller
//! before use.
//!
//! The table is shared by all search threads (Lazy SMP) without locks and without `unsafe`
//! (the one `unsafe` call is a cache prefetch hint, [`Table::prefetch`], which reads nothing): an
//! entry is two atomic words, the packed data and the key XOR the data. A reader accepts an entry
//! only if the two words it read XOR back to its key, so an entry torn by two threads writing at
//! once reads as a miss (or as another key), never as a mixture. Clearing the table bumps an
//! epoch kept in every entry instead of writing the whole table, so a new game costs nothing.

use super::search::{MATE, MATE_BOUND};
use crate::rules::Pos;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (no move reached alpha).
    Upper,
}

/// One entry, unpacked.
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

/// Four words: key ^ data and data of the first entry, then of the second. Aligned to its size so
/// that a bucket never straddles two cache lines (one memory access a probe, not two).
#[repr(C, align(32))]
struct Bucket([AtomicU64; WORDS_PER_BUCKET]);

/// The first word of each entry in its bucket: the depth-preferred entry, then the newest.
const FIRST: usize = 0;
const SECOND: usize = 2;

impl Bucket {
    fn load(&self, slot: usize, epoch: u64) -> Entry {
        let check = self.0[slot].load(Ordering::Relaxed);
        let data = self.0[slot + 1].load(Ordering::Relaxed);
        Entry::unpack(check, data, epoch)
    }

    fn save(&self, slot: usize, entry: &Entry, epoch: u64) {
        let data = entry.pack(epoch);
        self.0[slot + 1].store(data, Ordering::Relaxed);
        self.0[slot].store(entry.key ^ data, Ordering::Relaxed);
    }
}

pub struct Table {
    buckets: Box<[Bucket]>,
    generation: AtomicU8,
    /// Entries written before the last [`Table::clear`] carry an older epoch and read as empty.
    epoch: AtomicU64,
}

/// The `best` byte of an entry without a move (an off-board grid cell).
const NO_MOVE: u8 = 0xFF;

const WORDS_PER_BUCKET: usize = 4;
const ENTRY_BYTES: usize = WORDS_PER_BUCKET * std::mem::size_of::<u64>();
/// Bits of the data word that hold the epoch (the top ones).
const EPOCH_SHIFT: u32 = 40;
const EPOCH_MASK: u64 = (1 << (64 - EPOCH_SHIFT)) - 1;

impl Entry {
    fn pack(&self, epoch: u64) -> u64 {
        (self.score as u16 as u64)
            | (self.depth as u8 as u64) << 16
            | (self.meta as u64) << 24
            | (self.best as u64) << 32
            | epoch << EPOCH_SHIFT
    }

    /// The entry behind two words read from the table; empty if it is from an older epoch.
    fn unpack(check: u64, data: u64, epoch: u64) -> Entry {
        if data >> EPOCH_SHIFT != epoch {
            return Entry::default();
        }
        Entry {
            key: check ^ data,
            score: data as u16 as i16,
            depth: (data >> 16) as u8 as i8,
            meta: (data >> 24) as u8,
            best: (data >> 32) as u8,
        }
    }
}

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
            buckets: (0..buckets)
                .map(|_| Bucket([0, 0, 0, 0].map(AtomicU64::new)))
                .collect(),
            generation: AtomicU8::new(0),
            epoch: AtomicU64::new(0),
        }
    }

    /// Writes to every memory page of the table without changing it (a compare-exchange of 0 for
    /// 0 on one word a page). The allocator hands out zeroed memory that the system maps on first
    /// touch, a page fault each: untouched, the default table costs the first searches some
    /// 16,000 of them.
    pub fn touch_every_page(&self) {
        const BUCKETS_PER_PAGE: usize = 4096 / ENTRY_BYTES;
        for bucket in self.buckets.iter().step_by(BUCKETS_PER_PAGE) {
            // A compare-exchange writes even when it fails (and the optimiser keeps it, where it
            // turns an OR with 0 into a mere load), yet never changes a value.
            let _ = bucket.0[0].compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Forgets every entry. (A search still running meanwhile may keep a few of its results.)
    pub fn clear(&self) {
        let epoch = (self.epoch.load(Ordering::Relaxed) + 1) & EPOCH_MASK;
        if epoch == 0 {
            // The epoch wrapped: entries of the old epoch 0 would come back, so really erase.
            self.buckets
                .iter()
                .flat_map(|bucket| &bucket.0)
                .for_each(|w| w.store(0, Ordering::Relaxed));
        }
        self.epoch.store(epoch, Ordering::Relaxed);
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become replaceable.
    pub fn new_search(&self) {
        let generation = self.generation.load(Ordering::Relaxed);
        self.generation
            .store((generation + 1) & 63, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[(key as usize) & (self.buckets.len() - 1)]
    }

    /// Asks the processor to start loading `key`'s bucket into its cache, so that a probe made a
    /// little later (after the move is placed on the board) finds it there instead of waiting for
    /// memory. A no-op off x86-64.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const Bucket = self.bucket(key);
            // SAFETY: a prefetch is a hint that reads nothing the program sees and never faults;
            // the address is that of a live bucket besides.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64, ply: i32) -> Option<Hit> {
        let bucket = self.bucket(key);
        let epoch = self.epoch.load(Ordering::Relaxed);
        let entry = [FIRST, SECOND]
            .into_iter()
            .map(|slot| bucket.load(slot, epoch))
            .find(|e| e.key == key && e.meta & 3 != 0)?;
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
        &self,
        key: u64,
        ply: i32,
        score: i32,
        depth: i32,
        bound: Bound,
        best: Option<Pos>,
    ) {
        let generation = self.generation.load(Ordering::Relaxed);
        let epoch = self.epoch.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let code = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let first = bucket.load(FIRST, epoch);
        let (slot, old) = if first.key == key
            || first.meta & 3 == 0
            || first.meta >> 2 != generation
            || depth >= first.depth as i32
        {
            (FIRST, first)
        } else {
            (SECOND, bucket.load(SECOND, epoch))
        };
        // Keep an older best move when the new result has none.
        let old_best = if old.key == key { old.best } else { NO_MOVE };
        let entry = Entry {
            key,
            score: score_to_table(score, ply) as i16,
            depth: depth.clamp(-100, 100) as i8,
            meta: code | (generation << 2),
            best: best.map_or(old_best, |p| p.0),
        };
        bucket.save(slot, &entry, epoch);
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
        let table = Table::new(1 << 16);
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
    fn touching_every_page_keeps_every_entry() {
        // 8 pages of 4 KB: the touched words are the first of each page, entries included.
        let table = Table::new(8 * 4096);
        table.new_search();
        let buckets = table.buckets.len();
        let keys: Vec<u64> = (0..buckets as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for (i, &key) in keys.iter().enumerate() {
            table.store(key, 0, i as i32, 3, Bound::Exact, None);
        }
        let before: Vec<Option<i32>> = keys
            .iter()
            .map(|&k| table.probe(k, 0).map(|h| h.score))
            .collect();
        assert!(before.iter().filter(|v| v.is_some()).count() > buckets / 2);
        table.touch_every_page();
        let after: Vec<Option<i32>> = keys
            .iter()
            .map(|&k| table.probe(k, 0).map(|h| h.score))
            .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn buckets_never_straddle_two_cache_lines() {
        let table = Table::new(1 << 20);
        assert_eq!(table.buckets.as_ptr() as usize % ENTRY_BYTES, 0);
        assert_eq!(64 % ENTRY_BYTES, 0);
    }

    #[test]
    fn deeper_entries_survive_shallow_ones() {
        let table = Table::new(ENTRY_BYTES);
        table.new_search();
        table.store(1, 0, 10, 8, Bound::Exact, None);
        table.store(2, 0, 20, 2, Bound::Lower, None);
        table.store(3, 0, 30, 1, Bound::Upper, None);
        assert_eq!(table.probe(1, 0).unwrap().depth, 8);
        assert!(table.probe(2, 0).is_none());
        assert_eq!(table.probe(3, 0).unwrap().score, 30);
    }

    #[test]
    fn clearing_after_the_epoch_wraps_still_forgets() {
        let table = Table::new(1 << 12);
        table.epoch.store(EPOCH_MASK, Ordering::Relaxed);
        table.store(7, 0, 5, 3, Bound::Exact, None);
        assert!(table.probe(7, 0).is_some());
        table.clear();
        assert_eq!(table.epoch.load(Ordering::Relaxed), 0);
        assert!(table.probe(7, 0).is_none());
        table.store(7, 0, 5, 3, Bound::Lower, None);
        assert_eq!(table.probe(7, 0).unwrap().bound, Bound::Lower);
    }

    /// What a thread of the sharing test stores for `key`, so that any hit can be checked.
    fn expected(key: u64) -> (i32, i32, Pos) {
        let score = (key % 2000) as i32 - 1000;
        let depth = (key % 30) as i32;
        (score, depth, Pos((key % 200) as u8 + 17))
    }

    #[test]
    fn threads_sharing_a_tiny_table_never_read_a_torn_entry() {
        // 16 buckets for 4 threads writing 400 keys: entries are overwritten all the time.
        let table = Table::new(16 * ENTRY_BYTES);
        let keys: Vec<u64> = (1..=400u64)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let hits = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let (table, keys, hits) = (&table, &keys, &hits);
                scope.spawn(move || {
                    for round in 0..20_000 {
                        let key = keys[(round * 7 + thread * 101) % keys.len()];
                        let (score, depth, best) = expected(key);
                        table.store(key, 0, score, depth, Bound::Exact, Some(best));
                        let probed = keys[(round * 13 + thread * 37) % keys.len()];
                        if let Some(hit) = table.probe(probed, 0) {
                            let (score, depth, best) = expected(probed);
                            assert_eq!(
                                (hit.score, hit.depth, hit.best),
                                (score, depth, Some(best))
                            );
                            hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert!(hits.into_inner() > 0);
    }
}
