//! The official pipeline's analyses (`../shared/corenlp/official/*.jsonl.gz`: one caption a line,
//! its sentences each with CoreNLP 3.6.0's tree, tokens and basic dependencies), read for the
//! parity tests and reports. Not part of the pipeline.

use std::io::BufRead;
use std::path::Path;

/// One sentence as the official pipeline analysed it.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub words: Vec<String>,
    /// The PCFG tree, bracketed on one line.
    pub tree: String,
    /// Basic UD dependencies: (relation, governor, dependent), words from 1, the root's governor 0.
    pub basic: Vec<(String, usize, usize)>,
}

/// The sentences of a file of analyses, in order; with `limit`, the captions read stop once that
/// many sentences are in.
pub fn read(path: &Path, limit: Option<usize>) -> Result<Vec<Sentence>, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    let mut out = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        if limit.is_some_and(|l| out.len() >= l) {
            break;
        }
        let line = line.map_err(|e| format!("{shown}: {e}"))?;
        let bad = |what: &str| format!("{shown}, line {}: {what}", n + 1);
        let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| bad(&e.to_string()))?;
        for s in v["sentences"]
            .as_array()
            .ok_or_else(|| bad("no sentences"))?
        {
            let words = s["tokens"]
                .as_array()
                .ok_or_else(|| bad("no tokens"))?
                .iter()
                .map(|t| {
                    t["word"]
                        .as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad("a token without a word"))
                })
                .collect::<Result<_, _>>()?;
            let tree = s["tree"]
                .as_str()
                .ok_or_else(|| bad("no tree"))?
                .to_string();
            let basic = s["basic"]
                .as_array()
                .ok_or_else(|| bad("no basic dependencies"))?
                .iter()
                .map(|d| {
                    let n = |i: usize| {
                        d[i].as_u64()
                            .map(|x| x as usize)
                            .ok_or_else(|| bad("a dependency's index"))
                    };
                    Ok((d[0].as_str().unwrap_or_default().to_string(), n(1)?, n(2)?))
                })
                .collect::<Result<_, String>>()?;
            out.push(Sentence { words, tree, basic });
        }
    }
    Ok(out)
}
