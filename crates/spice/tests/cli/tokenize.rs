//! `spice tokenize [--coco] [FILE]`: one output line per input line.

use super::helpers::{spice_with_stdin, stderr, stdout};

fn run(args: &[&str], input: &str) -> (i32, String, String) {
    let mut all = vec!["tokenize"];
    all.extend_from_slice(args);
    let o = spice_with_stdin(&all, input.as_bytes());
    (o.status.code().unwrap_or(-1), stdout(&o), stderr(&o))
}

#[test]
fn prints_ptb_tokens_one_line_per_input_line() {
    let input = "He said \"don't\" (ok).\n\nA man\u{2019}s hat\r\n";
    let (code, out, _) = run(&[], input);
    assert_eq!(code, 0);
    // The empty line stays an empty line; the CR of a CRLF line end is white space.
    assert_eq!(
        out,
        "He said `` do n't '' -LRB- ok -RRB- .\n\nA man 's hat\n"
    );
}

#[test]
fn coco_form_is_lowercased_without_punctuation() {
    let (code, out, _) = run(&["--coco"], "He said \"don't\" (ok).\nTwo dogs, running!");
    assert_eq!(code, 0);
    assert_eq!(out, "he said do n't -lrb- ok -rrb-\ntwo dogs running\n");
}

#[test]
fn bad_input_is_an_error_naming_the_file() {
    let (code, _, err) = run(&["/nonexistent/captions.txt"], "");
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/captions.txt"), "{err}");
    let o = spice_with_stdin(&["tokenize", "-"], b"ok\n\xff\xfe\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not UTF-8"));
}
