//! Inputs that look like what the parsers expect, then spoilt: a seeded generator
//! ([`Gen`]), captions of real words with hostile Unicode among them ([`caption`]), JSON of
//! the right shape with odd values ([`Json`]), and byte-level damage ([`damage`]): truncation,
//! invalid UTF-8, byte-order marks, NULs, HTML, deep nesting, huge numbers.
//!
//! Every input is made from its seed and its index alone, so any one can be made again
//! (`fuzz TARGET --from INDEX --count 1 --save DIR`) without the ones before it.

use spice::metaeval::stats::SplitMix64;

/// A small, fast, seeded generator (the bootstrap's SplitMix64, drawn from by modulo).
pub struct Gen(SplitMix64);

impl Gen {
    /// The generator of input number `index` of a run seeded with `seed`.
    pub fn new(seed: u64, index: u64) -> Gen {
        let mut g = Gen(SplitMix64::new(
            seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F),
        ));
        g.next_u64();
        g
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True about once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }

    /// A length: mostly at most `small`, one time in 40 at most `large`, one in 500 up to 16
    /// times that (most inputs stay small, so that many run; a few are large).
    pub fn len(&mut self, small: usize, large: usize) -> usize {
        match self.below(1000) {
            0..=1 => self.below(large * 16 + 1),
            2..=26 => self.below(large + 1),
            _ => self.below(small + 1),
        }
    }
}

/// Words of real captions, and the tokenizer's hard cases.
const WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "man",
    "woman",
    "dog",
    "dogs",
    "cat",
    "horse",
    "riding",
    "sitting",
    "standing",
    "on",
    "in",
    "of",
    "with",
    "and",
    "next",
    "to",
    "top",
    "front",
    "is",
    "are",
    "two",
    "three",
    "couple",
    "pair",
    "group",
    "bunch",
    "lot",
    "red",
    "white",
    "big",
    "small",
    "wooden",
    "table",
    "beach",
    "street",
    "bathroom",
    "toilet",
    "tub",
    "bath",
    "there",
    "it",
    "they",
    "his",
    "her",
    "its",
    "that",
    "which",
    "who",
    "while",
    "very",
    "not",
    "no",
    "some",
    "cat's",
    "dogs'",
    "don't",
    "can't",
    "won't",
    "n't",
    "'s",
    "'ll",
    "etc.",
    "U.S.",
    "Mr.",
    "a.m.",
    "3.5",
    "1/2",
    "$5",
    "10:30",
    "100,000",
    "e-mail",
    "co-op",
    "--",
    "...",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "`",
    "``",
    "''",
    ",",
    ".",
    "!",
    "?",
    ";",
    ":",
    "-",
    "&",
    "&amp;",
    "&lt;",
    "&#x41;",
    "<b>",
    "</i>",
    "<script>alert(1)</script>",
    "<br/>",
    "http://example.com/a?b=c&d",
    "www.x.org",
    "@user",
    "#tag",
    "=1+1",
    "-LRB-",
    "-RRB-",
    "\u{201C}",
    "\u{201D}",
    "\u{2018}",
    "\u{2019}",
    "\u{2026}",
    "\u{2014}",
    "\u{2013}",
    "n\u{2019}t",
    "\u{BD}",
    "\u{A9}",
    "\u{2122}",
    "\u{FB01}",
    "\u{1C4}",
    "\u{130}",
    "\u{DF}",
    "caf\u{E9}",
    "cafe\u{301}",
    "na\u{EF}ve",
    "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
    "\u{1F1EB}\u{1F1F7}",
    "\u{5E2}\u{5D1}\u{5E8}\u{5D9}\u{5EA}",
    "\u{627}\u{644}\u{639}\u{631}\u{628}\u{64A}\u{629}",
    "\u{732B}\u{304C}\u{5EA7}\u{3063}\u{3066}",
    "\u{E01}\u{E32}\u{E23}",
    "\u{915}\u{94D}\u{937}",
    "\u{200B}",
    "\u{200D}",
    "\u{FEFF}",
    "\u{202E}",
    "\u{FE0F}",
    "\u{E0100}",
    "\u{10FFFF}",
    "\u{FFFD}",
    "\u{FFFF}",
    "\u{0}",
    "\u{1}",
    "\u{1B}[31m",
    "\u{7F}",
    "\u{85}",
    "\u{A0}",
    "\u{2028}",
    "\u{2029}",
    "\t",
    "\r\n",
    "\n",
    "\r",
    "\u{B}",
    "\u{C}",
    " ",
    "  ",
];

/// White space and glue between words.
const GLUE: &[&str] = &[
    " ", " ", " ", " ", "", "  ", "\t", "\n", "\u{A0}", "\u{3000}", "-", "/",
];

