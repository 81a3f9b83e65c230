//! Trees of CoreNLP's English PCFG against the official pipeline's, on the shared analyses:
//! `corenlp_trees MODEL OFFICIAL.jsonl.gz... [--diffs FILE]`. Prints, per file, how many
//! sentences get the official tree, and writes the ones that do not to FILE.
use rayon::prelude::*;
use std::io::Write;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let diffs = args.iter().position(|a| a == "--diffs").map(|i| {
        let f = args.remove(i + 1);
        args.remove(i);
        f
    });
    let model = args.remove(0);
    let t = std::time::Instant::now();
    let p = spice::corenlp::PcfgParser::load(std::path::Path::new(&model))
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("model loaded in {:?}", t.elapsed());
    let mut out = diffs.map(|f| std::fs::File::create(f).expect("diffs file"));
    for file in &args {
        let sents: Vec<(Vec<String>, String)> =
            spice::corenlp::official::read(std::path::Path::new(file), None)
                .unwrap_or_else(|e| panic!("{e}"))
                .into_iter()
                .map(|s| (s.words, s.tree))
                .collect();
        let t = std::time::Instant::now();
        let got: Vec<String> = sents
            .par_iter()
            .map(|(w, _)| {
                let words: Vec<&str> = w.iter().map(String::as_str).collect();
                p.parse(&words).penn()
            })
            .collect();
        let el = t.elapsed();
        let same = got.iter().zip(&sents).filter(|(g, (_, o))| *g == o).count();
        println!(
            "{file}: {same} / {} trees identical ({:.3} %), {:.1} sentences/s",
            sents.len(),
            100.0 * same as f64 / sents.len() as f64,
            sents.len() as f64 / el.as_secs_f64()
        );
        if let Some(o) = out.as_mut() {
            for (g, (w, off)) in got.iter().zip(&sents) {
                if g != off {
                    writeln!(o, "{}\n  official {off}\n  ours     {g}", w.join(" "))
                        .expect("write");
                }
            }
        }
    }
}
