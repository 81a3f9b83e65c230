//! Fuzz targets for every parser of outside input (issue 35, item 6), and what runs them.
//!
//! A target makes one input from a [`Gen`] (structure-aware: inputs of the right shape with odd
//! values and damaged bytes, see [`gen`]), hands it to the parser, and checks what came back: no
//! panic, an error that names its place, a result that keeps the parser's promises. [`run_one`]
//! adds the bounds every input must keep, on time and on memory (the peak of what the parser
//! allocated, counted by [`Counting`], which a binary must install as its global allocator).
//!
//! The runner is plain Rust (stable, no libFuzzer): `cargo run --release -p spiceboard-fuzz --
//! TARGET N`, or `scripts/fuzz` for every target with a table of the figures.

pub mod gen;
pub mod targets;

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

pub use gen::Gen;

/// One fuzz target.
pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// Makes input number `index` into `input` (kept so that a failure can be saved) and checks
    /// what the parser makes of it.
    pub case: fn(&mut Gen, &mut Vec<u8>) -> Result<(), String>,
    /// The longest one input may take, in a release build.
    pub max_time: Duration,
    /// The most the parser may allocate beyond the input, per byte of input and in all.
    pub max_bytes_per_input_byte: usize,
    pub max_bytes_base: usize,
}

/// The global allocator of the fuzz binaries: the system's, counting live bytes and their peak.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// What was live when the parser started.
static BASE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// When the parser started, in the process's CPU time.
    static START: std::cell::Cell<Option<Duration>> = const { std::cell::Cell::new(None) };
}

/// The CPU time the process has used (all its threads): what an input costs, whatever else the
/// machine runs (wall time failed inputs of a few milliseconds on a loaded machine, where a
/// low-priority run waited 500 ms for a core).
fn cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write; the clock id is a constant Linux has.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    if ok {
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    } else {
        Duration::ZERO
    }
}

/// Whether [`parsing_starts`] keeps a copy of each input (to save one that hangs or aborts).
static KEEP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static CURRENT: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// From now on, keep a copy of each input for [`current_input`].
pub fn keep_inputs() {
    KEEP.store(true, Ordering::Relaxed);
}

/// The input being parsed (empty unless [`keep_inputs`] was called).
pub fn current_input() -> Vec<u8> {
    CURRENT.lock().map(|c| c.clone()).unwrap_or_default()
}

/// Called by a target once its input is made: time and memory count from here (making the
/// input is not the parser's cost).
pub fn parsing_starts(input: &[u8]) {
    if KEEP.load(Ordering::Relaxed) {
        if let Ok(mut c) = CURRENT.lock() {
            c.clear();
            c.extend_from_slice(input);
        }
    }
    let live = LIVE.load(Ordering::Relaxed);
    BASE.store(live, Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    START.with(|s| s.set(Some(cpu_time())));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// The message of the last panic (the hook keeps it instead of printing it).
static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Keeps panics' messages for [`run_one`] instead of printing them. Call once.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut p) = PANIC.lock() {
            *p = Some(info.to_string());
        }
    }));
}

/// What one input did.
pub struct Outcome {
    pub input: Vec<u8>,
    /// The CPU time the input took (the process's, all threads).
    pub elapsed: Duration,
    /// The most bytes the parser allocated at once beyond what was live when it started.
    pub peak_bytes: usize,
    pub failure: Option<String>,
}

/// Which bounds [`run_one`] checks: time means nothing in a debug build (the test suite's
/// smoke run), and memory is measured only where [`Counting`] is the global allocator.
pub struct Checks {
    pub time: bool,
    pub memory: bool,
}

/// Makes and runs input `index` of `target`, and checks its bounds.
pub fn run_one(target: &Target, seed: u64, index: u64, checks: &Checks) -> Outcome {
    let mut g = Gen::new(seed, index);
    let mut input = Vec::new();
    parsing_starts(&[]);
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| (target.case)(&mut g, &mut input)));
    let elapsed = START
        .with(|s| s.get())
        .map_or(Duration::ZERO, |s| cpu_time().saturating_sub(s));
    let peak_bytes = PEAK
        .load(Ordering::Relaxed)
        .saturating_sub(BASE.load(Ordering::Relaxed));
    let mut failure = match result {
        Ok(Ok(())) => None,
        Ok(Err(why)) => Some(why),
        Err(_) => Some(format!(
            "panic: {}",
            PANIC
                .lock()
                .ok()
                .and_then(|mut p| p.take())
                .unwrap_or_else(|| "(no message)".into())
        )),
    };
    if failure.is_none() && checks.time && elapsed > target.max_time {
        failure = Some(format!(
            "took {} ms (at most {} ms)",
            elapsed.as_millis(),
            target.max_time.as_millis()
        ));
    }
    let allowed = target.max_bytes_base + target.max_bytes_per_input_byte * input.len();
    if failure.is_none() && checks.memory && peak_bytes > allowed {
        failure = Some(format!(
            "allocated {peak_bytes} bytes at its peak for {} bytes of input (at most {allowed})",
            input.len()
        ));
    }
    Outcome {
        input,
        elapsed,
        peak_bytes,
        failure,
    }
}

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    targets::ALL.iter().find(|t| t.name == name)
}
