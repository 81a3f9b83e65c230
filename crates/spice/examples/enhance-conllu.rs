//! Reads basic-UD CoNLL-U on stdin and writes the collapsed, CC-processed graphs (DEPS column) on
//! stdout: `cargo run --release --example enhance-conllu < dev.raw.conllu`. A tool to inspect what
//! `enhance` does to a treebank or a parser's output.

use std::io::{Read, Write};

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("enhance-conllu: cannot read stdin: {e}");
        std::process::exit(1);
    }
    let graphs = match spice::DepGraph::from_conllu_str(&text) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("enhance-conllu: {e}");
            std::process::exit(1);
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for mut g in graphs {
        spice::enhance::enhance(&mut g);
        if out.write_all(g.to_conllu().as_bytes()).is_err() {
            std::process::exit(1);
        }
    }
}
