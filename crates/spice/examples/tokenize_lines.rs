//! Tokenizes stdin as `PTBTokenizer -preserveLines` does: one output line per input line, tokens
//! separated by spaces (`--coco` for pycocoevalcap's form). A development aid; the `spice
//! tokenize` command is the user-facing form.
use std::io::{Read, Write};

fn main() -> std::io::Result<()> {
    let coco = std::env::args().any(|a| a == "--coco");
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if coco {
        let caps: Vec<&str> = text.split('\n').collect();
        for l in spice::tokenize::tokenize_coco_batch(&caps) {
            writeln!(out, "{l}")?;
        }
    } else {
        for l in spice::tokenize::tokenize_lines(&text) {
            let words: Vec<&str> = l.iter().map(|t| t.text.as_str()).collect();
            writeln!(out, "{}", words.join(" "))?;
        }
    }
    Ok(())
}
