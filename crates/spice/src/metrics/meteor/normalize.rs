//! METEOR 1.5's `-norm` normaliser for English (`edu.cmu.meteor.util.Normalizer`, the western
//! branch, punctuation kept), followed by the lowercasing `MeteorScorer` applies.
//!
//! In: one caption as the jar reads it. Out: its words separated by single spaces. The steps are
//! the jar's regular expressions in the jar's order (a Moses tokenizer with METEOR's additions):
//! set punctuation apart, escape runs of dots, split commas outside numbers, unify quotes and
//! dashes, drop dashes between words, split English contractions to the right, split a final dot
//! unless the word is a nonbreaking prefix (`nonbreaking/english.prefixes` in the jar), collapse
//! white space. Its character classes are the jar's: `\p{Digit}` and `\p{Lower}` are ASCII there.
//!
//! Each regular expression is written out by hand with the semantics of Java's `replaceAll`
//! (leftmost matches, not overlapping): most are "one character of a class, a literal, one
//! character of a class", which a left-to-right scan replaces exactly. (A regex engine without
//! automata was 50 times slower here; tests/meteor_parity.rs checks the result on every COCO
//! val2014 caption against the jar.)

use std::collections::HashMap;

/// How a nonbreaking prefix keeps its dot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prefix {
    /// "Mr." keeps its dot anywhere.
    Any,
    /// "No." keeps its dot only before a number (`#NUMERIC_ONLY#`).
    NumericOnly,
}

/// The normaliser: the nonbreaking prefixes of `english.prefixes`.
#[derive(Debug)]
pub(super) struct Normalizer {
    prefixes: HashMap<String, Prefix>,
}

impl Normalizer {
    /// `prefixes` is the text of `english.prefixes`: one prefix a line, `#` comments, an optional
    /// `#NUMERIC_ONLY#` after the prefix.
    pub(super) fn new(prefixes: &str) -> Normalizer {
        let mut table = HashMap::new();
        for line in prefixes.lines() {
            let mut tokens = line.split(is_tokenizer_space).filter(|t| !t.is_empty());
            let Some(prefix) = tokens.next() else {
                continue;
            };
            if prefix.starts_with('#') {
                continue;
            }
            let kind = match tokens.next() {
                Some("#NUMERIC_ONLY#") => Prefix::NumericOnly,
                _ => Prefix::Any,
            };
            table.insert(prefix.to_string(), kind);
        }
        Normalizer { prefixes: table }
    }

