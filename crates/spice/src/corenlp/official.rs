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
    /// The tags and lemmas of the words.
    pub tags: Vec<String>,
    pub lemmas: Vec<String>,
    /// Basic UD dependencies: (relation, governor, dependent), words from 1, the root's governor 0.
    pub basic: Vec<Dep>,
    /// The collapsed, CC-processed dependencies CoreNLP hands SPICE, words named by index, a
    /// copy of a word by `index'copy` (`3'1`, the copies CoreNLP makes for conjoined PPs).
    pub ccprocessed: Vec<NamedDep>,
    /// The graph after SPICE's own enhancement.
    pub ccprocessed_spice: Vec<NamedDep>,
    /// The caption's place in the file (from 0): a caption may have several sentences.
    pub caption: usize,
    /// The sentence's place in its caption (from 0).
    pub sentence: usize,
}

/// A dependency: (relation, governor, dependent).
pub type Dep = (String, usize, usize);

/// A dependency of the collapsed graph, whose words may be copies: (relation, governor,
/// dependent), each word as its index (`7`) or a copy of it (`3'1`).
pub type NamedDep = (String, String, String);

/// One caption of a file of analyses: its text and the official proposals.
#[derive(Debug, Clone)]
pub struct Caption {
    pub text: String,
    /// Each a tuple of 1-3 lemmas, 3-tuples as [subject, relation, object].
    pub tuples: Vec<Vec<String>>,
}

/// The captions of a file of analyses, in order; with `limit`, the first `limit`.
pub fn read_captions(path: &Path, limit: Option<usize>) -> Result<Vec<Caption>, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    reader
        .lines()
        .take(limit.unwrap_or(usize::MAX))
        .enumerate()
        .map(|(n, line)| {
            let line = line.map_err(|e| format!("{shown}: {e}"))?;
            let bad = |what: String| format!("{shown}, line {}: {what}", n + 1);
            let v: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
            Ok(Caption {
                text: v["caption"]
                    .as_str()
                    .ok_or_else(|| bad("no caption".into()))?
                    .to_string(),
                tuples: serde_json::from_value(v["tuples"].clone())
                    .map_err(|e| bad(format!("tuples: {e}")))?,
            })
        })
        .collect()
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
        for (sentence, s) in v["sentences"]
            .as_array()
            .ok_or_else(|| bad("no sentences"))?
            .iter()
            .enumerate()
        {
            let token_field = |field: &str| -> Result<Vec<String>, String> {
                s["tokens"]
                    .as_array()
                    .ok_or_else(|| bad("no tokens"))?
                    .iter()
                    .map(|t| {
                        t[field]
                            .as_str()
                            .map(str::to_string)
                            .ok_or_else(|| bad(&format!("a token without a {field}")))
                    })
                    .collect()
            };
            let words = token_field("word")?;
            let tags = token_field("pos")?;
            let lemmas = token_field("lemma")?;
            let tree = s["tree"]
                .as_str()
                .ok_or_else(|| bad("no tree"))?
                .to_string();
            let deps = |field: &str| -> Result<Vec<Dep>, String> {
                s[field]
                    .as_array()
                    .ok_or_else(|| bad(&format!("no {field} dependencies")))?
                    .iter()
                    .map(|d| {
                        let n = |i: usize| {
                            d[i].as_u64()
                                .map(|x| x as usize)
                                .ok_or_else(|| bad("a dependency's index"))
                        };
                        Ok((d[0].as_str().unwrap_or_default().to_string(), n(1)?, n(2)?))
                    })
                    .collect()
            };
            let named = |field: &str| -> Result<Vec<NamedDep>, String> {
                s[field]
                    .as_array()
                    .ok_or_else(|| bad(&format!("no {field} dependencies")))?
                    .iter()
                    .map(|d| {
                        let n = |i: usize| match &d[i] {
                            serde_json::Value::Number(x) => Ok(x.to_string()),
                            serde_json::Value::String(x) => Ok(x.clone()),
                            _ => Err(bad("a dependency's word")),
                        };
                        Ok((d[0].as_str().unwrap_or_default().to_string(), n(1)?, n(2)?))
                    })
                    .collect()
            };
            out.push(Sentence {
                words,
                tags,
                lemmas,
                tree,
                basic: deps("basic")?,
                ccprocessed: named("ccprocessed")?,
                ccprocessed_spice: named("ccprocessed_spice")?,
                caption: n,
                sentence,
            });
        }
    }
    Ok(out)
}
