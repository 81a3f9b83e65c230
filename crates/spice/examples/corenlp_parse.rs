//! Parses tokenized sentences (one a line, tokens separated by spaces) with CoreNLP's English
//! PCFG and prints one tree a line: `corenlp_parse englishPCFG.ser.gz < tokens.txt`.
use std::io::BufRead;
fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: corenlp_parse MODEL < TOKENS");
    let t = std::time::Instant::now();
    let p = spice::corenlp::PcfgParser::load(std::path::Path::new(&path))
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("loaded in {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let mut n = 0;
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let words: Vec<&str> = line.split_whitespace().collect();
        println!("{}", p.parse(&words).penn());
        n += 1;
    }
    eprintln!("{n} sentences in {:?}", t.elapsed());
}
