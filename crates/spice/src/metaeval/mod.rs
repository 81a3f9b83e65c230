//! Meta-evaluation: how well each metric agrees with human judgments of captions.
//!
//! In: [`Judgment`]s, one per judged candidate caption (`{"candidate", "references": [...],
//! "ratings": [...], "system"?}` per line of a JSON-lines file, [`read_judgments`]). The
//! candidates are scored as pycocoevalcap scores them ([`score`]: its tokenization, then every
//! requested [`Scorer`], SPICE included, each candidate its own "image"). Out: per metric, a
//! [`MetricAgreement`] ([`agreement`]):
//! - caption level, over (candidate, rating) pairs, each candidate's score paired with each of
//!   its ratings as the SPICE paper and Elliott & Keller (2014) pair them: Kendall's tau-b and
//!   tau-c, Spearman's rho;
//! - system level, when every judgment names its system: Pearson's r between each system's mean
//!   score and its mean human rating;
//! - for each, a 95 % bootstrap percentile interval: candidates resampled with replacement
//!   (within each system for the system level), the same resamples for every metric, drawn from
//!   a fixed seed, so a run is reproducible.
//!
//! The statistics are in [`stats`], written by hand and checked against scipy.

pub mod stats;

use rayon::prelude::*;
use serde_json::{json, Map, Value};

use crate::cocoeval::{self, Annotations, CaptionResult, CocoImages, ImageId, Scorer};
use crate::metrics::meteor::Meteor;
use crate::Engine;

/// One judged candidate caption.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgment {
    pub candidate: String,
    pub references: Vec<String>,
    /// At least one human rating; higher is better.
    pub ratings: Vec<f64>,
    /// The system that wrote the candidate, for system-level correlation.
    pub system: Option<String>,
}

/// Why judgments cannot be read or evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MetaEvalError {
    #[error("{path}:{line}: {reason}")]
    Line {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("{path}: no judgments")]
    Empty { path: String },
    #[error("{path}: {with} judgments name a system and {without} do not; name it on all or none")]
    MixedSystems {
        path: String,
        with: usize,
        without: usize,
    },
    #[error("scoring failed: {0}")]
    Scoring(String),
}

/// Reads a JSON-lines file of judgments (blank lines skipped). Each line needs a string
/// `candidate`, a non-empty array of strings `references` and a non-empty array of numbers
/// `ratings`; `system`, if there, is a string (or a number, read as its text). Other fields are
/// ignored.
pub fn read_judgments(text: &str, path: &str) -> Result<Vec<Judgment>, MetaEvalError> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fail = |reason: String| MetaEvalError::Line {
            path: path.to_string(),
            line: k + 1,
            reason,
        };
        let v: Value = serde_json::from_str(line).map_err(|e| fail(format!("not JSON: {e}")))?;
        let candidate = v
            .get("candidate")
            .and_then(Value::as_str)
            .ok_or_else(|| fail("\"candidate\" must be a string".into()))?
            .to_string();
        let references: Vec<String> = v
            .get("references")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(|r| r.as_str().map(str::to_string)).collect())
            .ok_or_else(|| fail("\"references\" must be an array of strings".into()))?;
        if references.is_empty() {
            return Err(fail("\"references\" is empty".into()));
        }
        let ratings: Vec<f64> = v
            .get("ratings")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_f64).collect())
            .ok_or_else(|| fail("\"ratings\" must be an array of numbers".into()))?;
        if ratings.is_empty() {
            return Err(fail("\"ratings\" is empty".into()));
        }
        let system = match v.get("system") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => return Err(fail("\"system\" must be a string".into())),
        };
        out.push(Judgment {
            candidate,
            references,
            ratings,
            system,
        });
    }
    if out.is_empty() {
        return Err(MetaEvalError::Empty {
            path: path.to_string(),
        });
    }
    let with = out.iter().filter(|j| j.system.is_some()).count();
    if with != 0 && with != out.len() {
        return Err(MetaEvalError::MixedSystems {
            path: path.to_string(),
            with,
            without: out.len() - with,
        });
    }
    Ok(out)
}

/// One metric's scores of the judged candidates, in judgment order.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricScores {
    /// pycocoevalcap's name (`Bleu_4`, `CIDEr`, `SPICE`, ...) or ours for the seed's metrics.
    pub name: &'static str,
    pub scores: Vec<f64>,
}

