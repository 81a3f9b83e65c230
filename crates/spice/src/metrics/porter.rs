//! The Porter stemmer exactly as ROUGE-1.5.5.pl has it (its `sub stem`: Martin Porter's Perl
//! release 1 of the 1980 algorithm, with ROUGE's change of 2004 to step 4), for ROUGE's `-m`.
//! Not Porter2/Snowball: `generalization` is `gener` here.
//!
//! The Perl states the conditions as regular expressions over these classes:
//!
//! ```text
//! c = [^aeiou]   v = [aeiouy]   C = c[^aeiouy]*   V = v[aeiou]*
//! mgr0 = ^(C)?VC          measure > 0
//! meq1 = ^(C)?VC(V)?$     measure = 1
//! mgr1 = ^(C)?VCVC        measure > 1
//! _v   = ^(C)?v           a vowel in the stem
//! cvc  = ^CV[^aeiouwxy]$  (the whole stem: consonant run, one vowel, a consonant not w x y)
//! ```
//!
//! We match them with a small backtracking matcher over the same pieces (so `y` counts as the
//! Perl counts it, digits are consonants, and a leading `y` is turned into `Y`, a consonant, for
//! the duration as the Perl does). A suffix alternation `(a|b|...)$` matches at its leftmost
//! position, i.e. the longest listed suffix the word ends with; if its condition then fails, no
//! shorter suffix is tried (the Perl's `if ($w =~ /.../) { ... }`).

/// A character class of the Perl's patterns.
#[derive(Clone, Copy)]
enum Class {
    /// `[^aeiou]`
    NotAeiou,
    /// `[^aeiouy]`
    NotAeiouy,
    /// `[aeiouy]`
    Aeiouy,
    /// `[aeiou]`
    Aeiou,
    /// `[^aeiouwxy]`
    NotAeiouwxy,
}

impl Class {
    fn has(self, b: u8) -> bool {
        let aeiou = matches!(b, b'a' | b'e' | b'i' | b'o' | b'u');
        match self {
            Class::NotAeiou => !aeiou,
            Class::NotAeiouy => !aeiou && b != b'y',
            Class::Aeiouy => aeiou || b == b'y',
            Class::Aeiou => aeiou,
            Class::NotAeiouwxy => !aeiou && !matches!(b, b'w' | b'x' | b'y'),
        }
    }
}

/// One piece of a pattern: a character of `first`, then any number of `rest` (none if `rest` is
/// `None`); `optional` for `(...)?`.
#[derive(Clone, Copy)]
struct Piece {
    first: Class,
    rest: Option<Class>,
    optional: bool,
}

/// `C` = `[^aeiou][^aeiouy]*`
const CONS: Piece = Piece {
    first: Class::NotAeiou,
    rest: Some(Class::NotAeiouy),
    optional: false,
};
/// `V` = `[aeiouy][aeiou]*`
const VOW: Piece = Piece {
    first: Class::Aeiouy,
    rest: Some(Class::Aeiou),
    optional: false,
};
/// `v` = `[aeiouy]`
const ONE_VOWEL: Piece = Piece {
    first: Class::Aeiouy,
    rest: None,
    optional: false,
};
const NOT_WXY: Piece = Piece {
    first: Class::NotAeiouwxy,
    rest: None,
    optional: false,
};

const fn opt(p: Piece) -> Piece {
    Piece {
        optional: true,
        ..p
    }
}

/// Whether `pieces` match `s` from its start (and to its end if `to_end`), trying every split.
fn matches(s: &[u8], pieces: &[Piece], to_end: bool) -> bool {
    let Some((p, more)) = pieces.split_first() else {
        return !to_end || s.is_empty();
    };
    if p.optional && matches(s, more, to_end) {
        return true;
    }
    if s.first().is_none_or(|&b| !p.first.has(b)) {
        return false;
    }
    let mut end = 1;
    loop {
        if matches(&s[end..], more, to_end) {
            return true;
        }
        match p.rest {
            Some(class) if end < s.len() && class.has(s[end]) => end += 1,
            _ => return false,
        }
    }
}

/// `^(C)?VC`: measure > 0.
fn mgr0(s: &[u8]) -> bool {
    matches(s, &[opt(CONS), VOW, CONS], false)
}

/// `^(C)?VC(V)?$`: measure = 1.
fn meq1(s: &[u8]) -> bool {
    matches(s, &[opt(CONS), VOW, CONS, opt(VOW)], true)
}

/// `^(C)?VCVC`: measure > 1.
fn mgr1(s: &[u8]) -> bool {
    matches(s, &[opt(CONS), VOW, CONS, VOW, CONS], false)
}

/// `^(C)?v`: the stem has a vowel.
fn has_vowel(s: &[u8]) -> bool {
    matches(s, &[opt(CONS), ONE_VOWEL], false)
}

/// `^CV[^aeiouwxy]$` as the Perl writes it: `^${C}${v}[^aeiouwxy]$`.
fn cvc(s: &[u8]) -> bool {
    matches(s, &[CONS, ONE_VOWEL, NOT_WXY], true)
}

