//! `spice trees --corenlp-models PATH [FILE]`: CoreNLP's PCFG tree of each sentence of each
//! caption, with the model in `../shared/corenlp` (skipped loudly without it, failing with `CI`).

use super::helpers::{spice, spice_with_stdin, stderr, stdout};

#[test]
fn prints_corenlps_tree_of_each_sentence_one_json_line_per_caption() {
    let Some(dir) = super::common::corenlp_dir() else {
        return;
    };
    let model = dir.join("englishPCFG.ser.gz");
    let model = model.to_str().expect("UTF-8 path");
    let o = spice_with_stdin(
        &["trees", "--corenlp-models", model],
        b"A grey cat sleeps on the colourful sofa. It is happy.\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON line");
    // What CoreNLP's own parser prints for these tokens (the British spellings reach the lexicon
    // as "gray" and "colorful"; the tree keeps the words as written).
    assert_eq!(
        line["trees"],
        serde_json::json!([
            "(ROOT (S (NP (DT A) (JJ grey) (NN cat)) (VP (VBZ sleeps) (PP (IN on) (NP (DT the) (JJ colourful) (NN sofa)))) (. .)))",
            "(ROOT (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ happy))) (. .)))"
        ])
    );
    assert_eq!(
        line["caption"],
        "A grey cat sleeps on the colourful sofa. It is happy."
    );
}

#[test]
fn a_missing_model_is_named_in_the_error() {
    let o = spice(&[
        "trees",
        "--corenlp-models",
        "/nonexistent/englishPCFG.ser.gz",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/englishPCFG.ser.gz"),
        "{}",
        stderr(&o)
    );
}

/// `spice INPUT.json --corenlp-models PATH` scores with CoreNLP's parser and says so; without it,
/// the built-in parser, with a one-line notice of how to get the official parser's numbers; a model
/// that cannot be read is named in the error.
#[test]
fn scoring_says_which_parser_and_takes_corenlps_from_the_models() {
    let Some(dir) = super::common::corenlp_dir() else {
        return;
    };
    let model = dir.join("englishPCFG.ser.gz");
    let model = model.to_str().expect("UTF-8 path");
    let input = std::env::temp_dir().join(format!("spice-front-{}.json", std::process::id()));
    std::fs::write(
        &input,
        br#"[{"image_id": 1, "test": "a grey cat sleeps on the colourful sofa",
              "refs": ["a gray cat asleep on a sofa", "a cat is sleeping on a couch"]}]"#,
    )
    .expect("input written");
    let input = input.to_str().expect("UTF-8 path");
    let exact = spice(&[
        input,
        "--corenlp-models",
        model,
        "--detailed",
        "--out",
        "/dev/stdout",
    ]);
    assert_eq!(exact.status.code(), Some(0), "{}", stderr(&exact));
    assert!(
        stderr(&exact).contains("parser: corenlp-3.6.0"),
        "{}",
        stderr(&exact)
    );
    // `-out` records it with each image.
    assert!(
        stdout(&exact).contains("\"front_end\": \"corenlp-3.6.0\""),
        "{}",
        stdout(&exact)
    );
    let built_in = spice(&[input]);
    assert_eq!(built_in.status.code(), Some(0), "{}", stderr(&built_in));
    assert!(
        stderr(&built_in).contains("parser: built-in")
            && stderr(&built_in).contains("--corenlp-models"),
        "{}",
        stderr(&built_in)
    );
    let bad = spice(&[input, "--corenlp-models", "/nonexistent/models.jar"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("/nonexistent/models.jar"),
        "{}",
        stderr(&bad)
    );
    let _ = std::fs::remove_file(input);
}

/// `spice tuples --captions FILE --corenlp-models PATH` proposes with CoreNLP's parser and says
/// so. The expected tuples are the official pipeline's (CoreNLP 3.6.0 and SPICE 1.0's parser on
/// this model), where the built-in parser attaches "by the fence" to a noun "playing".
#[test]
fn tuples_of_captions_take_corenlps_parser_from_the_models() {
    let Some(dir) = super::common::corenlp_dir() else {
        return;
    };
    let model = dir.join("englishPCFG.ser.gz");
    let model = model.to_str().expect("UTF-8 path");
    let caption = b"two dogs playing with a frisbee in the yard by the fence\n";
    let o = spice_with_stdin(
        &["tuples", "--captions", "-", "--corenlp-models", model],
        caption,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("parser: corenlp-3.6.0"),
        "{}",
        stderr(&o)
    );
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON line");
    assert_eq!(
        line["tuples"],
        serde_json::json!([
            ["dog"],
            ["frisbee"],
            ["yard"],
            ["fence"],
            ["dog", "two"],
            ["dog", "play with", "frisbee"],
            ["dog", "play by", "fence"],
            ["frisbee", "in", "yard"]
        ])
    );
    let built_in = spice_with_stdin(&["tuples", "--captions", "-"], caption);
    assert_eq!(built_in.status.code(), Some(0), "{}", stderr(&built_in));
    assert!(
        stderr(&built_in).contains("parser: built-in"),
        "{}",
        stderr(&built_in)
    );
}
