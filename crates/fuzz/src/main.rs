//! `fuzz`: runs fuzz targets and prints how many inputs each survived.
//!
//! ```text
//! fuzz [--seed S] [--save DIR] [--from I] TARGET|all N
//!                                               N inputs of each target (from input I, default
//!                                               0: a long run goes on where the last stopped),
//!                                               a table of the figures
//! fuzz list                                     the targets
//! fuzz --from I --count C [--save DIR] TARGET   inputs I.. again (one process, no supervision)
//! ```
//!
//! Each target runs in child processes of `CHUNK` inputs, so that an input that aborts the
//! process (a stack overflow, an allocation failure) is found too: the chunk is run again with
//! every input's index printed before it runs, the last one printed is the culprit, it is
//! recorded (and saved with `--save`), and the run goes on after it.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use std::sync::atomic::{AtomicU64, Ordering};

use spiceboard_fuzz::{
    current_input, keep_inputs, quiet_panics, run_one, target, targets, Checks, Counting, Target,
};

#[global_allocator]
static ALLOC: Counting = Counting;

const CHUNK: u64 = 200_000;
/// An input that runs this many times its target's `max_time` (and at least `HANG_SECS`)
/// is a hang: the watchdog reports it and ends the process.
const HANG_FACTOR: u32 = 20;
const HANG_SECS: u64 = 10;

/// The input running (`u64::MAX`: none) and when it started, in ms since the child started.
static RUNNING: AtomicU64 = AtomicU64::new(u64::MAX);
static RUNNING_SINCE_MS: AtomicU64 = AtomicU64::new(0);

/// The stack of the thread the inputs run on: tokio's blocking threads', where the server parses.
const STACK: usize = 2 << 20;

struct Args {
    seed: u64,
    save: Option<PathBuf>,
    from: Option<u64>,
    count: Option<u64>,
    trace: bool,
    rest: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        seed: 35,
        save: None,
        from: None,
        count: None,
        trace: false,
        rest: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    let number = |v: Option<String>, what: &str| -> Result<u64, String> {
        v.and_then(|v| v.replace('_', "").parse().ok())
            .ok_or_else(|| format!("{what} needs a number"))
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seed" => a.seed = number(it.next(), "--seed")?,
            "--from" => a.from = Some(number(it.next(), "--from")?),
            "--count" => a.count = Some(number(it.next(), "--count")?),
            "--save" => a.save = Some(it.next().ok_or("--save needs a directory")?.into()),
            "--trace" => a.trace = true,
            _ => a.rest.push(arg),
        }
    }
    Ok(a)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fuzz: {e}");
            std::process::exit(2);
        }
    };
    let code = match (a.rest.as_slice(), a.from, a.count) {
        ([list], None, None) if list == "list" => {
            for t in targets::ALL {
                println!("{:<18} {}", t.name, t.about);
            }
            0
        }
        ([name], Some(from), Some(count)) => match target(name) {
            Some(t) => child(t, &a, from, count),
            None => usage(),
        },
        ([name, n], from, None) => {
            let Some(n) = n.replace('_', "").parse().ok() else {
                std::process::exit(usage());
            };
            let chosen: Vec<&Target> = if name == "all" {
                targets::ALL.iter().collect()
            } else {
                match target(name) {
                    Some(t) => vec![t],
                    None => std::process::exit(usage()),
                }
            };
            supervise(&chosen, &a, from.unwrap_or(0), n)
        }
        _ => usage(),
    };
    std::process::exit(code);
}

fn usage() -> i32 {
    eprintln!(
        "usage: fuzz [--seed S] [--save DIR] [--from I] TARGET|all N\n       fuzz list\n       \
         fuzz --from I --count C [--save DIR] [--trace] TARGET"
    );
    2
}

