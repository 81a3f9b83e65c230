//! METEOR 1.5's `-norm` normaliser for English (`edu.cmu.meteor.util.Normalizer`, the western
//! branch, punctuation kept), followed by the lowercasing `MeteorScorer` applies.
//!
//! In: one caption as the jar reads it. Out: its words separated by single spaces. The steps are
//! the jar's regular expressions in the jar's order (a Moses tokenizer with METEOR's additions):
//! set punctuation apart, escape runs of dots, split commas outside numbers, unify quotes and
//! dashes, drop dashes between words, split English contractions to the right, split a final dot
//! unless the word is a nonbreaking prefix (`nonbreaking/english.prefixes` in the jar), collapse
//! white space. Its character classes are the jar's: `\p{Digit}` and `\p{Lower}` are ASCII there.

use std::collections::HashMap;

use regex_lite::Regex;

/// The jar's letters (`alpha`): ASCII, Latin-1 and Latin Extended-A letters, Cyrillic.
const ALPHA: &str = "A-Za-zŠŽšžŸÀ-ÖØ-öø-žЀ-ӿԀ-ԧꙀ-ꙮ꙾-ꚗᴀ-ᵿ";

/// How a nonbreaking prefix keeps its dot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prefix {
    /// "Mr." keeps its dot anywhere.
    Any,
    /// "No." keeps its dot only before a number (`#NUMERIC_ONLY#`).
    NumericOnly,
}

/// The compiled normaliser (its patterns and the nonbreaking prefixes).
#[derive(Debug)]
pub(super) struct Normalizer {
    multi_dot: Regex,
    multi_dot2: Regex,
    comma: [Regex; 3],
    quote: Regex,
    double_quote: Regex,
    rm_dash: Regex,
    contractions: [(Regex, &'static str); 5],
    has_alpha: Regex,
    white: Regex,
    prefixes: HashMap<String, Prefix>,
}

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this file; a bad one is a bug caught by every test.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad normaliser pattern {pattern:?}: {e}"))
}

impl Normalizer {
    /// `prefixes` is the text of `english.prefixes`: one prefix a line, `#` comments, an optional
    /// `#NUMERIC_ONLY#` after the prefix.
    pub(super) fn new(prefixes: &str) -> Normalizer {
        let alnum = format!("0-9{ALPHA}");
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
        Normalizer {
            multi_dot: re(r"\.(\.+)"),
            multi_dot2: re(r"DOTMULTI\.([^.])"),
            comma: [
                re(r"([^0-9]),([^0-9])"),
                re(r"([0-9]),([^0-9])"),
                re(r"([^0-9]),([0-9])"),
            ],
            quote: re("[`‘’]"),
            double_quote: re("(?:[“”]|'')"),
            rm_dash: re(&format!(r"([{alnum}.])-([{alnum}])")),
            contractions: [
                (re(&format!("([^{ALPHA}])'([^{ALPHA}])")), "$1 ' $2"),
                (re(&format!("([^{ALPHA}0-9])'([{ALPHA}])")), "$1 ' $2"),
                (re(&format!("([{ALPHA}])'([^{ALPHA}])")), "$1 ' $2"),
                (re(&format!("([{ALPHA}])'([{ALPHA}])")), "$1 '$2"),
                (re("([0-9])'(s)"), "$1 '$2"),
            ],
            has_alpha: re(&format!("[{ALPHA}]")),
            white: re("[ \u{2000}-\u{200a}\u{202f}\u{205f}\u{3000}\u{a0}]+"),
            prefixes: table,
        }
    }

    /// The caption as the jar scores it: normalised, then lowercased.
    pub(super) fn normalize(&self, line: &str) -> String {
        // Lowercase ASCII letters, digits and single spaces pass every step unchanged but the
        // last (collapse and trim white space); most tokenized captions are such.
        if line
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b' ')
        {
            return line
                .split(' ')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
        }
        self.normalize_western(line).to_lowercase()
    }

    fn normalize_western(&self, line: &str) -> String {
        // Set apart every character that is not a letter, digit, white space or one of . ' ` , -
        // ‘ ’ (the line wrapped in spaces first).
        let mut s = String::with_capacity(line.len() + 16);
        s.push(' ');
        for c in line.chars() {
            if is_alnum(c)
                || matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r')
                || matches!(c, '.' | '\'' | '`' | ',' | '-' | '‘' | '’')
            {
                s.push(c);
            } else {
                s.push(' ');
                s.push(c);
                s.push(' ');
            }
        }
        s.push(' ');
        // Escape runs of dots: "..." -> " DOTDOTDOTMULTI"-like marks undone at the end.
        let mut s = self.multi_dot.replace_all(&s, " DOTMULTI$1").into_owned();
        while s.contains("DOTMULTI.") {
            s = self
                .multi_dot2
                .replace_all(&s, "DOTDOTMULTI $1")
                .into_owned();
            s = s.replace("DOTMULTI.", "DOTDOTMULTI");
        }
        for comma in &self.comma {
            s = comma.replace_all(&s, "$1 , $2").into_owned();
        }
        s = self.quote.replace_all(&s, "'").into_owned();
        s = self.double_quote.replace_all(&s, " \" ").into_owned();
        s = s.replace('–', "-").replace("--", "-");
        s = self.rm_dash.replace_all(&s, "$1 $2").into_owned();
        for (pattern, with) in &self.contractions {
            s = pattern.replace_all(&s, *with).into_owned();
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
                    if pre.contains('.') && self.has_alpha.is_match(pre) {
                        out.push_str(&word.replace('.', ""));
                    } else if kind == Some(Prefix::Any)
                        || next.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_lowercase()))
                    {
                        out.push_str(word);
                    } else if kind == Some(Prefix::NumericOnly)
                        && next.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
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
        while s.contains("DOTDOTMULTI") {
            s = s.replace("DOTDOTMULTI", "DOTMULTI.");
        }
        s = s.replace("DOTMULTI", ".");
        let s = self.white.replace_all(&s, " ");
        java_trim(&s).to_string()
    }
}

/// `alnum` of the jar: ASCII digits and [`ALPHA`].
fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
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
}
