//! Tokenization: caption text in, Penn Treebank tokens out (the first stage of the pipeline).
//!
//! In: any `&str`. Out: [`PtbToken`]s (normalized text plus byte offsets into the input), the
//! sentences they form ([`split_sentences`]), and the string pycocoevalcap's tokenizer wrapper
//! yields ([`tokenize_coco`]).
//!
//! The target is Stanford's `PTBTokenizer` with its default options, as CoreNLP applies it to a
//! caption. It is a JFlex lexer: at each position every rule is tried, the longest match wins and
//! ties go to the rule written first. This module keeps that shape: `Lexer::next_token` asks
//! each rule for the length it can match (trailing context included, as JFlex counts it) and runs
//! the action of the best one. The rules are written by hand from the behaviour of the oracle
//! (`stanford-corenlp-3.4.1.jar`, see `tests/tokenizer_parity.rs` and `scripts/parity-tokenizer`),
//! so each one reads as "what PTBTokenizer does with X". What it does, in short:
//!
//! - words, hyphenated words (`hot-dog`, `x-ray`) and numbers (`1,000.50`, `10:30`, `3 1/2`) are
//!   single tokens; clitics split off (`do n't`, `it 's`, `ca n't`, `gon na`, `can not`);
//! - abbreviations and acronyms keep their period (`Mr.`, `U.S.`, `etc.`); when one ends a
//!   sentence the period is repeated as a token of its own (`the U.S. . He`);
//! - brackets become `-LRB-` `-RRB-` `-LSB-` `-RSB-` `-LCB-` `-RCB-`; double quotes become
//!   `` `` `` or `''` depending on what follows; 3–4 hyphens and Unicode dashes become `--`; `...`,
//!   `…` and `. . .` become `...`; `£` becomes `#`, `€` `$`, `¢` `cents`, `½` `1/2`;
//! - SGML/HTML tags are single tokens (inner spaces become U+00A0, as in the oracle);
//! - characters no rule accepts (emoji, control characters, anything outside the Basic
//!   Multilingual Plane, which the JVM lexer sees as lone surrogates) are deleted.
//!
//! Every rule looks ahead a bounded number of characters or scans a run once, so the time taken
//! is linear in the length of the text (the URL and e-mail rules scan a run of non-space
//! characters; a pathological 10,000-character run costs a few passes over it).

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;

/// One token: its normalized text (what PTBTokenizer prints) and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtbToken {
    /// Normalized text: `-LRB-` for `(`, `` `` `` for an opening `"`, `n't` for `n’t`, ...
    pub text: String,
    /// Byte offset of the first character in the input.
    pub start: usize,
    /// Byte offset just past the last character in the input.
    pub end: usize,
}

/// Tokenizes one caption the way CoreNLP's tokenizer does (default options, text ends at the end
/// of the string; line breaks are ordinary white space).
pub fn tokenize(text: &str) -> Vec<PtbToken> {
    let mut out = Vec::new();
    Lexer::new(text, false).run(&mut out);
    out
}

/// Where the lexer puts what it finds.
trait Sink {
    /// A token: its normalized text and the byte range of its source in the lexed text.
    fn token(&mut self, text: &str, start: usize, end: usize);
    /// A line break (only [`Lexer::run_lines`] reports them).
    fn line_break(&mut self) {}
}

impl Sink for Vec<PtbToken> {
    fn token(&mut self, text: &str, start: usize, end: usize) {
        self.push(PtbToken {
            text: text.to_string(),
            start,
            end,
        });
    }
}

/// Token lists, one per line, offsets shifted by `base`.
struct TokenLines {
    base: usize,
    lines: Vec<Vec<PtbToken>>,
}

impl TokenLines {
    fn new(base: usize) -> TokenLines {
        TokenLines {
            base,
            lines: vec![Vec::new()],
        }
    }
}

impl Sink for TokenLines {
    fn token(&mut self, text: &str, start: usize, end: usize) {
        if let Some(line) = self.lines.last_mut() {
            line.token(text, self.base + start, self.base + end);
        }
    }

    fn line_break(&mut self) {
        self.lines.push(Vec::new());
    }
}

/// pycocoevalcap's form of each line, built as the tokens come (no token is stored).
struct CocoLines {
    lines: Vec<String>,
}

impl CocoLines {
    fn new() -> CocoLines {
        CocoLines {
            lines: vec![String::new()],
        }
    }
}

impl Sink for CocoLines {
    fn token(&mut self, text: &str, _start: usize, _end: usize) {
        if let Some(line) = self.lines.last_mut() {
            coco_push(line, text);
        }
    }

    fn line_break(&mut self) {
        self.lines.push(String::new());
    }
}

/// The token texts of [`tokenize`], for callers that do not need offsets.
pub fn tokenize_words(text: &str) -> Vec<String> {
    tokenize(text).into_iter().map(|t| t.text).collect()
}

/// Tokenizes a text of several lines the way `PTBTokenizer -preserveLines` does: one token
/// list per line. Line breaks (`\n`, `\r\n`, `\r`, U+2028, U+2029, U+0085, VT, FF) end lines;
/// a rule may still look across a line break (`etc.` before a line starting with a capital
/// letter is followed by an extra `.` token, as in the oracle).
pub fn tokenize_lines(text: &str) -> Vec<Vec<PtbToken>> {
    let mut lines = TokenLines::new(0);
    Lexer::new(text, false).run_lines(&mut lines, usize::MAX);
    lines.lines
}

/// [`tokenize_lines`] for captions written one a line in this order (line breaks inside a
/// caption count as spaces, so there is exactly one token list per caption). Offsets are into
/// that text of lines joined by `\n`.
///
/// Large batches are lexed in parallel, in chunks of whole lines. The lexer has no state
/// between tokens and looks back at nothing before a token, but it does look ahead (at most
/// `MAX_RUN` characters of a run plus a word, across line breaks: `etc.` before a line that
/// starts with a capital), so each chunk is lexed followed by the lines after it, at least
/// `CONTEXT_CHARS` characters of them, and only its own lines are kept. The result is the
/// same as lexing the whole text at once.
pub fn tokenize_batch<S: AsRef<str>>(captions: &[S]) -> Vec<Vec<PtbToken>> {
    tokenize_batch_in_chunks(captions, CHUNK_CHARS)
}

/// Bytes of captions per chunk of a parallel [`tokenize_batch`].
const CHUNK_CHARS: usize = 1 << 16;

/// Characters of the following lines each chunk is lexed with: more than any rule looks ahead.
const CONTEXT_CHARS: usize = 4 * MAX_RUN;

fn tokenize_batch_in_chunks<S: AsRef<str>>(
    captions: &[S],
    chunk_bytes: usize,
) -> Vec<Vec<PtbToken>> {
    lex_batch(captions, chunk_bytes, TokenLines::new, |t| t.lines)
}

/// Lexes captions written one a line, in parallel chunks of lines (see [`tokenize_batch`]):
/// `sink(base)` collects a chunk whose text starts at byte `base` of the whole text, `lines`
/// turns it into one item per line.
fn lex_batch<S, K, L>(
    captions: &[S],
    chunk_bytes: usize,
    sink: impl Fn(usize) -> K + Sync,
    lines: impl Fn(K) -> Vec<L> + Sync,
) -> Vec<L>
where
    S: AsRef<str>,
    K: Sink,
    L: Default + Send,
{
    let texts: Vec<String> = captions.iter().map(|c| coco_line(c.as_ref())).collect();
    // Chunk boundaries (line indices) and the byte offset of each chunk in the joined text.
    let mut bounds = vec![(0usize, 0usize)];
    let (mut size, mut offset) = (0, 0);
    for (k, line) in texts.iter().enumerate() {
        size += line.len() + 1;
        offset += line.len() + 1;
        if size >= chunk_bytes && k + 1 < texts.len() {
            bounds.push((k + 1, offset));
            size = 0;
        }
    }
    bounds.push((texts.len(), offset));
    let lex_chunk = |w: &[(usize, usize)]| {
        let ((a, base), (b, _)) = (w[0], w[1]);
        let mut text = texts[a..b].join("\n");
        let mut context = 0;
        for line in &texts[b..] {
            if context >= CONTEXT_CHARS {
                break;
            }
            text.push('\n');
            text.push_str(line);
            context += line.chars().count() + 1;
        }
        let mut out = sink(base);
        // Lex up to the end of the chunk's last line; the context is only looked at.
        Lexer::new(&text, false).run_lines(&mut out, b - a);
        let mut out = lines(out);
        out.truncate(b - a);
        out.resize_with(b - a, L::default);
        out
    };
    if bounds.len() <= 2 {
        return bounds.windows(2).flat_map(lex_chunk).collect();
    }
    let chunks: Vec<Vec<L>> = bounds.par_windows(2).map(lex_chunk).collect();
    chunks.into_iter().flatten().collect()
}

/// The tokens pycocoevalcap's `PTBTokenizer` wrapper yields for one caption, joined by single
/// spaces: `PTBTokenizer -preserveLines -lowerCase`, then every token in its punctuation list
/// dropped. Line breaks inside the caption count as spaces (the wrapper replaces `\n` by a
/// space; we do the same for the other line separators, which would otherwise shift its lines).
///
/// The wrapper writes all captions into one file, one a line, so a caption is normally followed
/// by a line break, which is what this function assumes. [`tokenize_coco_batch`] reproduces a
/// whole call of the wrapper, context across lines included.
pub fn tokenize_coco(text: &str) -> String {
    let line = coco_line(text);
    let mut lines = CocoLines::new();
    Lexer::new(&line, true).run_lines(&mut lines, 1);
    lines.lines.swap_remove(0)
}

/// What pycocoevalcap's wrapper yields for a batch of captions, which it writes one a line in
/// this order into one file (the last one followed by the end of the file).
pub fn tokenize_coco_batch<S: AsRef<str>>(captions: &[S]) -> Vec<String> {
    lex_batch(captions, CHUNK_CHARS, |_| CocoLines::new(), |c| c.lines)
}

/// The two forms SPICE meets captions in, which the official parser reads differently: as
/// written, and as pycocoevalcap feeds them (lowercased, its punctuation removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    AsWritten,
    Coco,
}

impl Form {
    /// The form of one sentence's tokens: [`Form::Coco`] when no token has an upper-case letter
    /// and none is a punctuation token pycocoevalcap removes.
    pub fn of<S: AsRef<str>>(words: &[S]) -> Form {
        let coco = words.iter().all(|w| {
            let w = w.as_ref();
            !w.chars().any(char::is_uppercase) && !COCO_PUNCTUATIONS.contains(&w)
        });
        if coco {
            Form::Coco
        } else {
            Form::AsWritten
        }
    }
}

/// pycocoevalcap's `PUNCTUATIONS`: tokens dropped after lowercasing. `-LRB-` and friends are in
/// the list in upper case, so their lowercased forms (`-lrb-`) survive, as in pycocoevalcap.
const COCO_PUNCTUATIONS: [&str; 17] = [
    "''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--",
    "...", ";",
];

fn coco_line(text: &str) -> String {
    text.chars()
        .map(|c| if is_newline(c) { ' ' } else { c })
        .collect()
}