/// Any Unicode scalar value, weighted towards the interesting planes.
fn code_point(g: &mut Gen) -> char {
    let n = match g.below(6) {
        0 => g.below(0x80),
        1 => g.below(0x800),
        2 => 0x2000 + g.below(0x100),
        3 => 0xE000 + g.below(0x2000),
        4 => 0x1F000 + g.below(0x1000),
        _ => g.below(0x11_0000),
    } as u32;
    char::from_u32(n).unwrap_or('\u{FFFD}')
}

/// A caption: mostly real words, with hostile pieces among them; now and then a long run of
/// one character, random code points, or hundreds of words.
pub fn caption(g: &mut Gen) -> String {
    let mut s = String::new();
    let words = g.len(12, 200);
    for _ in 0..words {
        match g.below(40) {
            0 => {
                let c = code_point(g);
                let n = g.len(3, 5000);
                s.extend(std::iter::repeat_n(c, n));
            }
            1..=4 => {
                for _ in 0..g.len(4, 64) {
                    s.push(code_point(g));
                }
            }
            _ => s.push_str(g.pick::<&str>(WORDS)),
        }
        s.push_str(g.pick::<&str>(GLUE));
    }
    if g.one_in(20) {
        s = s.to_uppercase();
    }
    s
}

/// Numbers as JSON spells them, and as it does not.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "7",
    "42",
    "1.0",
    "3.0",
    "1e2",
    "1E400",
    "-1e400",
    "1e-400",
    "0.5",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890123456789",
    "00",
    "01",
    "-",
    "1.",
    ".5",
    "+1",
    "NaN",
    "Infinity",
    "-Infinity",
    "0x10",
    "1_000",
];

/// String escapes, valid and not.
const ESCAPES: &[&str] = &[
    "\\u0000",
    "\\ud800",
    "\\udfff",
    "\\ud83d\\ude00",
    "\\uDBFF\\uDFFF",
    "\\u00e9",
    "\\n",
    "\\t",
    "\\\"",
    "\\\\",
    "\\/",
    "\\x41",
    "\\u12",
    "\\",
    "\\b\\f\\r",
    "\\u0041\\u030a",
];

/// JSON text being written: values of the expected shape with odd ones among them.
pub struct Json<'g> {
    pub g: &'g mut Gen,
    pub out: String,
}

impl Json<'_> {
    pub fn new(g: &mut Gen) -> Json<'_> {
        Json {
            g,
            out: String::new(),
        }
    }

    pub fn raw(&mut self, s: &str) -> &mut Self {
        self.out.push_str(s);
        self
    }

    /// A string value holding `text`, escaped as JSON requires, with stray escapes now and then.
    pub fn string(&mut self, text: &str) -> &mut Self {
        self.out.push('"');
        for c in text.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04x}", c as u32)),
                c => self.out.push(c),
            }
            if self.g.one_in(200) {
                let e = *self.g.pick(ESCAPES);
                self.out.push_str(e);
            }
        }
        self.out.push('"');
        self
    }

    pub fn number(&mut self) -> &mut Self {
        let n = *self.g.pick(NUMBERS);
        self.raw(n)
    }

    /// An integer image id: mostly one of `ids`, sometimes any number or another kind of value.
    pub fn id(&mut self, ids: &[i64]) -> &mut Self {
        match self.g.below(20) {
            0 => self.number(),
            1 => {
                let v = format!("\"{}\"", self.g.pick(ids));
                self.raw(&v)
            }
            2 => self.value(3),
            _ => {
                let v = self.g.pick(ids).to_string();
                self.raw(&v)
            }
        }
    }

    /// A caption string, sometimes another kind of value.
    pub fn caption(&mut self) -> &mut Self {
        if self.g.one_in(25) {
            return self.value(3);
        }
        let c = caption(self.g);
        self.string(&c)
    }

    /// Any JSON value, nested at most `depth` deep (now and then far deeper).
    pub fn value(&mut self, depth: usize) -> &mut Self {
        if self.g.one_in(500) {
            let n = *self.g.pick(&[127, 128, 129, 1000, 100_000]);
            let (open, close) = *self.g.pick(&[("[", "]"), ("{\"k\":", "}")]);
            self.out.push_str(&open.repeat(n));
            self.number();
            self.out.push_str(&close.repeat(n));
            return self;
        }
        match self.g.below(if depth == 0 { 5 } else { 7 }) {
            0 => self.raw("null"),
            1 => {
                let b = *self.g.pick(&["true", "false"]);
                self.raw(b)
            }
            2 | 3 => self.number(),
            4 => {
                let c = caption(self.g);
                self.string(&c)
            }
            5 => self.array(depth - 1, |j, d| {
                j.value(d);
            }),
            _ => {
                let n = self.g.len(3, 40);
                self.out.push('{');
                for i in 0..n {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let k = *self
                        .g
                        .pick(&["image_id", "caption", "k", "", "refs", "test"]);
                    self.string(k).raw(":").value(depth - 1);
                }
                self.raw("}")
            }
        }
    }

    /// An array of `len(4, 200)` elements written by `element`.
    /// A JSON array of one element per id, written by `element` (a file's images or captions).
    pub fn items(&mut self, ids: &[i64], mut element: impl FnMut(&mut Self, i64)) -> &mut Self {
        self.out.push('[');
        for (n, &id) in ids.iter().enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            element(self, id);
        }
        self.out.push(']');
        self
    }

    pub fn array(&mut self, depth: usize, mut element: impl FnMut(&mut Self, usize)) -> &mut Self {
        let n = self.g.len(6, 200);
        self.out.push('[');
        for i in 0..n {
            if i > 0 {
                self.out.push(',');
            }
            self.ws();
            element(self, depth);
        }
        self.out.push(']');
        self
    }

    /// An object with the given keys, each written by `field`, in a shuffled order, sometimes a
    /// key twice, one left out, or an extra one.
    pub fn object(&mut self, keys: &[&str], mut field: impl FnMut(&mut Self, &str)) -> &mut Self {
        let mut order: Vec<&str> = keys.to_vec();
        if self.g.one_in(10) && !order.is_empty() {
            let i = self.g.below(order.len());
            order.remove(i);
        }
        if self.g.one_in(10) && !keys.is_empty() {
            let k = *self.g.pick(keys);
            order.push(k);
        }
        if self.g.one_in(10) {
            order.push(
                *self
                    .g
                    .pick(&["extra", "id", "score", "\u{0}", "image_id\u{200B}"]),
            );
        }
        if self.g.one_in(4) {
            for i in (1..order.len()).rev() {
                let j = self.g.below(i + 1);
                order.swap(i, j);
            }
        }
        self.out.push('{');
        for (i, k) in order.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.string(k).raw(":");
            if keys.contains(k) {
                field(self, k);
            } else {
                self.value(2);
            }
        }
        self.raw("}")
    }

    fn ws(&mut self) {
        if self.g.one_in(8) {
            let w = *self.g.pick(&[" ", "\n", "\r\n", "\t", "  \n  "]);
            self.out.push_str(w);
        }
    }

    pub fn finish(self) -> Vec<u8> {
        let Json { g, out } = self;
        damage(g, out.into_bytes())
    }
}