/// Scores every candidate with every scorer, as `COCOEvalCap` would with each candidate as an
/// image of its own: references and candidates through pycocoevalcap's tokenizer (two batches),
/// CIDEr-D's document frequencies over all the references of the file, SPICE on the tokenized
/// captions, METEOR with `meteor` (required if METEOR is among the scorers). Names come in the
/// scorers' order (a scorer may give several, like BLEU's four).
pub fn score(
    judgments: &[Judgment],
    scorers: &[Scorer],
    engine: &Engine,
    meteor: Option<&Meteor>,
) -> Result<Vec<MetricScores>, MetaEvalError> {
    let fail = |e: cocoeval::CocoEvalError| MetaEvalError::Scoring(e.to_string());
    let ids: Vec<ImageId> = (0..judgments.len() as i64).map(ImageId::Int).collect();
    let annotations = Annotations::new(
        ids.clone(),
        judgments
            .iter()
            .zip(&ids)
            .flat_map(|(j, id)| j.references.iter().map(move |r| (id.clone(), r.clone()))),
    );
    let results: Vec<CaptionResult> = judgments
        .iter()
        .zip(&ids)
        .map(|(j, id)| CaptionResult {
            image_id: id.clone(),
            caption: j.candidate.clone(),
        })
        .collect();
    let images = CocoImages::new(&annotations, &results, "judgments").map_err(fail)?;
    let tokenized = images.tokenize().map_err(fail)?;
    let evaluation = cocoeval::evaluate(&tokenized, scorers, engine, None, meteor).map_err(fail)?;
    // evaluate keeps the images in annotation order, which is ours.
    let classic = evaluation.classic_per_image();
    let mut out = Vec::new();
    for scorer in scorers {
        match scorer {
            Scorer::Classic(metric) => {
                for &name in metric.score_names() {
                    let scores = classic
                        .iter()
                        .map(|s| s.get(name).unwrap_or(f64::NAN))
                        .collect();
                    out.push(MetricScores { name, scores });
                }
            }
            Scorer::Spice => {
                let scores = evaluation
                    .spice_per_image()
                    .map(|per| per.iter().map(|s| s.all.f).collect())
                    .unwrap_or_default();
                out.push(MetricScores {
                    name: cocoeval::SPICE_NAME,
                    scores,
                });
            }
        }
    }
    Ok(out)
}

/// How the bootstrap intervals are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bootstrap {
    pub resamples: usize,
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 1000,
            seed: 2014,
        }
    }
}

/// A correlation and its 95 % bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub ci: [f64; 2],
}

/// How one metric agrees with the judgments.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricAgreement {
    pub name: &'static str,
    /// Candidates with a score (a NaN score leaves its candidate out of this metric's figures).
    pub candidates: usize,
    /// (candidate, rating) pairs correlated at caption level.
    pub pairs: usize,
    pub tau_b: Estimate,
    pub tau_c: Estimate,
    pub spearman: Estimate,
    /// Pearson's r over systems, when the judgments name them.
    pub system_pearson: Option<Estimate>,
    pub systems: usize,
}

/// The agreement of every metric with the judgments (see the module doc).
pub fn agreement(
    judgments: &[Judgment],
    metrics: &[MetricScores],
    bootstrap: Bootstrap,
) -> Vec<MetricAgreement> {
    let n = judgments.len();
    let mut rng = stats::SplitMix64::new(bootstrap.seed);
    let resamples: Vec<Vec<u32>> = (0..bootstrap.resamples)
        .map(|_| (0..n).map(|_| rng.below(n) as u32).collect())
        .collect();
    // Systems: each candidate's system index, and the candidates of each system.
    let mut names: Vec<&str> = Vec::new();
    let mut system_of = Vec::with_capacity(n);
    for j in judgments {
        if let Some(s) = j.system.as_deref() {
            let k = names.iter().position(|&x| x == s).unwrap_or_else(|| {
                names.push(s);
                names.len() - 1
            });
            system_of.push(k);
        }
    }
    let members: Vec<Vec<usize>> = (0..names.len())
        .map(|s| (0..n).filter(|&k| system_of.get(k) == Some(&s)).collect())
        .collect();
    let system_resamples: Vec<Vec<Vec<u32>>> = (0..bootstrap.resamples)
        .map(|_| {
            members
                .iter()
                .map(|m| (0..m.len()).map(|_| m[rng.below(m.len())] as u32).collect())
                .collect()
        })
        .collect();
    let mean_rating: Vec<f64> = judgments
        .iter()
        .map(|j| j.ratings.iter().sum::<f64>() / j.ratings.len() as f64)
        .collect();
    metrics
        .iter()
        .map(|m| {
            let valid = |k: usize| !m.scores.get(k).is_none_or(|s| s.is_nan());
            let all: Vec<u32> = (0..n as u32).filter(|&k| valid(k as usize)).collect();
            let caption = |sample: &[u32]| {
                let (x, y) = pairs(judgments, &m.scores, sample.iter().map(|&k| k as usize));
                let k = stats::kendall(&x, &y);
                [k.tau_b, k.tau_c, stats::spearman(&x, &y)]
            };
            let point = caption(&all);
            let boot: Vec<[f64; 3]> = resamples
                .par_iter()
                .map(|r| {
                    let sample: Vec<u32> =
                        r.iter().copied().filter(|&k| valid(k as usize)).collect();
                    caption(&sample)
                })
                .collect();
            let estimate = |i: usize| Estimate {
                value: point[i],
                ci: stats::interval95(&boot.iter().map(|b| b[i]).collect::<Vec<_>>()),
            };
            let system_r = |groups: &mut dyn Iterator<Item = Vec<usize>>| {
                let (mut xs, mut ys) = (Vec::new(), Vec::new());
                for g in groups {
                    let g: Vec<usize> = g.into_iter().filter(|&k| valid(k)).collect();
                    if g.is_empty() {
                        continue;
                    }
                    xs.push(g.iter().map(|&k| m.scores[k]).sum::<f64>() / g.len() as f64);
                    ys.push(g.iter().map(|&k| mean_rating[k]).sum::<f64>() / g.len() as f64);
                }
                stats::pearson(&xs, &ys)
            };
            let system_pearson = (names.len() >= 3).then(|| {
                let value = system_r(&mut members.iter().cloned());
                let boot: Vec<f64> = system_resamples
                    .par_iter()
                    .map(|r| {
                        system_r(
                            &mut r
                                .iter()
                                .map(|g| g.iter().map(|&k| k as usize).collect::<Vec<_>>()),
                        )
                    })
                    .collect();
                Estimate {
                    value,
                    ci: stats::interval95(&boot),
                }
            });
            MetricAgreement {
                name: m.name,
                candidates: all.len(),
                pairs: all
                    .iter()
                    .map(|&k| judgments[k as usize].ratings.len())
                    .sum(),
                tau_b: estimate(0),
                tau_c: estimate(1),
                spearman: estimate(2),
                system_pearson,
                systems: names.len(),
            }
        })
        .collect()
}