/// Appends a token to a line in pycocoevalcap's form: lower-cased, unless its punctuation list
/// has it; separated by one space.
fn coco_push(out: &mut String, token: &str) {
    if token.is_ascii() {
        // The list's entries with letters are upper case, so no lower-cased token equals
        // them; the others are their own lower case. So the lower-cased token is in the list
        // exactly when the token is and has no upper-case letter.
        if COCO_PUNCTUATIONS.contains(&token) && !token.bytes().any(|b| b.is_ascii_uppercase()) {
            return;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(token.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        return;
    }
    let lower = java_lowercase(token);
    if COCO_PUNCTUATIONS.contains(&lower.as_str()) {
        return;
    }
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(&lower);
}

/// Java's `String.toLowerCase()` (which `-lowerCase` uses) agrees with Rust's for the BMP text
/// that survives tokenization, final sigma included.
fn java_lowercase(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Splits tokens into sentences the way CoreNLP's default `ssplit` does: a sentence ends after a
/// token that is `.`, `?` or `!` (or a run of them, like `?!`), and any closing quotes or
/// brackets right after it belong to the sentence they close. Returns token index ranges; an
/// empty token list gives no sentence.
pub fn split_sentences(tokens: &[PtbToken]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < tokens.len() {
        if is_sentence_final(&tokens[i].text) {
            let mut end = i + 1;
            while end < tokens.len() && is_sentence_closer(&tokens[end].text) {
                end += 1;
            }
            out.push(start..end);
            start = end;
            i = end;
        } else {
            i += 1;
        }
    }
    if start < tokens.len() {
        out.push(start..tokens.len());
    }
    out
}

/// CoreNLP's default boundary tokens: `.` or a run of `?` and `!`.
fn is_sentence_final(t: &str) -> bool {
    t == "." || (!t.is_empty() && t.chars().all(|c| matches!(c, '?' | '!')))
}

fn is_sentence_closer(t: &str) -> bool {
    matches!(
        t,
        "''" | "'" | "-RRB-" | "-RSB-" | "-RCB-" | "\"" | "’" | "”"
    )
}

// ---------------------------------------------------------------------------------------------
// Character classes (JFlex's, approximated with Rust's Unicode tables).

fn is_newline(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{0B}' | '\u{0C}' | '\u{85}'
    )
}

fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\u{A0}' | '\u{2000}'..='\u{200A}' | '\u{3000}'
    )
}

fn is_spacenl(c: char) -> bool {
    is_space(c) || is_newline(c)
}

/// The words PTB splits when no letter follows: "cannot" -> "can not", "gonna" -> "gon na", ...
fn is_split_word(word: &[char]) -> bool {
    const SPLIT: [&str; 6] = ["cannot", "gonna", "gotta", "wanna", "lemme", "gimme"];
    SPLIT.iter().any(|s| {
        s.len() == word.len() && s.chars().zip(word).all(|(a, b)| a.eq_ignore_ascii_case(b))
    })
}

/// Characters the lexer skips without a token (besides white space).
fn is_ignorable(c: char) -> bool {
    matches!(c, '\0' | '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{FEFF}')
}

/// The JVM lexer sees text as UTF-16; a character outside the BMP is two surrogates that no rule
/// accepts, so it never belongs to a token.
fn in_bmp(c: char) -> bool {
    (c as u32) < 0x10000
}

/// Java's `Character.isLetter` plus the combining marks and soft hyphen PTBLexer adds to LETTER.
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    if !in_bmp(c) {
        return false;
    }
    if c == '\u{AD}' || is_combining_mark(c) {
        return true;
    }
    c.is_alphabetic() && !is_letter_number(c)
}

fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{0483}'..='\u{0487}' | '\u{0591}'..='\u{05BD}'
        | '\u{064B}'..='\u{065E}' | '\u{0900}'..='\u{0903}' | '\u{093C}'..='\u{094E}'
        | '\u{0E30}'..='\u{0E3A}' | '\u{0E47}'..='\u{0E4E}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Letter numbers (category Nl) are alphabetic for Rust but not letters for Java.
fn is_letter_number(c: char) -> bool {
    matches!(c, '\u{16EE}'..='\u{16F0}' | '\u{2160}'..='\u{2188}' | '\u{3007}'
        | '\u{3021}'..='\u{3029}' | '\u{3038}'..='\u{303A}' | '\u{A6E6}'..='\u{A6EF}')
}

/// Java's `Character.isDigit` (decimal digits, category Nd).
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_bmp(c)
        && c.is_numeric()
        && !matches!(c, '\u{B2}' | '\u{B3}' | '\u{B9}' | '\u{BC}'..='\u{BE}'
            | '\u{2070}'..='\u{218F}' | '\u{2460}'..='\u{24FF}' | '\u{2776}'..='\u{2793}'
            | '\u{3007}'..='\u{303A}' | '\u{3192}'..='\u{3195}' | '\u{3220}'..='\u{3229}'
            | '\u{3248}'..='\u{324F}' | '\u{3251}'..='\u{325F}' | '\u{3280}'..='\u{3289}'
            | '\u{32B1}'..='\u{32BF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
            | '\u{09F4}'..='\u{09F9}' | '\u{0BF0}'..='\u{0BF2}' | '\u{0F2A}'..='\u{0F33}'
            | '\u{1369}'..='\u{137C}' | '\u{16EE}'..='\u{16F0}' | '\u{17F0}'..='\u{17F9}'
            | '\u{2CFD}' | '\u{A830}'..='\u{A835}')
}

fn is_letter_or_digit(c: char) -> bool {
    is_letter(c) || is_digit(c)
}

fn is_ascii_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// APOS: straight apostrophe, right single quote (Unicode or CP1252). `&apos;` is handled by
/// [`Lexer::apos`].
fn is_apos_char(c: char) -> bool {
    matches!(c, '\'' | '\u{92}' | '\u{2019}')
}

/// APOSETCETERA: APOS plus the left single quotes that show up inside words.
fn is_aposetc_char(c: char) -> bool {
    is_apos_char(c) || matches!(c, '`' | '\u{91}' | '\u{2018}' | '\u{201B}')
}

fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '_' | '\u{58A}' | '\u{2010}' | '\u{2011}')
}

fn is_uppercase(c: char) -> bool {
    c.is_uppercase() && in_bmp(c)
}

fn is_vowel(c: char) -> bool {
    matches!(
        c,
        'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'A' | 'E' | 'I' | 'O' | 'U' | 'Y'
    )
}

/// MISCSYMBOL: symbols that stand alone as one-character tokens.
fn is_misc_symbol(c: char) -> bool {
    matches!(c, '+' | '%' | '&' | '~' | '^' | '|' | '\\' | '\u{A6}' | '\u{A7}' | '\u{A8}'
        | '\u{A9}' | '\u{AC}' | '\u{AE}' | '\u{AF}' | '\u{B0}'..='\u{BA}' | '\u{D7}' | '\u{F7}'
        | '\u{387}' | '\u{5BE}' | '\u{5C0}' | '\u{5C3}' | '\u{5C6}' | '\u{5F3}' | '\u{5F4}'
        | '\u{600}'..='\u{603}' | '\u{606}'..='\u{60A}' | '\u{60C}' | '\u{614}' | '\u{61B}'
        | '\u{61E}' | '\u{66A}' | '\u{66D}' | '\u{703}'..='\u{70D}' | '\u{7F6}'..='\u{7F8}'
        | '\u{964}' | '\u{965}' | '\u{E4F}' | '\u{1FBD}' | '\u{2016}' | '\u{2017}'
        | '\u{2020}'..='\u{2023}' | '\u{2030}'..='\u{2038}' | '\u{203B}'
        | '\u{203E}'..='\u{2042}' | '\u{2044}' | '\u{207A}'..='\u{207F}'
        | '\u{208A}'..='\u{208E}' | '\u{2100}'..='\u{214F}' | '\u{2190}'..='\u{21FF}'
        | '\u{2200}'..='\u{2BFF}' | '\u{3012}' | '\u{30FB}' | '\u{FF01}'..='\u{FF0F}'
        | '\u{FF1A}'..='\u{FF20}' | '\u{FF3B}'..='\u{FF40}' | '\u{FF5B}'..='\u{FF65}')
}

// ---------------------------------------------------------------------------------------------
// The lexer.

/// What a rule does with the text it matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// Emit the matched text (spaces inside become U+00A0, soft hyphens are dropped).
    Keep,
    /// Emit a fixed string.
    Emit(&'static str),
    /// A quote: normalize with LaTeX quotes; `true` when it probably opens.
    Quote(bool),
    /// An abbreviation that ends a sentence: emit it, then lex its final period again.
    KeepPushbackPeriod,
    /// Brackets inside a smiley or phone number become -LRB-/-RRB-.
    ParensNormalized,
    /// A fraction: U+2044 becomes `/`, the separating space U+00A0.
    Fraction,
    /// A run of hyphens: three or four become `--`.
    Hyphens,
    /// `&amp;` inside a token becomes `&`.
    Amp,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// Characters matched including trailing context (what JFlex compares).
    total: usize,
    /// Characters consumed by the token.
    len: usize,
    action: Action,
}

/// How far a rule scans ahead. Rules like EMAIL or HTHING scan a run that the token they produce
/// may not consume, so without a bound a long run of non-space characters would cost quadratic
/// time. A token longer than this (a 1,000-character "word") is cut into pieces.
const MAX_RUN: usize = 1024;

/// How many `@` signs the EMAIL rule tries as the separator of one address.
const MAX_EMAIL_ATS: usize = 4;

