//! `spice tokenize [--coco] [FILE]`: one output line per input line.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spice"))
        .arg("tokenize")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spice");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for spice");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_spice"))
        .args(["tokenize", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spice");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"ok\n\xff\xfe\n")
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for spice");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
}