/// Runs inputs `from..from + count` of `t` in this process, on a thread with the server's
/// blocking stack, printing each failure and a last line of figures.
fn child(t: &'static Target, a: &Args, from: u64, count: u64) -> i32 {
    quiet_panics();
    let (seed, save, trace) = (a.seed, a.save.clone(), a.trace);
    if save.is_some() {
        keep_inputs();
    }
    let epoch = Instant::now();
    let hang = (t.max_time * HANG_FACTOR).max(Duration::from_secs(HANG_SECS));
    let watchdog_save = save.clone();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(250));
        let i = RUNNING.load(Ordering::SeqCst);
        let since = Duration::from_millis(RUNNING_SINCE_MS.load(Ordering::SeqCst));
        if i != u64::MAX && epoch.elapsed().saturating_sub(since) > hang {
            println!("failure {i} hung: no answer after {} s", hang.as_secs());
            if let Some(dir) = &watchdog_save {
                let _ = std::fs::create_dir_all(dir);
                let _ = std::fs::write(dir.join(format!("{}-{seed}-{i}", t.name)), current_input());
            }
            std::process::exit(3);
        }
    });
    let worker = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let checks = Checks {
                time: !cfg!(debug_assertions),
                memory: true,
            };
            // The first inputs load what the parsers load once (models, METEOR's tables, in
            // both caption modes): not counted.
            let warm = Checks {
                time: false,
                memory: false,
            };
            for i in 0..8 {
                run_one(t, seed, u64::MAX - i, &warm);
            }
            let out = std::io::stdout();
            let (mut failures, mut slowest, mut peak) = (0u64, (Duration::ZERO, 0), (0usize, 0));
            let start = Instant::now();
            for i in from..from.saturating_add(count) {
                if trace {
                    let _ = writeln!(out.lock(), "at {i}");
                }
                RUNNING_SINCE_MS.store(epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
                RUNNING.store(i, Ordering::SeqCst);
                let o = run_one(t, seed, i, &checks);
                RUNNING.store(u64::MAX, Ordering::SeqCst);
                slowest = slowest.max((o.elapsed, i));
                peak = peak.max((o.peak_bytes, i));
                if let Some(why) = o.failure {
                    failures += 1;
                    let _ = writeln!(out.lock(), "failure {i} {}", why.replace('\n', " | "));
                    if let Some(dir) = &save {
                        let _ = std::fs::create_dir_all(dir);
                        let _ =
                            std::fs::write(dir.join(format!("{}-{seed}-{i}", t.name)), &o.input);
                    }
                }
            }
            let _ = writeln!(
                out.lock(),
                "done {count} {} {failures} {} {} {} {}",
                start.elapsed().as_nanos(),
                slowest.0.as_nanos(),
                slowest.1,
                peak.0,
                peak.1
            );
        });
    match worker.map(|w| w.join()) {
        Ok(Ok(())) => 0,
        _ => 1,
    }
}

/// What a child reported.
#[derive(Default)]
struct Report {
    inputs: u64,
    nanos: u128,
    failures: Vec<(u64, String)>,
    /// The slowest input's time and index, and the largest peak of memory and its input's index.
    slowest: (u128, u64),
    peak: (u128, u64),
    last_at: Option<u64>,
    done: bool,
}

fn run_child(t: &Target, a: &Args, from: u64, count: u64, trace: bool) -> Report {
    let exe = std::env::current_exe().expect("the fuzz binary's path");
    let mut cmd = Command::new(exe);
    cmd.args(["--seed", &a.seed.to_string()]).args([
        "--from",
        &from.to_string(),
        "--count",
        &count.to_string(),
    ]);
    if let Some(dir) = &a.save {
        cmd.arg("--save").arg(dir);
    }
    if trace {
        cmd.arg("--trace");
    }
    let mut child = cmd
        .arg(t.name)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("a child process");
    let mut r = Report::default();
    let out = child.stdout.take().expect("the child's output");
    for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("at"), Some(i), _) => r.last_at = i.parse().ok(),
            (Some("failure"), Some(i), why) => {
                if let Ok(i) = i.parse() {
                    r.failures.push((i, why.unwrap_or("").to_string()));
                }
            }
            (Some("done"), Some(n), Some(rest)) => {
                let f: Vec<u128> = rest.split(' ').filter_map(|x| x.parse().ok()).collect();
                if let (Ok(n), [nanos, _, slow, slow_i, peak, peak_i]) = (n.parse(), f.as_slice()) {
                    r.inputs = n;
                    r.nanos = *nanos;
                    r.slowest = (*slow, *slow_i as u64);
                    r.peak = (*peak, *peak_i as u64);
                    r.done = true;
                }
            }
            _ => {}
        }
    }
    let _ = child.wait();
    r
}