struct Lexer<'a> {
    text: &'a str,
    chars: Vec<char>,
    /// Byte offset of each char, plus the text length at the end.
    offsets: Vec<usize>,
    /// Number of chars that belong to the text (a sentinel newline may follow).
    n: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str, followed_by_newline: bool) -> Lexer<'a> {
        let mut chars = Vec::with_capacity(text.len() + 1);
        let mut offsets = Vec::with_capacity(text.len() + 2);
        for (o, c) in text.char_indices() {
            chars.push(c);
            offsets.push(o);
        }
        offsets.push(text.len());
        let n = chars.len();
        if followed_by_newline {
            chars.push('\n');
        }
        Lexer {
            text,
            chars,
            offsets,
            n,
        }
    }

    #[inline]
    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    #[inline]
    fn is(&self, i: usize, f: impl Fn(char) -> bool) -> bool {
        self.at(i).is_some_and(f)
    }

    /// Case-insensitive literal (JFlex `%caseless` applies to literals, not to classes).
    fn lit(&self, i: usize, s: &str) -> Option<usize> {
        let mut j = i;
        for sc in s.chars() {
            let c = self.at(j)?;
            if !c.eq_ignore_ascii_case(&sc) {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    /// Longest of several case-insensitive literals.
    fn lits(&self, i: usize, options: &[&str]) -> Option<usize> {
        options.iter().filter_map(|s| self.lit(i, s)).max()
    }

    /// End of the run of characters satisfying `f` from `i`, looking at most [`MAX_RUN`] ahead.
    fn run_of(&self, i: usize, f: impl Fn(char) -> bool) -> usize {
        let stop = self.chars.len().min(i.saturating_add(MAX_RUN));
        let mut j = i;
        while j < stop && f(self.chars[j]) {
            j += 1;
        }
        j
    }

    /// APOS at `i`: one of the apostrophe characters or `&apos;`; returns the end.
    fn apos(&self, i: usize) -> Option<usize> {
        if self.is(i, is_apos_char) {
            Some(i + 1)
        } else {
            self.lit(i, "&apos;")
        }
    }

    fn aposetc(&self, i: usize) -> Option<usize> {
        if self.is(i, is_aposetc_char) {
            Some(i + 1)
        } else {
            self.lit(i, "&apos;")
        }
    }

    fn run(&self, out: &mut impl Sink) {
        let mut i = 0;
        while i < self.n {
            i = self.next_token(i, out);
        }
    }

    /// Like [`Lexer::run`], reporting line breaks; stops at the end of line `max_lines`.
    fn run_lines(&self, out: &mut impl Sink, max_lines: usize) {
        let mut i = 0;
        let mut line = 1;
        while i < self.n {
            let c = self.chars[i];
            if is_newline(c) {
                if line == max_lines {
                    return;
                }
                i += if c == '\r' && self.at(i + 1) == Some('\n') {
                    2
                } else {
                    1
                };
                out.line_break();
                line += 1;
                continue;
            }
            i = self.next_token(i, out);
        }
    }

    /// Lexes one token (or skips white space / an unknown character) at `i`; returns the next
    /// position.
    fn next_token(&self, i: usize, out: &mut impl Sink) -> usize {
        let c = self.chars[i];
        if is_spacenl(c) || is_ignorable(c) {
            return i + 1;
        }
        // Most tokens are plain words: ASCII letters followed by a space or a line break. No rule
        // matches more of such a word (each longer one needs another character after the
        // letters: an apostrophe, a period, a hyphen, a digit, `+`, `$`, ...), so the word is a
        // token as it stands, except for the words PTB splits ("cannot" -> "can not"). Trying
        // every rule on it would find the same. (tests/tokenizer_parity.rs checks the outcome.)
        if c.is_ascii_alphabetic() {
            let e = self.run_of(i, |c| c.is_ascii_alphabetic());
            if matches!(self.at(e), Some(' ' | '\n')) && !is_split_word(&self.chars[i..e]) {
                let (start, end) = (self.offsets[i], self.offsets[e]);
                out.token(&self.text[start..end], start, end);
                return e;
            }
        }
        let mut best: Option<Candidate> = None;
        let mut offer = |total: usize, len: usize, action: Action| {
            if !matches!(best, Some(b) if b.total >= total) {
                best = Some(Candidate { total, len, action });
            }
        };
        self.rules(i, &mut offer);
        let Some(best) = best else {
            // Untokenizable: PTBTokenizer's default is to delete it.
            return i + 1;
        };
        // A token never reaches into the sentinel newline.
        let len = best.len.min(self.n - i);
        let start = self.offsets[i];
        let end = self.offsets[i + len];
        let raw = &self.text[start..end];
        match best.action {
            Action::Keep => out.token(&keep_text(raw), start, end),
            Action::Emit(s) => out.token(s, start, end),
            Action::Quote(left) => out.token(&latex_quotes(raw, left), start, end),
            Action::KeepPushbackPeriod => {
                // The token keeps its period; the period is then lexed again on its own.
                out.token(&keep_text(raw), start, end);
                return i + len - 1 + self.period_again(i + len - 1, out);
            }
            Action::ParensNormalized => {
                let t = keep_text(raw).replace('(', "-LRB-").replace(')', "-RRB-");
                out.token(&t, start, end)
            }
            Action::Fraction => out.token(&keep_text(raw).replace('\u{2044}', "/"), start, end),
            Action::Hyphens => {
                let t = if (3..=4).contains(&len) { "--" } else { raw };
                out.token(t, start, end)
            }
            Action::Amp => out.token(&keep_text(raw).replace("&amp;", "&"), start, end),
        }
        i + len
    }

    /// After an abbreviation's pushed-back period: emit `.` for it.
    fn period_again(&self, i: usize, out: &mut impl Sink) -> usize {
        out.token(".", self.offsets[i], self.offsets[i + 1]);
        1
    }

    /// Offers every rule that matches at `i`, in the lexer's rule order.
    fn rules(&self, i: usize, offer: &mut impl FnMut(usize, usize, Action)) {
        let c = self.chars[i];

        // SGML / HTML tags.
        if c == '<' {
            if let Some(e) = self.sgml(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        // Entity-encoded and Unicode dashes.
        if matches!(
            c,
            '\u{96}' | '\u{97}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        ) {
            offer(1, 1, Action::Emit("--"));
        }
        if c == '&' {
            if let Some(e) = self.lits(i, &["&MD;", "&mdash;", "&ndash;"]) {
                offer(e - i, e - i, Action::Emit("--"));
            }
            if let Some(e) = self.lit(i, "&amp;") {
                offer(e - i, e - i, Action::Emit("&"));
            }
            if let Some(e) = self.sppunc(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }

        // The run of ASCII letters at `i`: guards for the rules keyed on literal words.
        let alpha_end = self.run_of(i, |c| c.is_ascii_alphabetic());
        let alpha_len = alpha_end - i;
        let after_alpha = self.at(alpha_end);
        // "cannot" -> "can not", "gonna" -> "gon na", ... when no letter follows.
        if (alpha_len == 5 || alpha_len == 6)
            && matches!(c, 'c' | 'C' | 'g' | 'G' | 'w' | 'W' | 'l' | 'L')
        {
            if let Some(e) = self.lits(i, &["cannot", "gonna", "gotta", "wanna", "lemme", "gimme"])
            {
                if !self.is(e, |c| c.is_ascii_alphabetic()) {
                    offer(e - i, 3, Action::Keep);
                }
            }
        }
        // PROG_LANGS: C++, C#, F#.
        if alpha_len == 1 && matches!(after_alpha, Some('+' | '#')) {
            if let Some(e) = self.lits(i, &["c++", "c#", "f#"]) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        let word_end = if is_letter(c) {
            Some(self.word(i))
        } else {
            None
        };
        // WORD/REDAUX: "it" in "it's".
        if let Some(w) = word_end {
            if let Some(r) = self.redaux(w) {
                offer(r - i, w - i, Action::Keep);
            }
        }
        // SWORD/SREDAUX: "do" in "don't".
        if c.is_ascii_alphabetic() || c == '\u{AD}' {
            if let Some((s, e)) = self.sword_sredaux(i) {
                offer(e - i, s - i, Action::Keep);
            }
        }
        if let Some(w) = word_end {
            offer(w - i, w - i, Action::Keep);
        }
        // APOWORD and APOWORD2/[:letter:]. Every form has an apostrophe after a (possibly
        // empty) run of letters, which makes a cheap guard.
        let apo_next = self.run_of(i, is_letter);
        if self.is(apo_next, |c| is_aposetc_char(c) || c == '&') {
            if let Some(e) = self.apoword(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        if c == 'y' && self.apos(i + 1).is_some_and(|e| self.is(e, is_letter)) {
            let e = self.apos(i + 1).unwrap_or(i + 2);
            offer(e + 1 - i, e - i, Action::Keep);
        }
        // URLs, e-mail addresses, Twitter names and hashtags. Each needs a period or an @ in the
        // run of non-space characters ahead, which most words lack.
        let run = &self.chars[i..self.run_of(i, |c| !is_spacenl(c))];
        if let Some(e) = self.full_url(i) {
            offer(e - i, e - i, Action::Keep);
        }
        if run.contains(&'.') {
            if let Some(e) = self.likely_url(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        if run.contains(&'@') {
            if let Some(e) = self.email(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        if let Some(e) = self.twitter(i) {
            offer(e - i, e - i, Action::Keep);
        }
        // REDAUX/[^A-Za-z] and SREDAUX/[^A-Za-z]: "'s", "n't".
        if let Some(e) = self.redaux(i) {
            if self.at(e).is_some_and(|c| !c.is_ascii_alphabetic()) {
                offer(e + 1 - i, e - i, Action::Quote(false));
            }
        }
        if let Some(e) = self.sredaux(i) {
            if self.at(e).is_some_and(|c| !c.is_ascii_alphabetic()) {
                offer(e + 1 - i, e - i, Action::Quote(false));
            }
        }
        // 't before is/was: "'t is".
        if let Some(a) = self.apos(i) {
            if self.is(a, |c| c == 't' || c == 'T') && self.lits(a + 1, &["is", "was"]).is_some() {
                let e = self.lits(a + 1, &["is", "was"]).unwrap_or(a + 1);
                offer(e - i, a + 1 - i, Action::Quote(false));
            }
        }
        if is_digit(c) {
            if let Some(e) = self.date(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        if let Some(e) = self.number(i) {
            offer(e - i, e - i, Action::Keep);
        }
        if let Some(e) = self.subsupnum(i) {
            offer(e - i, e - i, Action::Keep);
        }
        if is_digit(c) {
            if let Some(e) = self.frac(i) {
                offer(e - i, e - i, Action::Fraction);
            }
        }
        if let Some(f) = frac2(c) {
            offer(1, 1, Action::Emit(f));
        }
        // TBSPEC forms continue their first letters with - . & or an apostrophe.
        if c == '-' || after_alpha.is_some_and(|a| matches!(a, '-' | '.' | '&') || is_apos_char(a))
        {
            if let Some(e) = self.tbspec(i) {
                offer(e - i, e - i, Action::Amp);
            }
        }
        if let Some(e) = self.thing3(i) {
            offer(e - i, e - i, Action::Keep);
        }
        // Currency.
        if c.is_ascii_uppercase() || c == '$' || c == '#' {
            let e = self.run_of(i, |c| c.is_ascii_uppercase());
            if self.is(e, |c| c == '$') {
                offer(e + 1 - i, e + 1 - i, Action::Keep);
            }
        }
        if c == '#' {
            offer(1, 1, Action::Keep);
        }
        if let Some(s) = currency(c) {
            match s {
                Some(s) => offer(1, 1, Action::Emit(s)),
                None => offer(1, 1, Action::Keep),
            }
        }
        // Acronyms and abbreviations.
        // Every abbreviation has a period right after its first run of letters.
        if c.is_ascii_alphabetic()
            && self.is(self.run_of(i, |c| c.is_ascii_alphabetic()), |c| c == '.')
        {
            self.abbreviations(i, offer);
        }
        if let Some(e) = self.phone(i) {
            offer(e - i, e - i, Action::ParensNormalized);
        }
        // Quotes.
        if c == '"' || c == '&' {
            let e = if c == '"' {
                Some(i + 1)
            } else {
                self.lit(i, "&quot;")
            };
            if let Some(e) = e {
                if self.is(e, |c| is_ascii_alnum(c) || c == '$') {
                    offer(e + 1 - i, e - i, Action::Quote(true));
                }
                offer(e - i, e - i, Action::Quote(false));
            }
        }
        if let Some(e) = self.quotes(i) {
            // QUOTES/[:letter:]{NOT_SPACENL}: probably an opening quote. JFlex counts the
            // trailing context, so "'no" is a quote before "no" rather than the "'n" of "'n'".
            if self.is(e, is_letter) && self.is(e + 1, |c| !is_spacenl(c)) {
                offer(e + 2 - i, e - i, Action::Quote(true));
            }
            offer(e - i, e - i, Action::Quote(false));
        }
        // REDAUX and SREDAUX without their context: only wins at the end of the text ("it's"
        // there is "it 's", but "I'll" is "I ` ll" because the opening-quote rule comes first).
        if let Some(e) = self.redaux(i) {
            offer(e - i, e - i, Action::Quote(false));
        }
        if let Some(e) = self.sredaux(i) {
            offer(e - i, e - i, Action::Quote(false));
        }
        match c {
            '<' => {
                if self.is(i + 1, |c| c == '<') {
                    offer(2, 2, Action::Keep);
                }
                offer(1, 1, Action::Emit("<"));
            }
            '>' => {
                if self.is(i + 1, |c| c == '>') {
                    offer(2, 2, Action::Keep);
                }
                offer(1, 1, Action::Emit(">"));
            }
            '&' => {
                if let Some(e) = self.lit(i, "&lt;") {
                    offer(e - i, e - i, Action::Emit("<"));
                }
                if let Some(e) = self.lit(i, "&gt;") {
                    offer(e - i, e - i, Action::Emit(">"));
                }
            }
            _ => {}
        }
        if let Some(e) = self.smiley(i) {
            if self.at(e).is_some_and(|c| !c.is_ascii_alphabetic()) {
                offer(e + 1 - i, e - i, Action::ParensNormalized);
            }
        }
        if let Some(e) = self.asian_smiley(i) {
            offer(e - i, e - i, Action::ParensNormalized);
        }
        match c {
            '{' => offer(1, 1, Action::Emit("-LCB-")),
            '}' => offer(1, 1, Action::Emit("-RCB-")),
            '[' => offer(1, 1, Action::Emit("-LSB-")),
            ']' => offer(1, 1, Action::Emit("-RSB-")),
            '(' => offer(1, 1, Action::Emit("-LRB-")),
            ')' => offer(1, 1, Action::Emit("-RRB-")),
            _ => {}
        }
        // A lone hyphen (U+2010 and U+2011 alone match no rule and are dropped).
        if c == '-' {
            offer(1, 1, Action::Keep);
        }
        if c == '-' {
            let e = self.run_of(i, |c| c == '-');
            offer(e - i, e - i, Action::Hyphens);
        }
        if let Some(e) = self.ldots(i) {
            offer(e - i, e - i, Action::Emit("..."));
        }
        match c {
            '@' | '#' | '_' => {
                let e = self.run_of(i, |x| x == c);
                offer(e - i, e - i, Action::Keep);
            }
            '*' => {
                let e = self.run_of(i, |x| x == '*');
                offer(e - i, e - i, Action::Keep);
            }
            '\\' => {
                let mut e = i;
                while e - i < 6 && self.is(e, |c| c == '\\') && self.is(e + 1, |c| c == '*') {
                    e += 2;
                }
                if e > i {
                    offer(e - i, e - i, Action::Keep);
                }
            }
            ',' | ';' | ':' | '\u{3001}' => offer(1, 1, Action::Keep),
            '?' | '!' => {
                let e = self.run_of(i, |c| c == '?' || c == '!');
                offer(e - i, e - i, Action::Keep);
            }
            '.'
            | '\u{A1}'
            | '\u{BF}'
            | '\u{37E}'
            | '\u{589}'
            | '\u{61F}'
            | '\u{6D4}'
            | '\u{700}'..='\u{702}'
            | '\u{7FA}'
            | '\u{3002}' => offer(1, 1, Action::Keep),
            '=' | '/' => offer(1, 1, Action::Keep),
            _ => {}
        }
        if is_letter_or_digit(c) || is_aposetc_char(c) {
            if let Some(e) = self.thing(i) {
                // THING\./INSENTP: "bikes.," keeps its period ("bikes." ",").
                if self.is(e, |c| c == '.')
                    && self.is(e + 1, |c| matches!(c, ',' | ';' | ':' | '\u{3001}'))
                {
                    offer(e + 2 - i, e + 1 - i, Action::Keep);
                }
                offer(e - i, e - i, Action::Keep);
            }
        }
        if c.is_ascii_uppercase() {
            if let Some(e) = self.thinga(i) {
                offer(e - i, e - i, Action::Amp);
            }
        }
        if is_ascii_alnum(c) || matches!(c, 'd' | 'D' | 'o' | 'O' | 'l' | 'L') {
            if let Some(e) = self.hthing(i) {
                offer(e - i, e - i, Action::Keep);
            }
        }
        if is_misc_symbol(c) {
            offer(1, 1, Action::Keep);
        }
        if c == '&' {
            if let Some(e) = self.lit(i, "&nbsp;") {
                // Skipped like a space: a zero-length token is never emitted.
                let _ = e;
            }
        }
    }

    // --- individual rules ----------------------------------------------------------------

    /// `<` `/`? [A-Za-z!?] [^>\r\n]* `>`
    fn sgml(&self, i: usize) -> Option<usize> {
        let mut j = i + 1;
        if self.is(j, |c| c == '/') {
            j += 1;
        }
        if !self.is(j, |c| c.is_ascii_alphabetic() || c == '!' || c == '?') {
            return None;
        }
        j += 1;
        let e = self.run_of(j, |c| c != '>' && c != '\n' && c != '\r');
        (self.is(e, |c| c == '>') && e < self.n).then_some(e + 1)
    }

    /// `&(HT|TL|UR|LR|QC|QL|QR|odq|cdq|#[0-9]+);`
    fn sppunc(&self, i: usize) -> Option<usize> {
        let j = i + 1;
        let name_end = self
            .lits(j, &["HT", "TL", "UR", "LR", "QC", "QL", "QR", "odq", "cdq"])
            .or_else(|| {
                if self.is(j, |c| c == '#') {
                    let e = self.run_of(j + 1, |c| c.is_ascii_digit());
                    (e > j + 1).then_some(e)
                } else {
                    None
                }
            })?;
        self.is(name_end, |c| c == ';').then_some(name_end + 1)
    }

    /// WORD = LETTER (LETTER|DIGIT)* ([.!?] LETTER (LETTER|DIGIT)*)*, from a letter at `i`.
    fn word(&self, i: usize) -> usize {
        let mut e = self.run_of(i + 1, is_letter_or_digit);
        while self.is(e, |c| matches!(c, '.' | '!' | '?')) && self.is(e + 1, is_letter) {
            e = self.run_of(e + 2, is_letter_or_digit);
        }
        e
    }

    /// REDAUX = APOS ([msdMSD] | re | ve | ll)
    fn redaux(&self, i: usize) -> Option<usize> {
        let a = self.apos(i)?;
        if self.is(a, |c| matches!(c, 'm' | 's' | 'd' | 'M' | 'S' | 'D')) {
            return Some(a + 1);
        }
        self.lits(a, &["re", "ve", "ll"])
    }

    /// SREDAUX = n APOSETCETERA t
    fn sredaux(&self, i: usize) -> Option<usize> {
        let n = self.lit(i, "n")?;
        let a = self.aposetc(n)?;
        self.lit(a, "t")
    }

    /// SWORD/SREDAUX; returns (end of SWORD, end of SREDAUX).
    fn sword_sredaux(&self, i: usize) -> Option<(usize, usize)> {
        let r = self.run_of(i, |c| c.is_ascii_alphabetic() || c == '\u{AD}');
        // The SWORD ends right before an n of "n't"; n can only be its last letter.
        let mut n_pos = r;
        while n_pos > i && self.chars[n_pos - 1] == '\u{AD}' {
            n_pos -= 1;
        }
        if n_pos == i {
            return None;
        }
        let n_pos = n_pos - 1;
        if !matches!(self.chars[n_pos], 'n' | 'N') {
            return None;
        }
        let e = self.sredaux(n_pos)?;
        // SWORD must end in a letter other than n (soft hyphens may follow it).
        let mut k = n_pos;
        while k > i && self.chars[k - 1] == '\u{AD}' {
            k -= 1;
        }
        if k == i || matches!(self.chars[k - 1], 'n' | 'N') {
            return None;
        }
        Some((n_pos, e))
    }

    /// APOWORD: words with an apostrophe inside that stay whole (`O'Connor`, `ma'am`, `'90s`).
    fn apoword(&self, i: usize) -> Option<usize> {
        let c = self.chars[i];
        let mut best: Option<usize> = None;
        let mut take = |e: Option<usize>| {
            if let Some(e) = e {
                best = Some(best.map_or(e, |b: usize| b.max(e)));
            }
        };
        if let Some(a) = self.apos(i) {
            // 'n' 'n
            if let Some(n) = self.lit(a, "n") {
                take(Some(n));
                take(self.apos(n));
            }
            take(self.lit(a, "em"));
            if self.is(a, |c| ('2'..='9').contains(&c))
                && self.is(a + 1, |c| c == '0')
                && self.is(a + 2, |c| c == 's' || c == 'S')
            {
                take(Some(a + 3));
            }
            take(self.lits(a, &["til", "till", "cause"]));
        }
        if matches!(c, 'l' | 'L' | 'd' | 'D' | 'j' | 'J') {
            take(self.apos(i + 1));
        }
        for w in ["Dunkin", "somethin", "ol"] {
            if let Some(e) = self.lit(i, w) {
                take(self.apos(e));
            }
        }
        // [A-HJ-XZn] APOSETC LETTER{2} LETTER*
        if matches!(c, 'A'..='H' | 'J'..='X' | 'Z' | 'n') {
            if let Some(a) = self.aposetc(i + 1) {
                let e = self.run_of(a, is_letter);
                if e >= a + 2 {
                    take(Some(e));
                }
            }
        }
        // LETTER LETTER* [aeiouy] APOSETC [aeiouA-Z] LETTER*
        if is_letter(c) {
            let r = self.run_of(i, is_letter);
            if r >= i + 2 && is_vowel(self.chars[r - 1]) {
                if let Some(a) = self.aposetc(r) {
                    if self.is(a, |c| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'A'..='Z')) {
                        take(Some(self.run_of(a + 1, is_letter)));
                    }
                }
            }
        }
        take(
            self.lit(i, "cont'd")
                .map(|e| if self.is(e, |c| c == '.') { e + 1 } else { e }),
        );
        take(self.lits(
            i,
            &[
                "nor'easter",
                "c'mon",
                "e'er",
                "s'mores",
                "ev'ry",
                "li'l",
                "nat'l",
            ],
        ));
        if c == 'O' || c == 'o' {
            if let Some(a) = self.aposetc(i + 1) {
                if self.is(a, |c| c == 'o' || c == 'O') {
                    take(Some(a + 1));
                }
            }
        }
        best
    }

    /// FULLURL = https?:// [^ \t\n\f\r"<>|()]+ [^ \t\n\f\r"<>|.!?(){},-]
    fn full_url(&self, i: usize) -> Option<usize> {
        let s = self.lits(i, &["http://", "https://"])?;
        let e = self.run_of(s, |c| {
            !matches!(
                c,
                ' ' | '\t' | '\n' | '\x0C' | '\r' | '"' | '<' | '>' | '|' | '(' | ')'
            )
        });
        let mut end = e;
        while end > s + 1 {
            let last = self.chars[end - 1];
            if !matches!(last, '.' | '!' | '?' | '{' | '}' | ',' | '-') {
                return Some(end);
            }
            end -= 1;
        }
        None
    }

    /// LIKELYURL: `www.x.yy` or `x.y.com|net|org|edu`, with an optional path.
    fn likely_url(&self, i: usize) -> Option<usize> {
        let mut best = None;
        // www\.([^ ...<>|.!?(){},]+\.)+[a-zA-Z]{2,4}
        if let Some(w) = self.lit(i, "www.") {
            let seg = |c: char| {
                !matches!(
                    c,
                    ' ' | '\t'
                        | '\n'
                        | '\x0C'
                        | '\r'
                        | '"'
                        | '<'
                        | '>'
                        | '|'
                        | '.'
                        | '!'
                        | '?'
                        | '('
                        | ')'
                        | '{'
                        | '}'
                        | ','
                )
            };
            let mut j = w;
            loop {
                let e = self.run_of(j, seg);
                if e == j || !self.is(e, |c| c == '.') {
                    break;
                }
                // After "seg." try the TLD.
                let t = self.run_of(e + 1, |c| c.is_ascii_alphabetic());
                for k in 2..=4 {
                    if t >= e + 1 + k {
                        best = best.max(Some(e + 1 + k));
                    }
                }
                j = e + 1;
            }
        }
        // ([^ ...`'<>|.!?(){},\-_$ and \x2D-\x5F]+\.)+(com|net|org|edu)
        let seg = |c: char| {
            !(matches!(
                c,
                ' ' | '\t'
                    | '\n'
                    | '\x0C'
                    | '\r'
                    | '"'
                    | '`'
                    | '\''
                    | '<'
                    | '>'
                    | '|'
                    | '.'
                    | '!'
                    | '?'
                    | '('
                    | ')'
                    | '{'
                    | '}'
                    | ','
            ) || ('\u{2D}'..='\u{5F}').contains(&c))
        };
        let mut j = i;
        loop {
            let e = self.run_of(j, seg);
            if e == j || !self.is(e, |c| c == '.') {
                break;
            }
            if let Some(t) = self.lits(e + 1, &["com", "net", "org", "edu"]) {
                best = best.max(Some(t));
            }
            j = e + 1;
        }
        let host_end = best?;
        // (\/[^ \t\n\f\r"<>|()]+[^ \t\n\f\r"<>|.!?(){},-])?
        if self.is(host_end, |c| c == '/') {
            let s = host_end + 1;
            let e = self.run_of(s, |c| {
                !matches!(
                    c,
                    ' ' | '\t' | '\n' | '\x0C' | '\r' | '"' | '<' | '>' | '|' | '(' | ')'
                )
            });
            let mut end = e;
            while end > s + 1 {
                if !matches!(self.chars[end - 1], '.' | '!' | '?' | '{' | '}' | ',' | '-') {
                    return Some(end);
                }
                end -= 1;
            }
        }
        Some(host_end)
    }

    /// EMAIL = [a-zA-Z0-9][^ ...]* @ ([^ ....]+\.)* [^ ...\[\].,;:]+
    fn email(&self, i: usize) -> Option<usize> {
        if !self.is(i, is_ascii_alnum) {
            return None;
        }
        let local = |c: char| {
            !matches!(
                c,
                ' ' | '\t'
                    | '\n'
                    | '\x0C'
                    | '\r'
                    | '"'
                    | '<'
                    | '>'
                    | '|'
                    | '('
                    | ')'
                    | '\u{A0}'
                    | '{'
                    | '}'
            )
        };
        let r = self.run_of(i + 1, local);
        let mut best = None;
        for at in (i + 1..r)
            .filter(|&k| self.chars[k] == '@')
            .take(MAX_EMAIL_ATS)
        {
            let seg2 = |c: char| local(c) && c != '.';
            let seg3 = |c: char| seg2(c) && !matches!(c, '[' | ']' | ',' | ';' | ':');
            let mut s = at + 1;
            loop {
                let e3 = self.run_of(s, seg3);
                if e3 > s {
                    best = best.max(Some(e3));
                }
                let e2 = self.run_of(s, seg2);
                if e2 > s && self.is(e2, |c| c == '.') {
                    s = e2 + 1;
                } else {
                    break;
                }
            }
        }
        best
    }

    /// TWITTER = @[a-zA-Z_][a-zA-Z_0-9]* | #WORD
    fn twitter(&self, i: usize) -> Option<usize> {
        match self.chars[i] {
            '@' if self.is(i + 1, |c| c.is_ascii_alphabetic() || c == '_') => {
                Some(self.run_of(i + 2, |c| c.is_ascii_alphanumeric() || c == '_'))
            }
            '#' if self.is(i + 1, is_letter) => Some(self.word(i + 1)),
            _ => None,
        }
    }

    /// DATE = D{1,2} [-/] D{1,2} [-/] D{2,4}
    fn date(&self, i: usize) -> Option<usize> {
        let digits = |j: usize, min: usize, max: usize| -> Option<usize> {
            let e = self.run_of(j, is_digit);
            (e - j >= min && e - j <= max).then_some(e)
        };
        // Bounded counts followed by a separator: the run must fit exactly.
        let a = digits(i, 1, 2)?;
        if !self.is(a, |c| c == '-' || c == '/') {
            return None;
        }
        let b = digits(a + 1, 1, 2)?;
        if !self.is(b, |c| c == '-' || c == '/') {
            return None;
        }
        let e = self.run_of(b + 1, is_digit);
        if e - (b + 1) < 2 {
            return None;
        }
        Some((b + 1 + 4).min(e))
    }

    /// NUMBER = [-+]? (D+ | D* ([.:,\u00AD\u066B\u066C] D+)+)
    fn number(&self, i: usize) -> Option<usize> {
        let mut j = i;
        if self.is(j, |c| c == '-' || c == '+') {
            j += 1;
        }
        let d = self.run_of(j, is_digit);
        let mut e = d;
        let mut any = d > j;
        while self.is(e, |c| {
            matches!(c, '.' | ':' | ',' | '\u{AD}' | '\u{66B}' | '\u{66C}')
        }) && self.is(e + 1, is_digit)
        {
            e = self.run_of(e + 1, is_digit);
            any = true;
        }
        any.then_some(e)
    }

    /// SUBSUPNUM: superscript or subscript digits, optionally signed.
    fn subsupnum(&self, i: usize) -> Option<usize> {
        let sup = |c: char| {
            matches!(
                c,
                '\u{2070}' | '\u{B9}' | '\u{B2}' | '\u{B3}' | '\u{2074}'..='\u{2079}'
            )
        };
        let sub = |c: char| ('\u{2080}'..='\u{2089}').contains(&c);
        let mut j = i;
        if self.is(j, |c| {
            matches!(c, '\u{207A}' | '\u{207B}' | '\u{208A}' | '\u{208B}')
        }) {
            j += 1;
        }
        let a = self.run_of(j, sup);
        let b = self.run_of(j, sub);
        let e = a.max(b);
        (e > j).then_some(e)
    }

    /// FRAC = (D{1,4} [- \u00A0])? D{1,4} (\\?/ | \u2044) D{1,4}
    fn frac(&self, i: usize) -> Option<usize> {
        let core = |j: usize| -> Option<usize> {
            let a = self.run_of(j, is_digit);
            if a == j || a - j > 4 {
                return None;
            }
            let mut s = a;
            if self.is(s, |c| c == '\\') && self.is(s + 1, |c| c == '/') {
                s += 2;
            } else if self.is(s, |c| c == '/' || c == '\u{2044}') {
                s += 1;
            } else {
                return None;
            }
            let b = self.run_of(s, is_digit);
            if b == s {
                return None;
            }
            Some(s + (b - s).min(4))
        };
        let mut best = core(i);
        let a = self.run_of(i, is_digit);
        if a > i && a - i <= 4 && self.is(a, |c| matches!(c, '-' | ' ' | '\u{A0}')) {
            best = best.max(core(a + 1));
        }
        best
    }

    /// TBSPEC: treebank specials (`-LRB-` typed literally, `pro-`, `anti-`, `S&P-500`, ...).
    fn tbspec(&self, i: usize) -> Option<usize> {
        let mut best = self.lits(
            i,
            &[
                "-RRB-",
                "-LRB-",
                "-RCB-",
                "-LCB-",
                "-RSB-",
                "-LSB-",
                "C.D.s",
                "pro-",
                "anti-",
                "S&P-500",
                "S&amp;P-500",
                "S&Ls",
                "S&amp;Ls",
            ],
        );
        for (pre, post) in [("Cap", "n"), ("c", "est")] {
            if let Some(p) = self.lit(i, pre) {
                if let Some(a) = self.apos(p) {
                    best = best.max(self.lit(a, post));
                }
            }
        }
        best
    }

    /// THING3 = [A-Za-z0-9]+ (-[A-Za-z]+){0,2} (\\?/ [A-Za-z0-9]+ (-[A-Za-z]+){0,2}){1,2}
    fn thing3(&self, i: usize) -> Option<usize> {
        // ASCII only: `[A-Za-z0-9]` and `[A-Za-z]` in PTBLexer.flex.
        let alnum = |c: char| c.is_ascii_alphanumeric();
        let alpha = |c: char| c.is_ascii_alphabetic();
        if !self.is(i, alnum) {
            return None;
        }
        // A part: alnum+ then up to two -alpha+ (each taken greedily, as the runs are maximal).
        let part = |j: usize| -> Option<usize> {
            let mut e = self.run_of(j, alnum);
            if e == j {
                return None;
            }
            for _ in 0..2 {
                if self.is(e, |c| c == '-') && self.is(e + 1, alpha) {
                    let r = self.run_of(e + 1, alpha);
                    // alpha+ must stop where alnum would continue? No: the next piece starts
                    // with - or /, so a digit here ends the match.
                    e = r;
                } else {
                    break;
                }
            }
            Some(e)
        };
        let first = part(i)?;
        let mut best = None;
        let mut e = first;
        for _ in 0..2 {
            let s = if self.is(e, |c| c == '\\') && self.is(e + 1, |c| c == '/') {
                e + 2
            } else if self.is(e, |c| c == '/') {
                e + 1
            } else {
                break;
            };
            match part(s) {
                Some(p) => {
                    best = Some(p);
                    e = p;
                }
                None => break,
            }
        }
        best
    }

    /// Abbreviations and acronyms (ABBREV1..4, ACRONYM), with their sentence-final forms.
    fn abbreviations(&self, i: usize, offer: &mut impl FnMut(usize, usize, Action)) {
        // ACRONYM followed by a word that usually starts a sentence: the period is doubled.
        let acro = self.acro(i);
        if let Some(a) = acro {
            if self.is(a, |c| c == '.') {
                let e = a + 1;
                let s = self.run_of(e, is_spacenl);
                if s > e {
                    if let Some(w) = self.sentence_starter(s) {
                        if self.is(w, is_spacenl) {
                            offer(w + 1 - i, e - i, Action::KeepPushbackPeriod);
                        }
                    }
                }
            }
        }
        // A single letter with a period before a sentence starter: the period is a sentence end.
        if self.is(i + 1, |c| c == '.') {
            let e = i + 2;
            let s = self.run_of(e, is_spacenl);
            if s > e {
                if let Some(w) = self.sentence_starter(s) {
                    if self.is(w, is_spacenl) {
                        offer(w + 1 - i, 1, Action::Keep);
                    }
                }
            }
        }
        if let Some(e) = self.abbrev1(i) {
            // ABBREV1/SENTEND1: followed by space and then space, an upper-case letter or a tag.
            if self.is(e, is_spacenl)
                && (self.is(e + 1, |c| is_spacenl(c) || is_uppercase(c))
                    || (self.is(e + 1, |c| c == '<') && self.sgml(e + 1).is_some()))
            {
                offer(e + 2 - i, e - i, Action::KeepPushbackPeriod);
            }
            if e + 2 <= self.chars.len() {
                offer(e + 2 - i, e - i, Action::Keep);
            }
            offer(e - i, e - i, Action::KeepPushbackPeriod);
        }
        // Abbreviations used before numbers ("No. 22", "fig. 3").
        if let Some(e) = self.lits(
            i,
            &["no", "nos", "fig", "figs", "pp", "art", "ca", "prop", "op"],
        ) {
            if self.is(e, |c| c == '.') {
                let s = self.run_of(e + 1, is_space);
                if self.is(s, |c| c.is_ascii_digit()) {
                    offer(s + 1 - i, e + 1 - i, Action::Keep);
                }
            }
        }
        // ABBREV2 = ABBREV4 \.
        if let Some(a) = self.abbrev4(i) {
            if self.is(a, |c| c == '.') {
                offer(a + 1 - i, a + 1 - i, Action::Keep);
            }
        }
    }

    /// ACRO = [A-Za-z](\.[A-Za-z])+ | (Canada|Sino|Korean|EU|Japan|non)-U\.S | U\.S\.-(U\.K|U\.S\.S\.R)
    fn acro(&self, i: usize) -> Option<usize> {
        let mut best = None;
        if self.is(i, |c| c.is_ascii_alphabetic()) {
            let mut e = i + 1;
            while self.is(e, |c| c == '.') && self.is(e + 1, |c| c.is_ascii_alphabetic()) {
                e += 2;
            }
            if e > i + 1 {
                best = Some(e);
            }
        }
        for p in ["Canada", "Sino", "Korean", "EU", "Japan", "non"] {
            if let Some(e) = self.lit(i, p) {
                best = best.max(self.lit(e, "-U.S"));
            }
        }
        if let Some(e) = self.lit(i, "U.S.-") {
            best = best.max(self.lits(e, &["U.K", "U.S.S.R"]));
        }
        best
    }

    /// Words after which an acronym's period probably ends a sentence (first letter upper case).
    fn sentence_starter(&self, i: usize) -> Option<usize> {
        const WORDS: [&str; 47] = [
            "A",
            "About",
            "According",
            "Additionally",
            "After",
            "An",
            "As",
            "At",
            "But",
            "Earlier",
            "He",
            "Her",
            "Here",
            "However",
            "If",
            "In",
            "It",
            "Last",
            "Many",
            "More",
            "Mr.",
            "Ms.",
            "Now",
            "Once",
            "One",
            "Other",
            "Our",
            "She",
            "Since",
            "So",
            "Some",
            "Such",
            "That",
            "The",
            "Their",
            "Then",
            "There",
            "These",
            "They",
            "This",
            "We",
            "When",
            "While",
            "What",
            "Yet",
            "You",
            "Mrs.",
        ];
        let first = self.at(i)?;
        if !first.is_ascii_uppercase() {
            return None;
        }
        WORDS
            .iter()
            .filter(|w| w.starts_with(first) && w != &&"Mrs.")
            .filter_map(|w| self.lit(i, w))
            .max()
    }

    /// ABBREV1 = (month|day|state|company|number|title-suffix|etc|al|seq|Bldg) \.
    fn abbrev1(&self, i: usize) -> Option<usize> {
        const WORDS: &[&str] = &[
            // ABMONTH
            "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
            // ABDAYS
            "Mon", "Tue", "Tues", "Wed", "Thu", "Thurs", "Fri",
            // ABSTATE (those that are also common words are in CASED below)
            "Calif", "Conn", "Fla", "Mich", "Va", "Ariz", "Tenn", "Md", "Colo", "Wis", "Okla", "Ky",
            "Ala", "Nev", "Neb", "Kan", "Mo", "Minn", "Vt", "Ga", "Wyo", "Mont", "Ind", "Penn",
            // ABCOMP
            "Inc", "Co", "Cos", "Corp", "Ltd", "Plc", "Bancorp", "Bhd", "Assn", "Univ", "Intl",
            "Sys", // ABNUM
            "tel", "est", "ext", "sq", // ABPTIT
            "Jr", "Sr", "Bros", "Ed.D", "Ph.D", "Blvd", "Rd", "Esq", "Ct", "Rt", "etc", "al",
            "seq", "Bldg",
        ];
        // State abbreviations that are also words count only with a capital first letter
        // ("Mass." but not "land mass.").
        const CASED: &[&str] = &[
            "Mass", "Ill", "Pa", "Wash", "Ore", "Miss", "La", "Del", "Ark", "Tex",
        ];
        let mut e = self.lits(i, WORDS);
        for w in CASED {
            if self.chars[i] == w.chars().next().unwrap_or(' ') {
                e = e.max(self.lit(i, w));
            }
        }
        // Pp?t[ye]s? (Pty, Pte, Ppty, ...): the [ye] is case-sensitive.
        if let Some(p) = self.lit(i, "p") {
            let p = self.lit(p, "p").unwrap_or(p);
            if let Some(t) = self.lit(p, "t") {
                if self.is(t, |c| c == 'y' || c == 'e') {
                    e = e.max(Some(self.lit(t + 1, "s").unwrap_or(t + 1)));
                }
            }
        }
        let e = e?;
        self.is(e, |c| c == '.').then_some(e + 1)
    }

    /// ABBREV4 = [A-Za-z] | title | vs | Alex | Wm | Jos | Cie | a.k.a | cf | TREAS | Ph | ACRO | ABCOMP2
    fn abbrev4(&self, i: usize) -> Option<usize> {
        const WORDS: &[&str] = &[
            // ABTITLE
            "Mr", "Mrs", "Ms", "Dr", "Drs", "Prof", "Profs", "Sen", "Sens", "Rep", "Reps", "Atty",
            "Attys", "Lt", "Col", "Gen", "Messrs", "Gov", "Govs", "Adm", "Rev", "Maj", "Sgt",
            "Cpl", "Pvt", "Capt", "St", "Ste", "Ave", "Pres", "Lieut", "Hon", "Brig", "Cmdr",
            "Comdr", "Pfc", "Spc", "Supt", "Supts", "Det", "Mt", "Ft", "Adj", "Adv", "Asst",
            "Assoc", "Ens", "Insp", "Mlle", "Mme", "Msgr", "Sfc", // others
            "vs", "Alex", "Wm", "Jos", "Cie", "a.k.a", "cf", "TREAS", "Ph", // ABCOMP2
            "Invt", "Elec", "Natl", "Mfg", "Mtg", "Dept",
        ];
        let mut best = self.lits(i, WORDS);
        if self.chars[i] == 'M' {
            best = best.max(self.lit(i, "Miss"));
        }
        if self.is(i, |c| c.is_ascii_alphabetic()) {
            best = best.max(Some(i + 1));
        }
        best = best.max(self.acro(i));
        best
    }

    /// PHONE: `(555) 555-1234`, `555-1234`, `+1.555.555.1234`.
    fn phone(&self, i: usize) -> Option<usize> {
        let c = self.chars[i];
        if !(c.is_ascii_digit() || c == '(' || c == '+') {
            return None;
        }
        let sep = |c: char| matches!(c, '-' | ' ' | '\u{A0}');
        let mut best = None;
        // Digits in [min,max] at j; all counts possible (JFlex explores every split).
        let dig = |j: usize, min: usize, max: usize| -> Vec<usize> {
            let e = self.run_of(j, |c| c.is_ascii_digit());
            (min..=max).filter(|k| j + k <= e).map(|k| j + k).collect()
        };
        // Tail: [0-9]{3,4} sep? [0-9]{3,5}
        let tail = |j: usize| -> Option<usize> {
            let mut b = None;
            for a in dig(j, 3, 4) {
                for s in [a, a + 1] {
                    if s == a + 1 && !self.is(a, sep) {
                        continue;
                    }
                    if let Some(e) = dig(s, 3, 5).into_iter().max() {
                        b = b.max(Some(e));
                    }
                }
            }
            b
        };
        // Prefix: \([0-9]{2,3}\)[ \u00A0]?  |  (\+\+?)?([0-9]{2,4}[- \u00A0])?[0-9]{2,4}[- \u00A0]
        let mut starts = Vec::new();
        if c == '(' {
            for a in dig(i + 1, 2, 3) {
                if self.is(a, |c| c == ')') {
                    starts.push(a + 1);
                    if self.is(a + 1, |c| c == ' ' || c == '\u{A0}') {
                        starts.push(a + 2);
                    }
                }
            }
        } else {
            let mut j = i;
            while j < i + 2 && self.is(j, |c| c == '+') {
                j += 1;
            }
            let mut firsts = vec![j];
            for a in dig(j, 2, 4) {
                if self.is(a, sep) {
                    firsts.push(a + 1);
                }
            }
            for f in firsts {
                for a in dig(f, 2, 4) {
                    if self.is(a, sep) {
                        starts.push(a + 1);
                    }
                }
            }
        }
        for s in starts {
            best = best.max(tail(s));
        }
        // ((\+\+?)?[0-9]|\+\+?)[.\u00A0-][0-9]{2,4}[.\u00A0-][0-9]{3}[.\u00A0-][0-9]{3,5}
        let dsep = |c: char| matches!(c, '.' | '\u{A0}' | '-');
        let mut heads = Vec::new();
        let mut j = i;
        while j < i + 2 && self.is(j, |c| c == '+') {
            j += 1;
        }
        if j > i {
            heads.push(j);
        }
        if self.is(j, |c| c.is_ascii_digit()) {
            heads.push(j + 1);
        }
        for h in heads {
            if !self.is(h, dsep) {
                continue;
            }
            for a in dig(h + 1, 2, 4) {
                if !self.is(a, dsep) {
                    continue;
                }
                for b in dig(a + 1, 3, 3) {
                    if self.is(b, dsep) {
                        best = best.max(dig(b + 1, 3, 5).into_iter().max());
                    }
                }
            }
        }
        best
    }

    /// QUOTES = APOS | [`'‘’‚‛“”„‟‹›«» and CP1252 quotes]{1,2}
    fn quotes(&self, i: usize) -> Option<usize> {
        let q = |c: char| {
            matches!(
                c,
                '`' | '\u{2018}'
                    | '\u{2019}'
                    | '\u{201A}'
                    | '\u{201B}'
                    | '\u{201C}'
                    | '\u{201D}'
                    | '\u{91}'
                    ..='\u{94}'
                        | '\u{201E}'
                        | '\u{201F}'
                        | '\u{2039}'
                        | '\u{203A}'
                        | '\u{AB}'
                        | '\u{BB}'
            )
        };
        let mut best = self.apos(i);
        if self.is(i, q) {
            let e = if self.is(i + 1, q) { i + 2 } else { i + 1 };
            best = best.max(Some(e));
        }
        // '' is a (closing) double quote.
        if self.is(i, |c| c == '\'') && self.is(i + 1, |c| c == '\'') {
            best = best.max(Some(i + 2));
        }
        best
    }

    /// SMILEY = [<>]?[:;=][\-o\*']?[\(\)DPdpO\\{@\|\[\]]
    fn smiley(&self, i: usize) -> Option<usize> {
        let mut j = i;
        if self.is(j, |c| c == '<' || c == '>') {
            j += 1;
        }
        if !self.is(j, |c| matches!(c, ':' | ';' | '=')) {
            return None;
        }
        j += 1;
        let mouth = |c: char| {
            matches!(
                c,
                '(' | ')' | 'D' | 'P' | 'd' | 'p' | 'O' | '\\' | '{' | '@' | '|' | '[' | ']'
            )
        };
        if self.is(j, mouth) {
            return Some(j + 1);
        }
        if self.is(j, |c| matches!(c, '-' | 'o' | '*' | '\'')) && self.is(j + 1, mouth) {
            return Some(j + 2);
        }
        None
    }

    /// ASIANSMILEY, e.g. `^_^`, `(^-^)`.
    fn asian_smiley(&self, i: usize) -> Option<usize> {
        let eye = |c: char| matches!(c, '^' | 'x' | '=' | '~' | '<' | '>');
        let eye2 = |c: char| eye(c) || c == '-' || c == '\'';
        let mut best = None;
        if self.is(i, eye) && self.is(i + 1, |c| c == '.') && self.is(i + 2, eye) {
            best = Some(i + 3);
        }
        if self.is(i, eye2) && self.is(i + 1, |c| c == '_') && self.is(i + 2, eye2) {
            best = best.max(Some(i + 3));
        }
        if self.is(i, |c| c == '(') {
            let e3 = |c: char| eye(c) || c == '\'';
            if self.is(i + 1, eye2) {
                let mut j = i + 2;
                if self.is(j, |c| c == '_' || c == '.') {
                    j += 1;
                }
                if self.is(j, eye2) && self.is(j + 1, |c| c == ')') {
                    best = best.max(Some(j + 2));
                }
                if self.is(i + 2, eye2) && self.is(i + 3, |c| c == ')') {
                    best = best.max(Some(i + 4));
                }
            }
            if self.is(i + 1, e3)
                && self.is(i + 2, |c| c == '-')
                && self.is(i + 3, |c| e3(c) || c == '`')
                && self.is(i + 4, |c| c == ')')
            {
                best = best.max(Some(i + 5));
            }
        }
        best
    }

    /// LDOTS = \.{3,5} | (\.[ \u00A0]){2,4}\. | [\u0085\u2026]
    fn ldots(&self, i: usize) -> Option<usize> {
        match self.chars[i] {
            '\u{85}' | '\u{2026}' => Some(i + 1),
            '.' => {
                let e = self.run_of(i, |c| c == '.');
                let mut best = (e - i >= 3).then_some(i + (e - i).min(5));
                let mut j = i;
                let mut pairs = 0;
                while pairs < 4
                    && self.is(j, |c| c == '.')
                    && self.is(j + 1, |c| c == ' ' || c == '\u{A0}')
                {
                    j += 2;
                    pairs += 1;
                    if pairs >= 2 && self.is(j, |c| c == '.') {
                        best = best.max(Some(j + 1));
                    }
                }
                best
            }
            _ => None,
        }
    }

    /// THING: letters/digits joined by hyphens, each piece maybe after `d'`, `o'`, `l'`.
    fn thing(&self, i: usize) -> Option<usize> {
        let piece = |j: usize| -> Option<usize> {
            let mut s = j;
            if self.is(j, |c| matches!(c, 'd' | 'D' | 'o' | 'O' | 'l' | 'L')) {
                if let Some(a) = self.aposetc(j + 1) {
                    if self.is(a, is_letter_or_digit) {
                        s = a;
                    }
                }
            }
            let e = self.run_of(s, is_letter_or_digit);
            // With the prefix, at least one alnum follows and (alnum)+ needs one more; the
            // prefix's own alnum is part of the run here, so require e > s.
            if e == s {
                return None;
            }
            if s != j && e == s {
                return None;
            }
            Some(e)
        };
        let mut e = piece(i)?;
        // A prefix piece like "d'o" needs (L|D) then (L|D)+: at least two after the apostrophe.
        while self.is(e, is_hyphen) {
            match piece(e + 1) {
                Some(p) => e = p,
                None => break,
            }
        }
        Some(e)
    }

    /// THINGA = [A-Z]+ (([+&]|&amp;)[A-Z]+)+
    fn thinga(&self, i: usize) -> Option<usize> {
        let mut e = self.run_of(i, |c| c.is_ascii_uppercase());
        let mut parts = 0;
        loop {
            let s = if self.is(e, |c| c == '+' || c == '&') {
                if let Some(a) = self.lit(e, "&amp;") {
                    if self.is(a, |c| c.is_ascii_uppercase()) {
                        a
                    } else {
                        e + 1
                    }
                } else {
                    e + 1
                }
            } else {
                break;
            };
            let r = self.run_of(s, |c| c.is_ascii_uppercase());
            if r == s {
                break;
            }
            e = r;
            parts += 1;
        }
        (parts > 0).then_some(e)
    }

    /// HTHING: hyphenated things with digits, periods and commas inside (`3.5-inch`, `U.S.-made`).
    fn hthing(&self, i: usize) -> Option<usize> {
        let head = |j: usize| -> Option<usize> {
            if !self.is(j, is_ascii_alnum) {
                return None;
            }
            Some(self.run_of(j + 1, |c| is_ascii_alnum(c) || matches!(c, '%' | '.' | ',')))
        };
        // (-([A-Za-z0-9]+|ACRO\.))*, greedy; returns (end, count).
        let tails = |mut e: usize| -> (usize, usize) {
            let mut n = 0;
            while self.is(e, |c| c == '-') {
                let s = e + 1;
                let r = self.run_of(s, is_ascii_alnum);
                let acro = self
                    .acro(s)
                    .filter(|&a| self.is(a, |c| c == '.'))
                    .map(|a| a + 1);
                let next = match acro {
                    Some(a) if a > r => a,
                    _ if r > s => r,
                    _ => break,
                };
                e = next;
                n += 1;
            }
            (e, n)
        };
        let mut best = None;
        // The head's [A-Za-z0-9%.,]* may stop early: try every end of the head that is
        // followed by a hyphen.
        if let Some(h) = head(i) {
            for k in i + 1..=h {
                if self.is(k, |c| c == '-') {
                    let (e, n) = tails(k);
                    if n > 0 {
                        best = best.max(Some(e));
                    }
                }
            }
        }
        if self.is(i, |c| matches!(c, 'd' | 'D' | 'o' | 'O' | 'l' | 'L')) {
            if let Some(a) = self.aposetc(i + 1) {
                if self.is(a, is_ascii_alnum) {
                    let h = self.run_of(a, is_ascii_alnum);
                    best = best.max(Some(h));
                    for k in a + 1..=h {
                        if self.is(k, |c| c == '-') {
                            best = best.max(Some(tails(k).0));
                        }
                    }
                }
            }
        }
        best
    }
}

/// Text of a kept token: spaces inside become U+00A0, soft hyphens go (a token that is nothing
/// but soft hyphens becomes `-`, as in the oracle).
fn keep_text(raw: &str) -> Cow<'_, str> {
    if raw.is_ascii() && !raw.contains(' ') {
        return Cow::Borrowed(raw);
    }
    let text: String = raw
        .chars()
        .filter(|&c| c != '\u{AD}')
        .map(|c| if c == ' ' { '\u{A0}' } else { c })
        .collect();
    if text.is_empty() {
        Cow::Borrowed("-")
    } else {
        Cow::Owned(text)
    }
}

/// PTBTokenizer's LaTeX quote normalization.
fn latex_quotes(tok: &str, left: bool) -> String {
    let mut s = if left {
        tok.replace("&apos;", "`")
            .replace('\'', "`")
            .replace("&quot;", "``")
            .replace('"', "``")
    } else {
        tok.replace("&apos;", "'")
            .replace("&quot;", "''")
            .replace('"', "''")
    };
    if s.is_ascii() {
        return s;
    }
    s = s.replace(['\u{91}', '\u{2018}'], "`");
    s = s.replace(['\u{201C}', '\u{AB}', '\u{93}'], "``");
    s = s.replace(['\u{94}', '\u{201D}', '\u{BB}'], "''");
    s = s.replace(
        ['\u{82}', '\u{8B}', '\u{201A}', '\u{201B}', '\u{2039}'],
        "`",
    );
    s = s.replace(['\u{92}', '\u{9B}', '\u{B4}', '\u{2019}', '\u{203A}'], "'");
    s
}

/// FRAC2: vulgar fraction characters.
fn frac2(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{BC}' => "1/4",
        '\u{BD}' => "1/2",
        '\u{BE}' => "3/4",
        '\u{2153}' => "1/3",
        '\u{2154}' => "2/3",
        '\u{2155}' => "1/5",
        '\u{2156}' => "2/5",
        '\u{2157}' => "3/5",
        '\u{2158}' => "4/5",
        '\u{2159}' => "1/6",
        '\u{215A}' => "5/6",
        '\u{215B}' => "1/8",
        '\u{215C}' => "3/8",
        '\u{215D}' => "5/8",
        '\u{215E}' => "7/8",
        _ => return None,
    })
}

/// DOLSIGN2: other currency signs; `Some(None)` keeps the sign as it is.
fn currency(c: char) -> Option<Option<&'static str>> {
    Some(match c {
        '\u{A2}' => Some("cents"),
        '\u{A3}' => Some("#"),
        '\u{80}' | '\u{20A0}' | '\u{20AC}' => Some("$"),
        '\u{A4}' | '\u{A5}' | '\u{60B}' | '\u{E3F}' | '\u{20A4}' | '\u{FFE0}' | '\u{FFE1}'
        | '\u{FFE5}' | '\u{FFE6}' => None,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    //! Each example was checked against the oracle (PTBTokenizer 3.4.1, `-preserveLines`).
    use super::*;

    fn words(text: &str) -> String {
        tokenize_words(text).join(" ")
    }

    #[test]
    fn clitics_split_off_as_in_the_treebank() {
        // n't and the reduced auxiliaries are tokens of their own; "ca"/"wo" keep the stem.
        assert_eq!(
            words("I don't know, it's fine"),
            "I do n't know , it 's fine"
        );
        assert_eq!(
            words("can't won't they've I'll go"),
            "ca n't wo n't they 've I 'll go"
        );
        // At the very end of the text "'ll" has no character after it and the opening-quote
        // rule wins; "'s" has no such competitor.
        assert_eq!(words("I'll"), "I ` ll");
        assert_eq!(words("it's"), "it 's");
        // Upper case too, with the case kept.
        assert_eq!(words("DON'T THAT'S"), "DO N'T THAT 'S");
        // Fused words are split like the treebank splits them.
        assert_eq!(words("I cannot gonna"), "I can not gon na");
        // Possessives of plurals keep a bare apostrophe.
        assert_eq!(words("the dogs' toys"), "the dogs ' toys");
    }

    #[test]
    fn words_with_apostrophes_inside_stay_whole() {
        assert_eq!(
            words("o'clock O'Connor d'oeuvres '90s"),
            "o'clock O'Connor d'oeuvres '90s"
        );
        // 'n' is one token; "'tis" becomes "'t is".
        assert_eq!(words("rock'n'roll 'tis"), "rock 'n' roll 't is");
    }

    #[test]
    fn hyphenated_words_and_numbers_are_single_tokens() {
        assert_eq!(words("a hot-dog stand"), "a hot-dog stand");
        assert_eq!(words("a 5-year-old x-ray"), "a 5-year-old x-ray");
        assert_eq!(
            words("1,000.50 10:30 3 1/2 1-1/2"),
            "1,000.50 10:30 3\u{A0}1/2 1-1/2"
        );
        // Two hyphens stay, three or four become "--", a dangling one is its own token.
        assert_eq!(
            words("a--b a---b x-ray- -ish"),
            "a -- b a -- b x-ray - - ish"
        );
        // A slash joins up to three parts.
        assert_eq!(words("his/her a/b/c/d"), "his/her a/b/c / d");
    }

    #[test]
    fn abbreviations_keep_their_period() {
        assert_eq!(
            words("Mr. Smith saw Dr. Who at St. Mark"),
            "Mr. Smith saw Dr. Who at St. Mark"
        );
        assert_eq!(
            words("e.g. a t.v. in the U.S. today"),
            "e.g. a t.v. in the U.S. today"
        );
        // An ordinary word does not.
        assert_eq!(words("a man."), "a man .");
    }

    #[test]
    fn an_abbreviation_that_ends_a_sentence_repeats_its_period() {
        // "U.S." before "He": the period is both part of the acronym and a sentence end.
        assert_eq!(
            words("He lives in the U.S. He is happy."),
            "He lives in the U.S. . He is happy ."
        );
        assert_eq!(words("apples etc. The end"), "apples etc. . The end");
        // A single letter gives its period up instead.
        assert_eq!(words("the X. The end"), "the X . The end");
        // "mass" is only an abbreviation (Massachusetts) with a capital M.
        assert_eq!(words("land mass. Mass. The"), "land mass . Mass. . The");
    }

    #[test]
    fn brackets_and_quotes_are_normalized() {
        assert_eq!(
            words("A man (in a hat) [on] a {bench}"),
            "A man -LRB- in a hat -RRB- -LSB- on -RSB- a -LCB- bench -RCB-"
        );
        // An opening double quote is followed by a letter, digit or $.
        assert_eq!(words("says \"STOP\" now"), "says `` STOP '' now");
        // A single quote opens only before a letter that is not alone.
        assert_eq!(words("say 'hi' to 'a b"), "say ` hi ' to ' a b");
        assert_eq!(
            words("\u{201C}Hi\u{201D} \u{2018}yo\u{2019} don\u{2019}t"),
            "`` Hi '' ` yo ' do n't"
        );
    }

    #[test]
    fn punctuation_runs() {
        assert_eq!(
            words("wait... what?! no!! ok .. x . . . y"),
            "wait ... what ?! no !! ok . . x ... y"
        );
        assert_eq!(words("bikes., sink.;"), "bikes. , sink. ;");
    }

    #[test]
    fn thing3_joins_ascii_letters_and_digits_only() {
        // `[A-Za-z0-9]+` around the slash: other letters and digits, fractions and superscripts
        // do not join (PTBTokenizer 3.4.1, and 3.6.0's PTBLexer.flex has the same THING3).
        assert_eq!(words("a/b x9/y-z éa/b aªb/c"), "a/b x9/y-z éa / b aªb / c");
        assert_eq!(
            words("x²/y ½/b a½/b ①/b"),
            "x ² / y 1/2 / b a 1/2 / b ① / b"
        );
        assert_eq!(
            words("\u{4E00}\u{4E8C}/\u{4E09}"),
            "\u{4E00}\u{4E8C} / \u{4E09}"
        );
        let run = "\u{BD}".repeat(1100);
        let mut expected = vec!["1/2"; 1100];
        expected.extend(["/", "b"]);
        assert_eq!(words(&format!("{run}/b")), expected.join(" "));
    }

    #[test]
    fn unicode_dashes_ellipses_currency_fractions() {
        assert_eq!(words("a \u{2013} b \u{2014} c"), "a -- b -- c");
        assert_eq!(
            words("wait\u{2026} \u{A3}5 \u{20AC}3 \u{A2} \u{BD}"),
            "wait ... # 5 $ 3 cents 1/2"
        );
        assert_eq!(
            words("caf\u{E9} na\u{EF}ve \u{4E2D}\u{6587}"),
            "caf\u{E9} na\u{EF}ve \u{4E2D}\u{6587}"
        );
        // Superscripts and subscripts stand alone.
        assert_eq!(words("x\u{B2} H\u{2082}O"), "x \u{B2} H \u{2082} O");
    }

    #[test]
    fn html_tags_and_entities() {
        assert_eq!(
            words("<p>A <b>dog</b> &amp; a cat</p>"),
            "<p> A <b> dog </b> & a cat </p>"
        );
        // Spaces inside a tag become U+00A0, so the tag stays one token in space-separated output.
        assert_eq!(
            words("<a href=\"x y\">link</a>"),
            "<a\u{A0}href=\"x\u{A0}y\"> link </a>"
        );
        assert_eq!(
            words("x < y &lt;b&gt; &quot;hi&quot;"),
            "x < y < b > `` hi ''"
        );
    }

    #[test]
    fn smileys_urls_emails() {
        assert_eq!(words(":) :-( ^_^"), ":-RRB- :--LRB- ^_^");
        assert_eq!(
            words("see www.cocodataset.org or a@b.com."),
            "see www.cocodataset.org or a@b.com ."
        );
    }

    #[test]
    fn characters_no_rule_accepts_are_dropped() {
        // Emoji (outside the BMP), control characters, zero-width characters.
        assert_eq!(
            words("\u{1F600} a \u{1F355} pizza \u{1F44D}\u{1F3FD} ok"),
            "a pizza ok"
        );
        assert_eq!(words("a\u{1}b\u{7F}c\u{1B}d\u{0}e"), "a b c d e");
        assert_eq!(words("x \u{FFFD} y \u{E000} w \u{200B}z"), "x y w z");
        // A lone soft hyphen is a hyphen; inside a word it disappears.
        assert_eq!(words("\u{AD} soft\u{AD}hyphen"), "- softhyphen");
    }

    #[test]
    fn empty_and_blank_captions_have_no_tokens() {
        assert!(tokenize("").is_empty());
        assert!(tokenize("   \t \n ").is_empty());
        assert!(split_sentences(&tokenize("")).is_empty());
        assert_eq!(tokenize_coco(""), "");
        assert_eq!(tokenize_coco(" . , ! "), "");
    }

    #[test]
    fn offsets_point_into_the_input() {
        let text = "Don\u{2019}t (go)";
        let toks = tokenize(text);
        let spans: Vec<(&str, &str)> = toks
            .iter()
            .map(|t| (t.text.as_str(), &text[t.start..t.end]))
            .collect();
        assert_eq!(
            spans,
            [
                ("Do", "Do"),
                ("n't", "n\u{2019}t"),
                ("-LRB-", "("),
                ("go", "go"),
                ("-RRB-", ")")
            ]
        );
    }

    #[test]
    fn long_and_hostile_inputs_do_not_panic() {
        // 500 tokens.
        let long = "a dog , ".repeat(167);
        assert_eq!(tokenize(&long).len(), 501);
        // Long runs without spaces of characters that several rules scan ahead over.
        for unit in [
            "a.", "a@", "<a", "x,", "1-", "'a", ".", "-", "&amp;", "\u{301}",
        ] {
            let text = unit.repeat(5_000);
            let toks = tokenize(&text);
            let covered: usize = toks.iter().map(|t| t.end - t.start).sum();
            assert!(covered <= text.len(), "{unit}: tokens overlap");
            assert!(
                toks.windows(2).all(|w| w[0].end <= w[1].start),
                "{unit}: out of order"
            );
        }
        // Every single BMP character and a few beyond, alone and inside a word.
        for cp in (0u32..0x1_0000).step_by(7).chain([0x1F600, 0x10FFFF]) {
            if let Some(c) = char::from_u32(cp) {
                let _ = tokenize(&format!("{c}"));
                let _ = tokenize_coco(&format!("a{c}b {c}'s"));
            }
        }
    }

    #[test]
    fn sentences_end_after_final_punctuation() {
        let toks = tokenize("A man rides a horse. A dog runs! Is it? Yes (really).");
        let sents: Vec<String> = split_sentences(&toks)
            .into_iter()
            .map(|r| {
                toks[r]
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            sents,
            [
                "A man rides a horse .",
                "A dog runs !",
                "Is it ?",
                "Yes -LRB- really -RRB- ."
            ]
        );
        // The doubled period of a sentence-final acronym ends the sentence.
        let toks = tokenize("He lives in the U.S. He is happy.");
        assert_eq!(split_sentences(&toks), [0..6, 6..10]);
        // A closing quote belongs to the sentence it closes; no final period, one sentence.
        let toks = tokenize("He said \"stop.\" Then left");
        assert_eq!(split_sentences(&toks), [0..6, 6..8]);
    }

    #[test]
    fn coco_form_is_lowercased_without_punctuation() {
        // Brackets survive as -lrb-/-rrb-: pycocoevalcap's list has them in upper case only.
        assert_eq!(
            tokenize_coco("A man (in a hat) said \"don't\"."),
            "a man -lrb- in a hat -rrb- said do n't"
        );
        assert_eq!(tokenize_coco("Two dogs.\nOn grass!"), "two dogs on grass");
        assert_eq!(tokenize_coco("The U.S. Flag, etc."), "the u.s. flag etc.");
        // Java's lower-casing: final sigma, dotted capital I.
        assert_eq!(
            tokenize_coco("\u{3A3}\u{391}\u{3A3}"),
            "\u{3C3}\u{3B1}\u{3C2}"
        );
    }

    #[test]
    fn batches_lexed_in_chunks_equal_one_pass() {
        // Lookahead across line breaks (abbreviations before capitals, runs of empty lines,
        // a long run of spaces), clitics at the end, offsets: chunks of every size agree with
        // lexing the whole text at once.
        let long_space = " ".repeat(3 * MAX_RUN);
        let mut captions: Vec<String> = Vec::new();
        for k in 0..40 {
            captions.extend(
                [
                    "A dog etc.",
                    "He sat there, etc.",
                    "",
                    "",
                    "The U.S.",
                    &long_space,
                    "Then I'll go.",
                    "A man in a \"hat\" (red) ... says: \u{201c}hi\u{201d} -- ok!!",
                    "I'll",
                ]
                .iter()
                .map(|c| format!("{c}{}", if k % 3 == 0 { "" } else { " x" })),
            );
        }
        captions.push("I'll".into());
        let whole = tokenize_batch_in_chunks(&captions, usize::MAX);
        assert_eq!(whole.len(), captions.len());
        for chunk in [1, 7, 100, 5000] {
            assert_eq!(
                tokenize_batch_in_chunks(&captions, chunk),
                whole,
                "chunk {chunk}"
            );
        }
        // The COCO form built while lexing equals the tokens joined afterwards.
        let joined: Vec<String> = whole
            .iter()
            .map(|line| {
                let mut out = String::new();
                for t in line {
                    coco_push(&mut out, &t.text);
                }
                out
            })
            .collect();
        assert_eq!(tokenize_coco_batch(&captions), joined);
        assert_eq!(joined.last().map(String::as_str), Some("i ll"));
        assert_eq!(joined[joined.len() - 2], "i 'll");
    }

    #[test]
    fn coco_batch_sees_each_caption_followed_by_the_next() {
        // "'ll" needs a character after it to split off: within a batch the line break is one,
        // at the end of the file (the last caption of a pycocoevalcap call) there is none.
        assert_eq!(tokenize_coco_batch(&["I'll", "I'll"]), ["i 'll", "i ll"]);
        assert_eq!(tokenize_coco("I'll"), "i 'll");
        assert_eq!(tokenize_batch(&["a\nb", "c"]).len(), 2);
    }
}
