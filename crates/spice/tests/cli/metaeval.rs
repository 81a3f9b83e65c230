//! `spice meta-eval`: agreement of metrics with human ratings, on judgments made up for the test
//! whose answers are known (the statistics themselves are checked against scipy in
//! `metaeval_parity.rs`).

use serde_json::{json, Value};

use crate::helpers::{spice, stderr, stdout, TestDir};

const REFERENCES: [&str; 2] = [
    "a dog runs on the grass",
    "a brown dog is running in a field",
];

/// Candidates whose unigram BLEU against [`REFERENCES`] falls strictly from first to last.
const CANDIDATES: [&str; 4] = [
    "a dog runs on the grass",
    "a dog runs on the beach",
    "a cat sits on the sofa",
    "two men play chess indoors",
];

/// One judgment line per candidate, rated `rating(k)` by three judges, with a system if given.
fn judgments(rating: impl Fn(usize) -> f64, system: impl Fn(usize) -> Option<String>) -> String {
    CANDIDATES
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mut j = json!({
                "candidate": c,
                "references": REFERENCES,
                "ratings": vec![rating(k); 3],
            });
            if let Some(s) = system(k) {
                j["system"] = json!(s);
            }
            j.to_string() + "\n"
        })
        .collect()
}

fn run(dir: &TestDir, lines: &str, extra: &[&str]) -> (Value, String) {
    let input = dir.file("judgments.jsonl", lines);
    let out = dir.path("agreement.json");
    let mut args = vec!["meta-eval", "--judgments", &input, "--out", &out];
    args.extend_from_slice(extra);
    let o = spice(&args);
    assert!(o.status.success(), "meta-eval failed: {}", stderr(&o));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("output")).expect("JSON");
    (json, stdout(&o))
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-9)
}

#[test]
fn meta_eval_finds_full_agreement_and_full_disagreement() {
    let dir = TestDir::new();
    let metrics = ["--metrics", "bleu,rouge", "--resamples", "200"];
    let (agree, table) = run(&dir, &judgments(|k| (4 - k) as f64, |_| None), &metrics);
    let (disagree, _) = run(&dir, &judgments(|k| (1 + k) as f64, |_| None), &metrics);
    for name in ["Bleu_1", "ROUGE_L"] {
        let m = &agree["metrics"][name];
        assert!(close(&m["tau_b"], 1.0), "{name} agrees fully: {m}");
        assert!(close(&m["spearman"], 1.0), "{name}: {m}");
        assert!(m["tau_c"].as_f64().is_some_and(|t| t > 0.5), "{name}: {m}");
        let ci = m["tau_b_ci"].as_array().expect("an interval");
        assert!(
            ci.len() == 2 && ci[0].as_f64() <= ci[1].as_f64(),
            "{name}: {m}"
        );
        assert_eq!(m["candidates"], json!(4));
        assert_eq!(
            m["pairs"],
            json!(12),
            "each candidate paired with each of its 3 ratings"
        );
        assert!(m.get("pearson_system").is_none(), "no systems were given");
        assert!(
            close(&disagree["metrics"][name]["tau_b"], -1.0),
            "{name} reversed"
        );
        assert!(
            table.contains(name),
            "the Markdown table names {name}:\n{table}"
        );
    }
    assert_eq!(agree["bootstrap"]["resamples"], json!(200));
    assert_eq!(
        agree["metrics"].as_object().map(|m| m.len()),
        Some(5),
        "Bleu_1..4 and ROUGE_L: only the metrics asked for"
    );
}

#[test]
fn meta_eval_correlates_systems_when_judgments_name_them() {
    let dir = TestDir::new();
    // Three systems, one of them a candidate each; the best-rated system has the best candidate.
    let system = |k: usize| Some(format!("system-{}", k.min(2)));
    let (json, table) = run(
        &dir,
        &judgments(|k| (4 - k) as f64, system),
        &["--metrics", "bleu", "--resamples", "100"],
    );
    let m = &json["metrics"]["Bleu_1"];
    assert_eq!(m["systems"], json!(3), "{m}");
    assert!(m["pearson_system"].as_f64().is_some_and(|r| r > 0.9), "{m}");
    assert!(m["pearson_system_ci"].is_array(), "{m}");
    assert!(table.contains("Bleu_1"));
}

#[test]
fn meta_eval_names_what_is_wrong_with_its_input() {
    let dir = TestDir::new();
    let good = judgments(|k| (4 - k) as f64, |_| None);
    let cases = [
        (
            format!("{good}{{\"candidate\": \"a dog\", \"references\": []}}\n"),
            vec!["--metrics", "bleu"],
            "judgments.jsonl:5: \"references\" is empty",
        ),
        (
            format!("{good}not json\n"),
            vec!["--metrics", "bleu"],
            "judgments.jsonl:5: not JSON",
        ),
        (
            format!(
                "{good}{}\n",
                json!({"candidate": "a dog", "references": ["a dog"], "ratings": [1], "system": "x"})
            ),
            vec!["--metrics", "bleu"],
            "1 judgments name a system and 4 do not",
        ),
        (
            good.clone(),
            vec!["--metrics", "bleu,bogus"],
            "unknown metric \"bogus\"",
        ),
        (String::new(), vec!["--metrics", "bleu"], "no judgments"),
    ];
    for (lines, extra, want) in cases {
        let input = dir.file("judgments.jsonl", &lines);
        let mut args = vec!["meta-eval", "--judgments", input.as_str()];
        args.extend_from_slice(&extra);
        let o = spice(&args);
        assert!(!o.status.success(), "accepted bad input: {lines}");
        assert!(
            stderr(&o).contains(want),
            "expected {want:?} in {}",
            stderr(&o)
        );
    }
}

#[test]
fn meta_eval_refuses_rouge_su4_stem_without_its_data_and_names_the_fix() {
    let dir = TestDir::new();
    let input = dir.file("judgments.jsonl", judgments(|k| (4 - k) as f64, |_| None));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(["meta-eval", "--judgments", &input])
        .args(["--metrics", "rouge_su4,rouge_su4_stem"])
        .env("SPICEBOARD_DATA", dir.path("no-data-here"))
        .output()
        .expect("spice runs");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("ROUGE_SU4_stem needs it")
            && err.contains("scripts/fetch-data")
            && err.contains("leave rouge_su4_stem out"),
        "{err}"
    );
}