/// Pearson's r between paired values, such as systems' scores and their mean human ratings when
/// each system is judged as a whole (no candidates to resample within it), and its 95 %
/// bootstrap interval: the pairs resampled with replacement, from the fixed seed.
pub fn pearson_estimate(x: &[f64], y: &[f64], bootstrap: Bootstrap) -> Estimate {
    let n = x.len().min(y.len());
    let mut rng = stats::SplitMix64::new(bootstrap.seed);
    let boot: Vec<f64> = (0..bootstrap.resamples)
        .map(|_| {
            let sample: Vec<usize> = (0..n).map(|_| rng.below(n)).collect();
            let xs: Vec<f64> = sample.iter().map(|&k| x[k]).collect();
            let ys: Vec<f64> = sample.iter().map(|&k| y[k]).collect();
            stats::pearson(&xs, &ys)
        })
        .collect();
    Estimate {
        value: stats::pearson(&x[..n], &y[..n]),
        ci: stats::interval95(&boot),
    }
}

/// The (score, rating) pairs of some candidates: each score once per rating of its candidate.
fn pairs(
    judgments: &[Judgment],
    scores: &[f64],
    candidates: impl Iterator<Item = usize>,
) -> (Vec<f64>, Vec<f64>) {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for k in candidates {
        for &r in &judgments[k].ratings {
            x.push(scores[k]);
            y.push(r);
        }
    }
    (x, y)
}

/// `{"metrics": {name: {"tau_c", "tau_c_ci", "tau_b", "tau_b_ci", "spearman", "spearman_ci",
/// "pearson_system", "pearson_system_ci", "candidates", "pairs"}}, "bootstrap": {...}}`, NaN as
/// null; the system entries only when systems were given.
pub fn to_json(results: &[MetricAgreement], bootstrap: Bootstrap) -> Value {
    let num = |x: f64| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
    let ci = |e: &Estimate| json!([num(e.ci[0]), num(e.ci[1])]);
    let mut metrics = Map::new();
    for r in results {
        let mut m = Map::new();
        m.insert("tau_c".into(), num(r.tau_c.value));
        m.insert("tau_c_ci".into(), ci(&r.tau_c));
        m.insert("tau_b".into(), num(r.tau_b.value));
        m.insert("tau_b_ci".into(), ci(&r.tau_b));
        m.insert("spearman".into(), num(r.spearman.value));
        m.insert("spearman_ci".into(), ci(&r.spearman));
        if let Some(p) = &r.system_pearson {
            m.insert("pearson_system".into(), num(p.value));
            m.insert("pearson_system_ci".into(), ci(p));
            m.insert("systems".into(), json!(r.systems));
        }
        m.insert("candidates".into(), json!(r.candidates));
        m.insert("pairs".into(), json!(r.pairs));
        metrics.insert(r.name.to_string(), Value::Object(m));
    }
    json!({
        "metrics": metrics,
        "bootstrap": {
            "resamples": bootstrap.resamples,
            "seed": bootstrap.seed,
            "confidence": 0.95,
            "unit": "candidate",
        },
    })
}

