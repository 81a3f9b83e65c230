//! What a hostile upload costs in memory: validation reads entries as the JSON parser hands them
//! over and skips the values it does not keep, so a file whose entries hold millions of values
//! costs about what the file itself does, not a tree of those values (tens of bytes each).
//! Its own test binary: the counting allocator below sees every allocation of the process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use spiceboard::domain::results_file::Bounds;
use spiceboard::domain::ResultsFile;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to `System`; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `GlobalAlloc::alloc`, the caller's layout passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` came from `alloc` above with this layout.
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn entries_holding_millions_of_values_are_refused_without_building_them() {
    const VALUES: usize = 3_000_000;
    let mut file = String::with_capacity(4 * VALUES + 200);
    file.push_str(r#"[{"image_id": 1, "caption": "a dog", "padding": ["#);
    file.push_str(&"0,".repeat(VALUES));
    file.push_str(r#"0]}, {"image_id": 2, "caption": ["#);
    file.push_str(&"{},".repeat(VALUES / 3));
    file.push_str(r#"{}]}, ["#);
    file.push_str(&"[],".repeat(VALUES / 3));
    file.push_str("[]]]");
    let split: HashSet<i64> = [1, 2, 3].into();
    let bounds = Bounds {
        split_name: "test",
        split_images: &split,
        max_bytes: 64 << 20,
        max_caption_chars: 500,
    };
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let err = ResultsFile::parse(file.as_bytes(), bounds)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let used = PEAK.load(Relaxed) - before;
    assert!(
        err.contains("entry 1 (image_id 1): \"padding\"")
            && err.contains("entry 2 (image_id 2): \"caption\" must be a string (it is an array)")
            && err.contains("entry 3 is an array, not an object"),
        "{err}"
    );
    // The file is about 8 MB; as trees its 5 million values would take hundreds of megabytes.
    assert!(
        used < 1 << 20,
        "validating a {} byte file allocated {used} bytes at its peak",
        file.len()
    );
}
