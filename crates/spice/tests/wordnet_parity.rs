//! The embedded lexicon against METEOR 1.5's own `SynonymDictionary`, run through the machine's
//! Java on the jar that `scripts/fetch-data` unpacks (SPICEBOARD_DATA). Every word of
//! `english.synsets` and every irregular form of `english.exceptions` is checked, plus suffixed
//! forms of every word so that each suffix rule is exercised.

use std::collections::BTreeSet;

use spice::wordnet::Lexicon;

mod common;

fn join(ids: &[u32]) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
}

#[test]
fn lexicon_matches_meteor_synonym_dictionary() {
    let data = common::data_dir("meteor-1.5.jar");
    let syn_dir = data.join("meteor-synonym");
    let lex = Lexicon::embedded();

    let synsets =
        std::fs::read_to_string(syn_dir.join("english.synsets")).expect("english.synsets");
    let exceptions =
        std::fs::read_to_string(syn_dir.join("english.exceptions")).expect("english.exceptions");
    let mut words: BTreeSet<String> = synsets.lines().step_by(2).map(str::to_string).collect();
    let dictionary_words = words.len();
    words.extend(
        exceptions
            .lines()
            .skip(1)
            .step_by(2)
            .flat_map(|l| l.split_whitespace().map(str::to_string)),
    );
    // Inflected forms reach the suffix rules (METEOR's morph); every 7th word keeps the run short.
    let inflected: Vec<String> = words
        .iter()
        .step_by(7)
        .flat_map(|w| {
            ["s", "es", "ies", "ed", "ing", "er", "est", "men"].map(|s| format!("{w}{s}"))
        })
        .collect();
    words.extend(inflected);
    words.extend(
        [
            "", "a", "ab", "ss", "glass", "dresses", "handfuls", "cupful",
        ]
        .map(str::to_string),
    );

    let input: String = words.iter().map(|w| format!("{w}\n")).collect();
    let text = common::java_oracle(
        &data.join("meteor-1.5.jar"),
        "MeteorSynonyms.java",
        &[syn_dir.as_os_str()],
        input,
    );

    let mut checked = 0;
    let mut mismatches = Vec::new();
    for line in text.lines() {
        let mut parts = line.split('\t');
        let (Some(word), Some(syn), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
            panic!("bad oracle line {line:?}");
        };
        let ours = (join(lex.synsets(word)), join(&lex.stem_synsets(word)));
        if ours != (syn.to_string(), stem.to_string()) {
            mismatches.push(format!(
                "{word:?}: meteor ({syn}) / ({stem}), ours ({}) / ({})",
                ours.0, ours.1
            ));
        }
        checked += 1;
    }
    assert_eq!(checked, words.len(), "oracle answered every word");
    assert!(checked > dictionary_words, "{checked} words checked");
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {checked}, first: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(10)]
    );
}