/// Byte-level damage, applied to about half the inputs: cut short, bytes flipped, invalid
/// UTF-8, a byte-order mark, NULs, HTML, a piece repeated, garbage at the end.
pub fn damage(g: &mut Gen, mut b: Vec<u8>) -> Vec<u8> {
    if g.one_in(2) {
        return b;
    }
    for _ in 0..1 + g.below(3) {
        let at = if b.is_empty() {
            0
        } else {
            g.below(b.len() + 1)
        };
        match g.below(12) {
            0 => b.truncate(at),
            1 => {
                if at < b.len() {
                    b[at] ^= 1 << g.below(8);
                }
            }
            2 => {
                let bad: &[u8] = g.pick::<&[u8]>(&[
                    &b"\xff"[..],
                    b"\xc0\x80",
                    b"\xed\xa0\x80",
                    b"\xf4\x90\x80\x80",
                    b"\xe2\x82",
                    b"\x80",
                ]);
                b.splice(at..at, bad.iter().copied());
            }
            3 => {
                b.splice(0..0, *b"\xEF\xBB\xBF");
            }
            4 => {
                b.insert(at, 0);
            }
            5 => {
                let html: &[u8] = g.pick::<&[u8]>(&[
                    &b"<html><body>"[..],
                    b"<!DOCTYPE html>",
                    b"</script>",
                    b"<?xml version=\"1.0\"?>",
                ]);
                b.splice(at..at, html.iter().copied());
            }
            6 => {
                if !b.is_empty() {
                    let from = g.below(b.len());
                    let to = (from + g.len(64, 4096)).min(b.len());
                    let piece = b[from..to].to_vec();
                    for _ in 0..g.len(2, 64) {
                        b.splice(at.min(b.len())..at.min(b.len()), piece.iter().copied());
                    }
                }
            }
            7 => {
                let tail: &[u8] = g.pick::<&[u8]>(&[&b","[..], b"]", b"}", b"\"", b" x", b"\n{}"]);
                b.extend_from_slice(tail);
            }
            8 => {
                let n: &[u8] = g.pick::<&[u8]>(&[
                    &b"1e99999"[..],
                    b"-0.0000000000000000000000000000001",
                    b"99999999999999999999999999999999999999999999999999999999",
                ]);
                b.splice(at..at, n.iter().copied());
            }
            9 => {
                if at < b.len() {
                    let c = *g.pick(b"\"[]{},:\\");
                    b[at] = c;
                }
            }
            10 => {
                if at < b.len() {
                    b.remove(at);
                }
            }
            _ => {
                let n = g.below(8);
                for _ in 0..n {
                    let byte = g.next_u64() as u8;
                    b.insert(at.min(b.len()), byte);
                }
            }
        }
    }
    b
}
