//! `spice INPUT.json` as users drive it: the jar's interface, exit codes and error messages.

use super::helpers::{spice, stderr, TestDir};

#[test]
fn help_on_every_command() {
    for args in [
        &["--help"][..],
        &["help"],
        &["score", "--help"],
        &["parse", "--help"],
        &["tuples", "--help"],
    ] {
        let o = spice(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("Usage"),
            "{args:?}"
        );
    }
}

#[test]
fn bad_usage_exits_2() {
    assert_eq!(spice(&[]).status.code(), Some(2));
    assert_eq!(spice(&["in.json", "-bogus"]).status.code(), Some(2));
    assert_eq!(
        spice(&["in.json", "-threads", "many"]).status.code(),
        Some(2)
    );
    assert_eq!(spice(&["tuples"]).status.code(), Some(2));
}

#[test]
fn bad_input_exits_1_naming_the_item_and_field() {
    let d = TestDir::new();
    let cases: [(&[u8], &str); 5] = [
        (b"{\"image_id\": 1}", "a JSON array"),
        (
            b"[{\"image_id\": 3, \"test\": [\"a\"], \"refs\": [\"b\"]}]",
            "item 0 (image_id 3): field \"test\": expected a string, found an array",
        ),
        (
            b"[{\"image_id\": 3, \"test\": \"a\", \"refs\": []}]",
            "item 0 (image_id 3): field \"refs\": needs at least one reference",
        ),
        (
            b"[{\"test\": \"a\", \"refs\": [\"b\"]}]",
            "item 0: missing field \"image_id\"",
        ),
        (
            b"[{\"image_id\": 1, \"test\": \"caf\xe9\", \"refs\": [\"b\"]}]",
            "not valid JSON",
        ),
    ];
    for (i, (json, expect)) in cases.iter().enumerate() {
        let f = d.file(&format!("in{i}.json"), json);
        let o = spice(&[&f, "-silent"]);
        assert_eq!(o.status.code(), Some(1), "{expect}");
        assert!(
            stderr(&o).contains(expect),
            "expected {expect:?} in {:?}",
            stderr(&o)
        );
    }
    let o = spice(&["/nonexistent/input.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/nonexistent/input.json: cannot open"));
}

#[test]
fn a_one_gigabyte_file_of_garbage_fails_fast() {
    let d = TestDir::new();
    let path = d.join("huge.json");
    // A sparse file: 1 GiB of NUL bytes costs no disk and no time to create.
    let f = std::fs::File::create(&path).expect("create");
    f.set_len(1 << 30).expect("set_len");
    let o = spice(&[path.to_str().expect("utf-8 path"), "-silent"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not valid JSON"), "{}", stderr(&o));
}

#[test]
fn tuples_basic_collapses_basic_ud_first() {
    // "a bear next to a fence" as a parser gives it in basic UD: "next" heads "to a fence". With
    // --basic, enhance folds it into nmod:next_to, as the official graph has (bear, next to, fence).
    let dir = TestDir::new();
    let rows = [
        "1\ta\ta\t_\tDT\t_\t2\tdet\t_\t_",
        "2\tbear\tbear\t_\tNN\t_\t0\troot\t_\t_",
        "3\tnext\tnext\t_\tJJ\t_\t2\tnmod\t_\t_",
        "4\tto\tto\t_\tTO\t_\t6\tcase\t_\t_",
        "5\ta\ta\t_\tDT\t_\t6\tdet\t_\t_",
        "6\tfence\tfence\t_\tNN\t_\t3\tnmod\t_\t_",
    ];
    let file = dir.file("bear.conllu", format!("{}\n\n", rows.join("\n")).as_bytes());
    let out = spice(&["tuples", "--conllu", &file, "--basic"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"sentence\":1,\"tuples\":[[\"bear\"],[\"bear\",\"next to\",\"fence\"],[\"fence\"]]}\n"
    );
    // Without --basic the same file is read as already collapsed: plain nmod gives no relation.
    let out = spice(&["tuples", "--conllu", &file]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("next to"));
}