/// Runs `n` inputs of each target in children of `CHUNK` inputs, and prints the table.
/// Inputs `from..from + n` of each chosen target, in child processes; a table of the figures.
fn supervise(chosen: &[&Target], a: &Args, from: u64, n: u64) -> i32 {
    println!(
        "{:<18} {:>12} {:>10} {:>9} {:>11} {:>11}",
        "target", "inputs", "inputs/s", "failures", "slowest ms", "peak MiB"
    );
    let mut any = false;
    for t in chosen {
        let (mut done, mut nanos) = (0u64, 0u128);
        let (mut slowest, mut peak) = ((0u128, 0u64), (0u128, 0u64));
        let mut failures: Vec<(u64, String)> = Vec::new();
        let mut at = from;
        let end = from.saturating_add(n);
        while at < end {
            let count = CHUNK.min(end - at);
            let r = run_child(t, a, at, count, false);
            if r.done {
                (done, nanos) = (done + r.inputs, nanos + r.nanos);
                (slowest, peak) = (slowest.max(r.slowest), peak.max(r.peak));
                failures.extend(r.failures);
                at += count;
                continue;
            }
            // The child died: run the chunk again with each input's index printed first; the
            // last one printed killed it. Record it and go on after it (a run that does not die
            // again counts as it is).
            let traced = run_child(t, a, at, count, true);
            if traced.done {
                (done, nanos) = (done + traced.inputs, nanos + traced.nanos);
                (slowest, peak) = (slowest.max(traced.slowest), peak.max(traced.peak));
                failures.extend(traced.failures);
                at += count;
                continue;
            }
            let culprit = traced.last_at.unwrap_or(at);
            let died = traced
                .failures
                .iter()
                .find(|f| f.0 == culprit)
                .map(|f| f.1.clone());
            failures.extend(traced.failures.into_iter().filter(|f| f.0 < culprit));
            failures.push((
                culprit,
                died.unwrap_or_else(|| "the process died (abort or signal)".into()),
            ));
            if let Some(dir) = &a.save {
                let _ = Command::new(std::env::current_exe().expect("the fuzz binary's path"))
                    .args([
                        "--seed",
                        &a.seed.to_string(),
                        "--from",
                        &culprit.to_string(),
                    ])
                    .args(["--count", "1", "--save"])
                    .arg(dir)
                    .arg(t.name)
                    .stdout(Stdio::null())
                    .status();
            }
            done += culprit + 1 - at;
            at = culprit + 1;
        }
        let secs = nanos as f64 / 1e9;
        println!(
            "{:<18} {:>12} {:>10.0} {:>9} {:>11.1} {:>11.1}",
            t.name,
            done,
            if secs > 0.0 { done as f64 / secs } else { 0.0 },
            failures.len(),
            slowest.0 as f64 / 1e6,
            peak.0 as f64 / (1 << 20) as f64
        );
        println!(
            "    slowest: input {}; largest peak: input {} (seed {})",
            slowest.1, peak.1, a.seed
        );
        for (i, why) in failures.iter().take(10) {
            println!("    input {i} (seed {}): {why}", a.seed);
        }
        any |= !failures.is_empty();
    }
    i32::from(any)
}