    /// The caption as the jar scores it: normalised, then lowercased.
    pub(super) fn normalize(&self, line: &str) -> String {
        // Lowercase ASCII letters, digits and single spaces pass every step unchanged but the
        // last (collapse and trim white space); most tokenized captions are such.
        if line
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b' ')
        {
            return collapse_spaces(line);
        }
        self.normalize_western(line).to_lowercase()
    }

    fn normalize_western(&self, line: &str) -> String {
        // `([^alnum\s.'`,\-‘’])` -> " $1 ", the line wrapped in spaces first.
        let mut s: Vec<char> = Vec::with_capacity(line.len() + 16);
        s.push(' ');
        for c in line.chars() {
            if is_alnum(c)
                || matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r')
                || matches!(c, '.' | '\'' | '`' | ',' | '-' | '‘' | '’')
            {
                s.push(c);
            } else {
                s.extend([' ', c, ' ']);
            }
        }
        s.push(' ');
        let mut s: String = s.into_iter().collect();
        // Runs of dots escaped: `\.([\.]+)` -> " DOTMULTI$1", then while "DOTMULTI." remains,
        // `DOTMULTI\.([^\.])` -> "DOTDOTMULTI $1" and "DOTMULTI." -> "DOTDOTMULTI".
        if s.contains("..") || s.contains("DOTMULTI") {
            s = escape_dot_runs(&s);
            while s.contains("DOTMULTI.") {
                s = split_after_dotmulti(&s);
                s = s.replace("DOTMULTI.", "DOTDOTMULTI");
            }
        }
        let digit = |c: char| c.is_ascii_digit();
        let not_digit = |c: char| !c.is_ascii_digit();
        if s.contains(',') {
            s = triples(&s, not_digit, ',', not_digit, " , ");
            s = triples(&s, digit, ',', not_digit, " , ");
            s = triples(&s, not_digit, ',', digit, " , ");
        }
        // Quotes: `` ` ‘ ’ `` -> ', then “ ” and '' -> " \" ".
        if s.contains(['`', '‘', '’']) {
            s = s.replace(['`', '‘', '’'], "'");
        }
        if s.contains(['“', '”']) || s.contains("''") {
            s = double_quotes(&s);
        }
        // Dashes: – -> -, -- -> -, then `([alnum.])[\-]([alnum])` -> "$1 $2".
        if s.contains(['-', '–']) {
            s = s.replace('–', "-").replace("--", "-");
            s = triples(&s, |c| is_alnum(c) || c == '.', '-', is_alnum, " ");
        }
        // English contractions split to the right ("it's" -> "it 's").
        if s.contains('\'') {
            let not_alpha = |c: char| !is_alpha(c);
            s = triples(&s, not_alpha, '\'', not_alpha, " ' ");
            s = triples(
                &s,
                |c| !is_alpha(c) && !c.is_ascii_digit(),
                '\'',
                is_alpha,
                " ' ",
            );
            s = triples(&s, is_alpha, '\'', not_alpha, " ' ");
            s = triples(&s, is_alpha, '\'', is_alpha, " '");
            s = triples(&s, digit, '\'', |c| c == 's', " '");
        }
        // Words with their dots still attached; a final dot is split off unless the word is a
        // nonbreaking prefix, an acronym (dots dropped: "U.S." -> "US"), or followed by a
        // lowercase word.
        let words: Vec<&str> = s
            .split(is_tokenizer_space)
            .filter(|w| !w.is_empty())
            .collect();
        let mut out = String::with_capacity(s.len());
        for (i, word) in words.iter().enumerate() {
            let next = words.get(i + 1);
            match word.strip_suffix('.') {
                Some(pre) if java_len(word) > 1 => {
                    let kind = self.prefixes.get(pre).copied();
                    if pre.contains('.') && pre.contains(is_alpha) {
                        out.push_str(&word.replace('.', ""));
                    } else if kind == Some(Prefix::Any)
                        || next.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_lowercase()))
                        || (kind == Some(Prefix::NumericOnly)
                            && next.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit())))
                    {
                        out.push_str(word);
                    } else {
                        out.push_str(pre);
                        out.push_str(" .");
                    }
                }
                _ => out.push_str(word),
            }
            out.push(' ');
        }
        let mut s = out;
        if s.contains("DOTMULTI") {
            while s.contains("DOTDOTMULTI") {
                s = s.replace("DOTDOTMULTI", "DOTMULTI.");
            }
            s = s.replace("DOTMULTI", ".");
        }
        // `[ \u2000-\u200a\u202f\u205f\u3000\u00a0]+` -> " ", then Java's trim.
        let s: String = s
            .split(is_jar_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        java_trim(&s).to_string()
    }
}

