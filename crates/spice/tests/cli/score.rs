//! `spice INPUT.json` as users drive it: the jar's interface, exit codes and error messages.

use serde_json::{json, Value};

use super::helpers::{spice, stderr, stdout, TestDir};

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
    let cases: [(&[u8], &str); 7] = [
        (b"", "the file is empty: it should hold a JSON array of {\"image_id\", \"test\", \"refs\"} objects"),
        (
            b"\xef\xbb\xbf[{\"image_id\": 1, \"test\": \"a\", \"refs\": [\"b\"]}]",
            "the file begins with a UTF-8 byte-order mark (BOM)",
        ),
        (b"{\"image_id\": 1}", "a JSON array"),
        (
            b"[{\"image_id\": 3, \"test\": [\"a\"], \"refs\": [\"b\"]}]",
            "item 1 (image_id 3): field \"test\": expected a string, found an array",
        ),
        (
            b"[{\"image_id\": 3, \"test\": \"a\", \"refs\": \"b\"}]",
            "item 1 (image_id 3): field \"refs\": expected an array of strings, found a string",
        ),
        (
            b"[{\"test\": \"a\", \"refs\": [\"b\"]}]",
            "item 1: missing field \"image_id\"",
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
fn jar_input_with_extra_fields_is_scored_as_without_them() {
    // Other tools write more than the jar reads; the jar ignores the rest, and so do we.
    let d = TestDir::new();
    let plain = json!([
        {"image_id": 7, "test": "a brown dog on the grass", "refs": ["a dog runs on green grass"]},
        {"image_id": "kitchen-2", "test": "a red kettle", "refs": ["a kettle on a stove"]},
    ]);
    let extra = json!([
        {"image_id": 7, "file_name": "7.jpg", "test": "a brown dog on the grass",
         "refs": ["a dog runs on green grass"], "score": 0.7},
        {"image_id": "kitchen-2", "test": "a red kettle", "refs": ["a kettle on a stove"],
         "meta": {"source": "model-b", "beam": [1, 2]}},
    ]);
    let run = |name: &str, input: &Value, extra_args: &[&str]| {
        let input = d.file(name, input.to_string());
        let out = d.path(&format!("{name}.out"));
        let mut args = vec![input.as_str(), "-out", &out, "-subset", "-detailed"];
        args.extend_from_slice(extra_args);
        let o = spice(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        (
            std::fs::read_to_string(&out).expect("output written"),
            stdout(&o),
            stderr(&o),
        )
    };
    let (plain_json, plain_summary, _) = run("plain.json", &plain, &[]);
    let (json, summary, quiet) = run("extra.json", &extra, &[]);
    assert_eq!(json, plain_json);
    assert_eq!(summary, plain_summary);
    assert!(!quiet.contains("ignored"), "{quiet}");
    let (_, _, verbose) = run("extra.json", &extra, &["-verbose"]);
    for field in ["file_name", "score", "meta"] {
        assert!(
            verbose.contains(&format!("ignored field \"{field}\"")),
            "{verbose}"
        );
    }
}

#[test]
fn empty_refs_and_numeric_ids_are_read_as_the_jar_reads_them() {
    let d = TestDir::new();
    let input = d.file(
        "in.json",
        json!([
            {"image_id": 3.0, "test": "a dog on the grass", "refs": []},
            {"image_id": 12, "test": "a cat", "refs": ["a cat on a mat"]},
        ])
        .to_string(),
    );
    let out = d.path("out.json");
    let o = spice(&[&input, "-out", &out, "-subset", "-silent"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
    // The jar's JavaScript pretty-printer writes 3.0 as 3.
    assert_eq!(v[0]["image_id"].to_string(), "3");
    assert_eq!(v[1]["image_id"], json!(12));
    // No reference: the candidate's tuples are all false positives and `All` scores 0 (the jar's
    // Evaluation without NaN); a category has no reference tuple, so it is undefined (null).
    let all = &v[0]["scores"]["All"];
    assert!(all["fp"].as_u64() > Some(0), "{all}");
    assert_eq!(
        (&all["tp"], &all["fn"], &all["f"], &all["pr"], &all["re"]),
        (&json!(0), &json!(0), &json!(0), &json!(0), &json!(0))
    );
    assert_eq!(v[0]["scores"]["Object"]["f"], Value::Null);
}

/// `-out` records the front end that parsed the captions: `"front_end"` after the jar's keys in
/// each image's object (pycocoevalcap reads `image_id` and `scores` and ignores it), with the
/// jar's keys as the jar writes them.
#[test]
fn out_records_the_front_end_after_the_jars_keys() {
    let d = TestDir::new();
    let input = d.file(
        "in.json",
        json!([
            {"image_id": 1, "test": "a dog on the grass", "refs": ["a dog runs on grass"]},
            {"image_id": 2, "test": "a cat", "refs": ["a cat on a mat"]},
        ])
        .to_string(),
    );
    let out = d.path("out.json");
    for extra in [&[][..], &["-subset", "-detailed"][..]] {
        let mut args = vec![input.as_str(), "-out", &out, "-silent"];
        args.extend_from_slice(extra);
        let o = spice(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
        for item in v.as_array().expect("the jar's array") {
            let keys: Vec<&str> = item
                .as_object()
                .expect("an object per image")
                .keys()
                .map(String::as_str)
                .collect();
            let jar: &[&str] = if extra.is_empty() {
                &["scores", "image_id"]
            } else {
                &["test_tuples", "ref_tuples", "scores", "image_id"]
            };
            assert_eq!(keys[..keys.len() - 1], *jar, "{item}");
            assert_eq!(keys.last(), Some(&"front_end"));
            assert_eq!(item["front_end"], "built-in");
        }
    }
}

#[test]
fn several_candidate_tuples_matching_one_reference_tuple_give_the_jars_negative_fn() {
    // The official jar's output for this input (../shared/corenlp/README.md): its counts are Java
    // ints, so fn is negative and recall above 1. The three reference objects merge into one
    // concept, which the candidate's two objects and two relations each match.
    let d = TestDir::new();
    let input = d.file(
        "in.json",
        json!([{"image_id": 1,
                "test": "a bathroom with a toilet and a tub and a bath and a toilette and a lavatory",
                "refs": ["a bathroom with a toilet and a bath"]}])
        .to_string(),
    );
    let out = d.path("out.json");
    let o = spice(&[&input, "-out", &out, "-subset"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
    let scores = &v[0]["scores"];
    assert_eq!(
        scores["All"],
        json!({"tp": 4, "fp": 0, "fn": -2, "pr": 1, "re": 2, "f": 1.3333333333333333,
               "numImages": 1})
    );
    for category in ["Object", "Relation"] {
        let s = &scores[category];
        assert_eq!(
            (&s["tp"], &s["fn"], &s["re"]),
            (&json!(2), &json!(-1), &json!(2)),
            "{s}"
        );
    }
    // The printed summary sums the counts as the jar does.
    assert!(
        stdout(&o)
            .contains("  recall:\t2.000\n  true pos:\t4\n  false pos:\t0\n  false neg:\t-2\n"),
        "{}",
        stdout(&o)
    );
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

#[test]
fn tuples_captions_prints_one_line_of_proposals_per_caption() {
    let dir = TestDir::new();
    let file = dir.file(
        "captions.txt",
        "A dog runs on the grass.\na baby is holding a toothbrush in his mouth\n\n",
    );
    let out = spice(&["tuples", "--captions", &file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    // As the official parser cache writes them: objects, attributes, then relations as
    // [subject, relation, object], lemmatized; an empty line has no tuples.
    assert_eq!(
        lines,
        [
            json!({"caption": "A dog runs on the grass.",
                   "tuples": [["dog"], ["grass"], ["dog", "run on", "grass"]]}),
            json!({"caption": "a baby is holding a toothbrush in his mouth",
                   "tuples": [["baby"], ["toothbrush"], ["mouth"], ["baby", "hold", "toothbrush"],
                              ["toothbrush", "in", "mouth"], ["baby", "have", "mouth"]]}),
            json!({"caption": "", "tuples": []}),
        ]
    );
    let missing = spice(&["tuples", "--captions", &dir.path("nope.txt")]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("nope.txt"),
        "{}",
        stderr(&missing)
    );
}

/// `-cache DIR`, which pycocoevalcap always passes: the first run parses every distinct caption
/// and keeps its proposals; the next run on the same captions parses none and writes the same
/// scores; what it reads is the file's (an entry changed by hand changes that image's score); a
/// torn last line is skipped.
#[test]
fn cache_keeps_each_captions_proposals_for_the_next_run() {
    let d = TestDir::new();
    let input = d.file(
        "in.json",
        json!([
            {"image_id": 1, "test": "a dog runs on the grass",
             "refs": ["a dog running on grass", "a brown dog in a field"]},
            {"image_id": 2, "test": "a red bus", "refs": ["a red bus on a street"]},
        ])
        .to_string(),
    );
    let cache = d.path("cache");
    let run = |out: &str| {
        let o = spice(&[&input, "-out", out, "-cache", &cache, "-silent", "-verbose"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let scores: Value =
            serde_json::from_str(&std::fs::read_to_string(out).expect("written")).expect("JSON");
        (stderr(&o), scores)
    };
    let (said, first) = run(&d.path("1.json"));
    assert!(said.contains("cache: 0 captions known"), "{said}");
    assert!(
        said.contains("cache: 5 captions parsed and added"),
        "{said}"
    );
    let (said, second) = run(&d.path("2.json"));
    assert!(said.contains("cache: 5 captions known"), "{said}");
    assert!(said.contains("cache: 0 captions parsed"), "{said}");
    assert_eq!(first, second);

    let file = std::fs::read_dir(d.join("cache"))
        .expect("the cache directory")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a cache file");
    let text = std::fs::read_to_string(&file).expect("cache file");
    assert_eq!(text.lines().filter(|l| !l.is_empty()).count(), 5, "{text}");
    let changed: String = text
        .lines()
        .map(|l| {
            if l.starts_with("[\"a red bus\",") {
                "[\"a red bus\",[[\"cat\"]]]".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&file, format!("{changed}\n[\"a dog ru")).expect("rewrite");
    let (said, third) = run(&d.path("3.json"));
    assert!(said.contains("cache: 5 captions known"), "{said}");
    assert_eq!(third[0]["scores"], first[0]["scores"]);
    assert_ne!(third[1]["scores"], first[1]["scores"]);
    assert_eq!(third[1]["scores"]["All"]["tp"], 0, "{}", third[1]);
}
