//! The engine on a worker thread. Each request carries a snapshot of the board, the limits, its
//! own stop flag and an id; progress and the answer come back through an `async-channel` that
//! the window drains in a `glib::spawn_future_local` loop. The window only applies replies whose
//! id is still current, so an answer that arrives after an undo or a new game is dropped.

use crate::engine::{Engine, EngineOptions, Limits, SearchInfo, SearchResult};
use crate::rules::Board;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;

/// Identifies one search request.
pub type RequestId = u64;

/// What the worker reports.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A completed depth.
    Info(RequestId, SearchInfo),
    /// The final answer.
    Done(RequestId, SearchResult),
}

impl Reply {
    pub fn id(&self) -> RequestId {
        match self {
            Reply::Info(id, _) | Reply::Done(id, _) => *id,
        }
    }
}

struct Request {
    id: RequestId,
    board: Board,
    limits: Limits,
    stop: Arc<AtomicBool>,
    clear: bool,
}

/// The window's handle on the worker thread.
pub struct EngineBridge {
    requests: Option<mpsc::Sender<Request>>,
    worker: Option<thread::JoinHandle<()>>,
    next_id: RequestId,
    current: Option<(RequestId, Arc<AtomicBool>)>,
    clear_next: bool,
}

impl EngineBridge {
    /// Starts the worker thread; replies arrive on the returned receiver.
    pub fn new() -> std::io::Result<(EngineBridge, async_channel::Receiver<Reply>)> {
        let (request_tx, request_rx) = mpsc::channel::<Request>();
        let (reply_tx, reply_rx) = async_channel::unbounded();
        let worker = thread::Builder::new()
            .name("gobang-engine".into())
            .spawn(move || worker_loop(&request_rx, &reply_tx))?;
        Ok((
            EngineBridge {
                requests: Some(request_tx),
                worker: Some(worker),
                next_id: 1,
                current: None,
                clear_next: false,
            },
            reply_rx,
        ))
    }

    /// Stops any running search and starts a new one on a copy of `board`.
    pub fn start(&mut self, board: &Board, limits: Limits) -> RequestId {
        self.stop();
        let id = self.next_id;
        self.next_id += 1;
        let stop = Arc::new(AtomicBool::new(false));
        let request = Request {
            id,
            board: board.clone(),
            limits,
            stop: Arc::clone(&stop),
            clear: std::mem::take(&mut self.clear_next),
        };
        if let Some(requests) = &self.requests {
            // A send error means the worker has gone (it only stops when the bridge is dropped).
            let _ = requests.send(request);
        }
        self.current = Some((id, stop));
        id
    }

    /// Stops the running search at once; its answer, if any, will be stale.
    pub fn stop(&mut self) {
        if let Some((_, stop)) = self.current.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// The next search forgets what the engine learned (a new game).
    pub fn clear_tables(&mut self) {
        self.clear_next = true;
    }

    /// The id of the search whose replies are still wanted.
    pub fn current(&self) -> Option<RequestId> {
        self.current.as_ref().map(|(id, _)| *id)
    }

    /// Marks the current search as answered (its `Done` arrived).
    pub fn finish(&mut self, id: RequestId) {
        if self.current() == Some(id) {
            self.current = None;
        }
    }

    pub fn is_busy(&self) -> bool {
        self.current.is_some()
    }

    /// Stops the search, closes the request channel and waits for the worker to finish.
    pub fn shutdown(&mut self) {
        self.stop();
        self.requests = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

impl Drop for EngineBridge {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Lowers the calling thread's scheduling priority (nice 10): when the engine and the window
/// compete for the cores, drawing the window wins and the engine loses a little time.
fn yield_to_the_window() {
    // SAFETY: `gettid` and `setpriority` only read their integer arguments; on Linux a nice
    // value belongs to one thread, so this leaves the main thread's priority alone. Failure
    // (not permitted) just leaves the priority as it was.
    unsafe {
        let thread = libc::gettid() as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, thread, 10);
    }
}

/// Most search threads the app uses.
const MAX_SEARCH_THREADS: usize = 8;

/// One search thread per core but one (left to the window), at least one: helper threads bring
/// the app's long searches to a given depth sooner (a 5 s search: depth 10 in 1.3 s instead of
/// 2.7 s), though at 200 ms a move two threads played no better than one (README, session 21),
/// and the window must still be drawn while the engine thinks.
fn search_threads() -> usize {
    thread::available_parallelism()
        .map_or(1, |cores| cores.get().saturating_sub(1))
        .clamp(1, MAX_SEARCH_THREADS)
}

fn worker_loop(requests: &mpsc::Receiver<Request>, replies: &async_channel::Sender<Reply>) {
    // Before the engine starts its helper threads, which inherit the priority.
    yield_to_the_window();
    let mut engine = Engine::with_options(EngineOptions {
        threads: search_threads(),
        ..EngineOptions::default()
    });
    // While the player looks at the new window, not during the first hint.
    engine.touch_tables();
    while let Ok(request) = requests.recv() {
        if request.clear {
            engine.clear();
        }
        if request.stop.load(Ordering::Relaxed) {
            continue;
        }
        let id = request.id;
        let mut on_info = |info: &SearchInfo| {
            let _ = replies.send_blocking(Reply::Info(id, info.clone()));
        };
        let result = engine.search(&request.board, &request.limits, &request.stop, &mut on_info);
        if replies.send_blocking(Reply::Done(id, result)).is_err() {
            break;
        }
    }
}