/// The longest of `suffixes` that `w` ends with (the leftmost match of `(a|b|...)$`).
fn longest_suffix<'a>(w: &[u8], suffixes: &[(&'a str, &'a str)]) -> Option<(&'a str, &'a str)> {
    suffixes
        .iter()
        .filter(|(s, _)| w.ends_with(s.as_bytes()))
        .max_by_key(|(s, _)| s.len())
        .copied()
}

const STEP2: [(&str, &str); 21] = [
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
];

const STEP3: [(&str, &str); 7] = [
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
];

/// ROUGE's step 4 list: `-ement` but neither `-ment` nor `-ent` (tried afterwards, separately).
const STEP4: [(&str, &str); 16] = [
    ("al", ""),
    ("ance", ""),
    ("ence", ""),
    ("er", ""),
    ("ic", ""),
    ("able", ""),
    ("ible", ""),
    ("ant", ""),
    ("ement", ""),
    ("ou", ""),
    ("ism", ""),
    ("ate", ""),
    ("iti", ""),
    ("ous", ""),
    ("ive", ""),
    ("ize", ""),
];

/// The stem of a lowercased word, as ROUGE-1.5.5.pl's `stem` gives it. Words shorter than 3
/// bytes come back unchanged.
pub fn stem(word: &str) -> String {
    if word.len() < 3 {
        return word.to_string();
    }
    let mut w: Vec<u8> = word.as_bytes().to_vec();
    // An initial y is a consonant throughout: the Perl uppercases it (`ucfirst`), which no
    // class but the consonant ones contains, and lowercases it at the end.
    let initial_y = w[0] == b'y';
    if initial_y {
        w[0] = b'Y';
    }
    // Step 1a: (ss|i)es -> ss|i; ([^s])s -> $1.
    if w.ends_with(b"sses") || w.ends_with(b"ies") {
        w.truncate(w.len() - 2);
    } else if w.len() >= 2 && w.ends_with(b"s") && w[w.len() - 2] != b's' {
        w.pop();
    }
    // Step 1b.
    if w.ends_with(b"eed") {
        if mgr0(&w[..w.len() - 3]) {
            w.pop();
        }
    } else if w.ends_with(b"ed") || w.ends_with(b"ing") {
        let cut = if w.ends_with(b"ed") { 2 } else { 3 };
        let stem = &w[..w.len() - cut];
        if has_vowel(stem) {
            w.truncate(w.len() - cut);
            let n = w.len();
            if w.ends_with(b"at") || w.ends_with(b"bl") || w.ends_with(b"iz") {
                w.push(b'e');
            } else if n >= 2
                && w[n - 1] == w[n - 2]
                && !matches!(
                    w[n - 1],
                    b'a' | b'e' | b'i' | b'o' | b'u' | b'y' | b'l' | b's' | b'z'
                )
            {
                w.pop();
            } else if cvc(&w) {
                w.push(b'e');
            }
        }
    }
    // Step 1c: y -> i after a stem with a vowel.
    if w.ends_with(b"y") && has_vowel(&w[..w.len() - 1]) {
        *w.last_mut().expect("ends with y") = b'i';
    }
    // Steps 2 and 3: replace the suffix if the stem before it has measure > 0.
    for list in [&STEP2[..], &STEP3[..]] {
        if let Some((suffix, replacement)) = longest_suffix(&w, list) {
            let cut = w.len() - suffix.len();
            if mgr0(&w[..cut]) {
                w.truncate(cut);
                w.extend_from_slice(replacement.as_bytes());
            }
        }
    }
    // Step 4 (ROUGE's): the list, then -ment, then -ent or else (s|t)ion, each removed if the
    // stem before it has measure > 1; each sees the word the previous one left.
    if let Some((suffix, _)) = longest_suffix(&w, &STEP4) {
        let cut = w.len() - suffix.len();
        if mgr1(&w[..cut]) {
            w.truncate(cut);
        }
    }
    if w.ends_with(b"ment") && mgr1(&w[..w.len() - 4]) {
        w.truncate(w.len() - 4);
    }
    if w.ends_with(b"ent") {
        if mgr1(&w[..w.len() - 3]) {
            w.truncate(w.len() - 3);
        }
    } else if (w.ends_with(b"sion") || w.ends_with(b"tion")) && mgr1(&w[..w.len() - 3]) {
        w.truncate(w.len() - 3);
    }
    // Step 5: final e, then ll.
    if w.ends_with(b"e") {
        let stem = &w[..w.len() - 1];
        if mgr1(stem) || (meq1(stem) && !cvc(stem)) {
            w.pop();
        }
    }
    if w.ends_with(b"ll") && mgr1(&w) {
        w.pop();
    }
    if initial_y {
        w[0] = b'y';
    }
    String::from_utf8(w).expect("ASCII in, ASCII out")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each checked against ROUGE-1.5.5.pl's `stem` (the script's sub run by perl on the word).
    #[test]
    fn words_stem_as_rouge_stems_them() {
        for (word, expected) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("generalization", "gener"),
            ("oscillators", "oscil"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("electrical", "electr"),
            ("adjustment", "adjust"),
            ("replacement", "replac"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("controll", "control"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("running", "run"),
            ("skiing", "ski"),
            ("young", "young"),
            ("yelling", "yell"),
            ("playing", "plai"),
            ("dogs", "dog"),
            ("people", "peopl"),
            ("standing", "stand"),
            ("2000s", "2000"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }
}