/// The results as a Markdown table, correlations x 100 with their 95 % intervals.
pub fn markdown(results: &[MetricAgreement]) -> String {
    let systems = results.iter().any(|r| r.system_pearson.is_some());
    let cell = |e: &Estimate| {
        format!(
            "{:.2} [{:.2}, {:.2}]",
            100.0 * e.value,
            100.0 * e.ci[0],
            100.0 * e.ci[1]
        )
    };
    let mut out =
        String::from("| metric | Kendall tau-c x100 | Kendall tau-b x100 | Spearman rho x100 |");
    out.push_str(if systems {
        " system Pearson r x100 |\n"
    } else {
        "\n"
    });
    out.push_str("|---|---|---|---|");
    out.push_str(if systems { "---|\n" } else { "\n" });
    for r in results {
        out.push_str(&format!(
            "| {} | {} | {} | {} |",
            r.name,
            cell(&r.tau_c),
            cell(&r.tau_b),
            cell(&r.spearman)
        ));
        if systems {
            match &r.system_pearson {
                Some(p) => out.push_str(&format!(" {} |", cell(p))),
                None => out.push_str(" |"),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judgment(candidate: &str, ratings: &[f64], system: Option<&str>) -> Judgment {
        Judgment {
            candidate: candidate.into(),
            references: vec!["a dog runs on the grass".into()],
            ratings: ratings.to_vec(),
            system: system.map(str::to_string),
        }
    }

    #[test]
    fn judgments_are_read_and_bad_lines_are_named() {
        let text =
            "{\"candidate\": \"a dog\", \"references\": [\"a dog runs\"], \"ratings\": [3, 4]}\n\n";
        let j = read_judgments(text, "j.jsonl").expect("valid");
        assert_eq!(j[0].ratings, [3.0, 4.0]);
        assert_eq!(j[0].system, None);
        let bad = "{\"candidate\": \"a dog\", \"references\": [], \"ratings\": [3]}";
        assert_eq!(
            read_judgments(bad, "j.jsonl").err().map(|e| e.to_string()),
            Some("j.jsonl:1: \"references\" is empty".to_string())
        );
        let mixed = format!(
            "{}\n{}",
            text.trim(),
            text.trim().replace('}', ", \"system\": \"A\"}")
        );
        assert!(matches!(
            read_judgments(&mixed, "j"),
            Err(MetaEvalError::MixedSystems {
                with: 1,
                without: 1,
                ..
            })
        ));
    }

    #[test]
    fn each_score_is_paired_with_each_rating() {
        let j = [
            judgment("a", &[1.0, 2.0], None),
            judgment("b", &[4.0], None),
        ];
        let (x, y) = pairs(&j, &[0.1, 0.9], 0..2);
        assert_eq!(x, [0.1, 0.1, 0.9]);
        assert_eq!(y, [1.0, 2.0, 4.0]);
    }

    #[test]
    fn pearson_over_systems_has_an_interval() {
        let x = [0.1, 0.2, 0.3, 0.4, 0.5];
        let y = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = Bootstrap::default();
        let e = pearson_estimate(&x, &y, b);
        assert!((e.value - 1.0).abs() < 1e-12);
        assert!((e.ci[0] - 1.0).abs() < 1e-12 && (e.ci[1] - 1.0).abs() < 1e-12);
        let reversed = pearson_estimate(&x, &[5.0, 4.0, 3.0, 2.0, 1.0], b);
        assert!((reversed.value + 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_perfect_metric_has_tau_one_and_a_reproducible_interval() {
        let j: Vec<Judgment> = (0..30)
            .map(|k| judgment("c", &[k as f64], Some(["A", "B", "C"][k % 3])))
            .collect();
        let scores = MetricScores {
            name: "perfect",
            scores: (0..30).map(|k| k as f64 / 30.0).collect(),
        };
        let b = Bootstrap {
            resamples: 50,
            seed: 1,
        };
        let r = agreement(&j, std::slice::from_ref(&scores), b);
        assert_eq!(r[0].tau_b.value, 1.0);
        assert_eq!(r[0].spearman.value, 1.0);
        assert_eq!(r[0].pairs, 30);
        let p = r[0].system_pearson.expect("three systems");
        assert!((p.value - 1.0).abs() < 1e-12);
        assert_eq!(agreement(&j, &[scores], b), r);
        assert!(markdown(&r).contains("| perfect | 100.00"));
    }
}