/// `replaceAll` of a pattern `([a])LIT([b])` by `$1` + `middle` + `$2`.
fn triples(
    s: &str,
    a: impl Fn(char) -> bool,
    lit: char,
    b: impl Fn(char) -> bool,
    middle: &str,
) -> String {
    if !s.contains(lit) {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len() && chars[i + 1] == lit && a(chars[i]) && b(chars[i + 2]) {
            out.push(chars[i]);
            out.push_str(middle);
            out.push(chars[i + 2]);
            i += 3;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `\.([\.]+)` -> " DOTMULTI$1": each run of two or more dots loses its first dot to the mark.
fn escape_dot_runs(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(start) = rest.find("..") {
        out.push_str(&rest[..start]);
        let run = rest[start..].bytes().take_while(|&b| b == b'.').count();
        out.push_str(" DOTMULTI");
        out.push_str(&rest[start + 1..start + run]);
        rest = &rest[start + run..];
    }
    out.push_str(rest);
    out
}

/// `DOTMULTI\.([^\.])` -> "DOTDOTMULTI $1".
fn split_after_dotmulti(s: &str) -> String {
    const MARK: &str = "DOTMULTI.";
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        match after.chars().next() {
            Some(c) if c != '.' => {
                out.push_str(&rest[..at]);
                out.push_str("DOTDOTMULTI ");
                out.push(c);
                rest = &after[c.len_utf8()..];
            }
            _ => {
                // No match here; the search goes on from the next character.
                let next = at + 'D'.len_utf8();
                out.push_str(&rest[..next]);
                rest = &rest[next..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `([“”]|'')` -> " \" ".
fn double_quotes(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '“' | '”' => out.push_str(" \" "),
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                out.push_str(" \" ");
            }
            _ => out.push(c),
        }
    }
    out
}

fn collapse_spaces(s: &str) -> String {
    s.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The jar's letters (`alpha`): ASCII, Latin-1 and Latin Extended-A letters, Cyrillic:
/// `A-Za-zŠŽšžŸÀ-ÖØ-öø-žЀ-ӿԀ-ԧꙀ-ꙮ꙾-ꚗᴀ-ᵿ`.
fn is_alpha(c: char) -> bool {
    c.is_ascii_alphabetic()
        || matches!(c, 'Š' | 'Ž' | 'š' | 'ž' | 'Ÿ')
        || ('À'..='Ö').contains(&c)
        || ('Ø'..='ö').contains(&c)
        || ('ø'..='ž').contains(&c)
        || ('Ѐ'..='ӿ').contains(&c)
        || ('Ԁ'..='ԧ').contains(&c)
        || ('Ꙁ'..='ꙮ').contains(&c)
        || ('꙾'..='ꚗ').contains(&c)
        || ('ᴀ'..='ᵿ').contains(&c)
}

/// `alnum` of the jar: ASCII digits and [`is_alpha`].
fn is_alnum(c: char) -> bool {
    c.is_ascii_digit() || is_alpha(c)
}

/// The characters of the jar's white-space pattern (not tabs: those only the final trim and
/// the word splitting see).
fn is_jar_space(c: char) -> bool {
    matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
        || ('\u{2000}'..='\u{200a}').contains(&c)
}

/// The separators of Java's `StringTokenizer` (and so of the jar's word splitting).
pub(super) fn is_tokenizer_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0C')
}

/// Java's `String.length()`: UTF-16 code units.
pub(super) fn java_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Java's `String.trim()`: strips every character up to U+0020 from both ends.
pub(super) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalizer() -> Normalizer {
        Normalizer::new("# comment\nMr\nNo #NUMERIC_ONLY#\n")
    }

    #[test]
    fn punctuation_is_set_apart_and_contractions_split_right() {
        let n = normalizer();
        assert_eq!(
            n.normalize("A man, cannot... ride U.S.-based \"horses\" -- it's 1990's"),
            "a man , cannot ... ride us based \" horses \" - it 's 1990 's"
        );
    }

    #[test]
    fn a_final_dot_stays_only_on_prefixes_and_before_lowercase_words() {
        let n = normalizer();
        assert_eq!(n.normalize("Mr. Smith went home."), "mr. smith went home .");
        assert_eq!(n.normalize("No. 5 and No. Way"), "no. 5 and no . way");
        assert_eq!(n.normalize("Ok. then"), "ok. then");
    }

    #[test]
    fn plain_lowercase_text_only_loses_extra_spaces() {
        let n = normalizer();
        assert_eq!(n.normalize("  two   dogs 2 "), "two dogs 2");
        assert_eq!(n.normalize(""), "");
    }

    #[test]
    fn hand_written_patterns_replace_as_java_replace_all() {
        // Matches do not overlap: "a,b,c" has one match, "a,b", then ",c" lacks its first char.
        assert_eq!(
            triples(
                " a,b,c ",
                |c| !c.is_ascii_digit(),
                ',',
                |c| !c.is_ascii_digit(),
                " , "
            ),
            " a , b,c "
        );
        assert_eq!(escape_dot_runs("a....b..c."), "a DOTMULTI...b DOTMULTI.c.");
        assert_eq!(
            split_after_dotmulti("DOTMULTI..x DOTMULTI.y"),
            "DOTMULTI..x DOTDOTMULTI y"
        );
        assert_eq!(double_quotes("''a'''“"), " \" a \" ' \" ");
    }
}
