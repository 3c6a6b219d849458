//! Lazy SMP helper threads. Each helper is a long-lived thread with its own VCF/VCT tables and
//! history, waiting for search jobs on a channel. A job names the position and its root moves
//! (the main thread has already left out those that lose to a VCT), the shared
//! transposition table, the main thread's start and hard deadline, a `done` flag that the main
//! thread sets when it has its answer, and a node counter the helper adds to as it goes.
//!
//! The main thread never waits for its helpers: it sets `done` and returns, and each helper stops
//! at its next look at the clock (every few nodes). So a helper that the machine's scheduler
//! keeps off the CPU cannot make the answer late. Jobs and table clearings are handled in order,
//! so a helper finishing an old job simply starts the next one a moment later.

use super::eval::Evaluator;
use super::search::{Searcher, ThreadTables};
use super::time::TimeControl;
use super::tt::Table;
use super::MAX_DEPTH;
use crate::rules::{Board, Pos};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Stack of a helper thread (the search recurses through the main search, VCF and VCT).
const STACK_BYTES: usize = 16 << 20;

/// One search for the helpers.
#[derive(Clone)]
pub struct Job {
    pub board: Board,
    /// The root moves to search: the ones the main thread kept (see
    /// [`Searcher::prepare_root`]), best-looking first.
    pub root_moves: Vec<(Pos, i32)>,
    pub tt: Arc<Table>,
    pub use_tt: bool,
    pub evaluator: Evaluator,
    /// The main thread's start and hard deadline.
    pub start: Instant,
    pub hard: Duration,
    /// Set by the main thread when it has its answer.
    pub done: Arc<AtomicBool>,
    /// The helpers' nodes.
    pub nodes: Arc<AtomicU64>,
}

enum Message {
    Search(Box<Job>),
    Clear,
}

struct Worker {
    jobs: Sender<Message>,
    handle: JoinHandle<()>,
}

/// The helper threads of an engine (none for a single-threaded one).
#[derive(Default)]
pub struct Helpers {
    workers: Vec<Worker>,
}

impl Helpers {
    /// `count` helper threads (fewer if the system refuses to start some).
    pub fn new(count: usize) -> Helpers {
        let mut helpers = Helpers::default();
        helpers.resize(count);
        helpers
    }

