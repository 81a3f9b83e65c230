//! A short run of every fuzz target, so that the targets keep compiling and the parsers keep
//! their promises on a few thousand hostile inputs (the long runs are `scripts/fuzz`'s). Time
//! is not checked here (a debug build's speed means nothing); memory is.

use spiceboard_fuzz::{quiet_panics, run_one, targets, Checks, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn every_target_survives_a_short_run() {
    quiet_panics();
    // The engine is slow unoptimised: fewer of its inputs.
    let runs = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let mut failed = Vec::new();
            for t in targets::ALL {
                let n = if t.name == "engine" { 200 } else { 2_000 };
                for i in 0..8 {
                    run_one(t, 1, u64::MAX - i, &Checks { time: false, memory: false });
                }
                for i in 0..n {
                    let o = run_one(t, 1, i, &Checks { time: false, memory: true });
                    if let Some(why) = o.failure {
                        failed.push(format!(
                            "{} input {i} (fuzz --seed 1 --from {i} --count 1 --save DIR {}): {why}",
                            t.name, t.name
                        ));
                    }
                }
            }
            failed
        })
        .expect("a thread")
        .join()
        .expect("the run");
    // The default hook again, so that this test's own failure is printed.
    drop(std::panic::take_hook());
    assert!(runs.is_empty(), "{}", runs.join("\n"));
}
