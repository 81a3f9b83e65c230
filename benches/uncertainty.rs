//! The leaderboard's uncertainty (issue 14, part 4), run with `cargo bench --bench uncertainty`:
//! how long the statistics of `spiceboard::domain::uncertainty` take for an entry of 5,000
//! images (the size of COCO's 5k splits), on one core, without the database. Prints a table.
//!
//! - `intervals`: the bootstrap of all nine columns of one entry, what the worker does once when
//!   the entry is scored (1,000 resamples of 5,000 images).
//! - `tied`: the paired test of two entries from their stored replicates, what every row of a
//!   leaderboard costs on display.
//! - `compare`: the two-entry comparison page (both entries' columns resampled together).

use std::time::{Duration, Instant};

use spiceboard::domain::uncertainty::{self, ImageValues, RESAMPLES};

const IMAGES: usize = 5_000;
const RUNS: usize = 11;

/// A deterministic entry: SPICE-like values in [0, 1), the categories undefined on some images
/// (as Color, Count and Size often are), ROUGE-L and CIDEr-D defined everywhere.
fn entry(seed: u64) -> Vec<ImageValues> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..IMAGES)
        .map(|i| {
            let mut values = [None; 9];
            for (c, v) in values.iter_mut().enumerate() {
                let r = next();
                let defined = match c {
                    4..=6 => next() < 0.3,
                    _ => true,
                };
                *v = defined.then_some(if c == 8 { 3.0 * r } else { r });
            }
            ImageValues {
                image_id: 100_000 + i as i64,
                values,
            }
        })
        .collect()
}

/// Median and fastest of `RUNS` runs of `f`.
fn time<T>(mut f: impl FnMut() -> T) -> (Duration, Duration) {
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    runs.sort();
    (runs[RUNS / 2], runs[0])
}

fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

fn main() {
    // One core, as the numbers are read (the bootstrap's resamples run on rayon's threads).
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
    if let Err(e) = one {
        eprintln!("rayon's pool: {e}");
    }
    let (a, b) = (entry(1), entry(2));
    println!(
        "machine: {}, {} cores (each measurement uses one)",
        cpu(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("{IMAGES} images, {RESAMPLES} resamples, median (fastest) of {RUNS} runs\n");
    let ia = uncertainty::intervals(&a);
    let ib = uncertainty::intervals(&b);
    let rows = [
        (
            "intervals: 9 columns of one entry",
            time(|| uncertainty::intervals(&a)),
        ),
        (
            "tied: paired test of two entries",
            time(|| uncertainty::tied(&ia[0], &ib[0])),
        ),
        (
            "compare: two entries, 9 columns, top 20 images",
            time(|| uncertainty::compare(&a, &b, 20)),
        ),
    ];
    let show = |d: Duration| {
        if d < Duration::from_millis(1) {
            format!("{:.1} µs", d.as_secs_f64() * 1e6)
        } else {
            format!("{:.1} ms", d.as_secs_f64() * 1e3)
        }
    };
    println!("| step | median | fastest |");
    println!("|---|---:|---:|");
    for (name, (median, fastest)) in rows {
        println!("| {name} | {} | {} |", show(median), show(fastest));
    }
    let spice = &ia[0];
    println!(
        "\nSPICE {:.4}, 95 % interval {:.4} – {:.4}",
        spice.estimate.unwrap_or(f64::NAN),
        spice.low.unwrap_or(f64::NAN),
        spice.high.unwrap_or(f64::NAN)
    );
}