    pub fn len(&self) -> usize {
        self.workers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    /// Starts or ends helper threads until there are `count` (as many as can be started).
    pub fn resize(&mut self, count: usize) {
        while self.workers.len() > count {
            if let Some(worker) = self.workers.pop() {
                worker.finish();
            }
        }
        while self.workers.len() < count {
            let index = self.workers.len() + 1;
            let (jobs, inbox) = mpsc::channel();
            let spawned = thread::Builder::new()
                .name(format!("search helper {index}"))
                .stack_size(STACK_BYTES)
                .spawn(move || {
                    let mut tables = ThreadTables::default();
                    for message in inbox {
                        match message {
                            Message::Clear => tables.clear(),
                            Message::Search(job) => {
                                let searched = panic::catch_unwind(AssertUnwindSafe(|| {
                                    search(&job, &mut tables, index)
                                }));
                                if searched.is_err() {
                                    // Only speed is lost; start again from clean tables.
                                    tables = ThreadTables::default();
                                }
                            }
                        }
                    }
                });
            match spawned {
                Ok(handle) => self.workers.push(Worker { jobs, handle }),
                // A helper that cannot be started only costs speed.
                Err(_) => break,
            }
        }
    }

    /// Every helper starts searching `job`.
    pub fn start(&self, job: &Job) {
        for worker in &self.workers {
            // A helper that is gone (it cannot be: panics are caught) would only cost speed.
            let _ = worker.jobs.send(Message::Search(Box::new(job.clone())));
        }
    }

    /// Every helper forgets its VCF/VCT tables and history.
    pub fn clear(&self) {
        for worker in &self.workers {
            let _ = worker.jobs.send(Message::Clear);
        }
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        for worker in self.workers.drain(..) {
            worker.finish();
        }
    }
}

impl Worker {
    /// Closes the worker's inbox and waits for it to end (its last job was told to stop).
    fn finish(self) {
        drop(self.jobs);
        let _ = self.handle.join();
    }
}

fn search(job: &Job, tables: &mut ThreadTables, index: usize) {
    tables.age_history();
    let clock = TimeControl::for_helper(job.start, job.hard, &job.done, &job.nodes);
    let board = job.board.clone();
    let mut root_moves = job.root_moves.clone();
    Searcher::new(
        board,
        &job.tt,
        job.use_tt,
        tables,
        &job.evaluator,
        clock,
        MAX_DEPTH,
    )
    .run_helper(index, &mut root_moves);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::movegen::{analyse, generate};
    use crate::engine::Weights;
    use crate::rules::{Move, Rule};
    use std::sync::atomic::Ordering;

    /// A midgame position (Black to move) and all its root moves.
    fn midgame() -> (Board, Vec<(Pos, i32)>) {
        let moves: Vec<Move> = "h8 i9 j8 i8 i7 h6 g9 j10"
            .split_whitespace()
            .map(|m| Move::Place(m.parse::<Pos>().unwrap()))
            .collect();
        let mut board = Board::from_moves(Rule::Renju, &moves).unwrap();
        let mut root_moves = Vec::new();
        let status = analyse(&mut board);
        generate(&mut board, status, &mut root_moves);
        (board, root_moves)
    }

    fn job(board: Board, root_moves: Vec<(Pos, i32)>) -> Job {
        Job {
            evaluator: Evaluator::new(&Weights::default(), board.rule()),
            board,
            root_moves,
            tt: Arc::new(Table::new(1 << 20)),
            use_tt: true,
            start: Instant::now(),
            hard: Duration::from_secs(3600),
            done: Arc::new(AtomicBool::new(false)),
            nodes: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Lets `helpers` search `job` until they have reported `nodes` nodes, then stops them
    /// (dropping waits for every helper to end its job: they must see `done`).
    fn search_until(helpers: Helpers, job: &Job, nodes: u64) {
        helpers.start(job);
        let patience = Instant::now() + Duration::from_secs(60);
        while job.nodes.load(Ordering::Relaxed) < nodes {
            assert!(Instant::now() < patience, "the helpers do not search");
            thread::sleep(Duration::from_millis(5));
        }
        job.done.store(true, Ordering::Relaxed);
        drop(helpers);
    }

    #[test]
    fn helpers_search_until_told_they_are_done() {
        let (board, root_moves) = midgame();
        let helpers = Helpers::new(2);
        assert_eq!(helpers.len(), 2);
        let job = job(board, root_moves);
        search_until(helpers, &job, 1);
        assert!(job.nodes.load(Ordering::Relaxed) > 0);
    }

    #[test]
    fn helpers_search_only_the_root_moves_they_are_given() {
        // The main thread leaves out root moves that lose to a VCT; a helper must not search them
        // again. Every position the helper visits holds the stone of one of the two kept root
        // moves, so the position right after a left-out root move (which holds neither) can only
        // be in the table if the helper searched that move.
        let (board, root_moves) = midgame();
        assert!(root_moves.len() > 10, "{root_moves:?}");
        let kept: Vec<(Pos, i32)> = root_moves[..2].to_vec();
        let job = job(board.clone(), kept.clone());
        search_until(Helpers::new(1), &job, 20_000);
        let key_after = |p: Pos| {
            let mut after = board.clone();
            after.make_move(p);
            after.hash()
        };
        // (One kept move's entry may be missing although it was searched: a node cut off by
        // the null move stores nothing, and a later store may replace an entry.)
        assert!(
            kept.iter()
                .any(|&(p, _)| job.tt.probe(key_after(p), 1).is_some()),
            "neither {kept:?} was searched"
        );
        for &(p, _) in root_moves.iter().filter(|m| !kept.contains(m)) {
            assert!(job.tt.probe(key_after(p), 1).is_none(), "{p} was searched");
        }
    }
}
