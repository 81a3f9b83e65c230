//! Trees, and what `LexicalizedParserQuery.getBestPCFGParse` does to the chart's binarized tree:
//! `Debinarizer` (splice out the `@` nodes binarization made), `BoundaryRemover` (drop the
//! boundary's `.$$.` child of the root), `EnglishSubcategoryStripper` (annotated labels back to
//! Penn Treebank ones, keeping `-TMP` on phrases, as the parse annotator's default
//! `-retainTmpSubcategories` asks), and the original words restored at the leaves.

use std::fmt::Write;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    pub label: String,
    pub children: Vec<Tree>,
}

impl Tree {
    pub fn leaf(word: &str) -> Tree {
        Tree {
            label: word.to_string(),
            children: Vec::new(),
        }
    }

    pub fn node(label: &str, children: Vec<Tree>) -> Tree {
        Tree {
            label: label.to_string(),
            children,
        }
    }

    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    pub fn is_preterminal(&self) -> bool {
        self.children.len() == 1 && self.children[0].is_leaf()
    }

    /// Penn Treebank bracketing on one line, as CoreNLP prints `(ROOT (S ...))`.
    pub fn penn(&self) -> String {
        let mut s = String::new();
        self.write_penn(&mut s);
        s
    }

    fn write_penn(&self, s: &mut String) {
        if self.is_leaf() {
            s.push_str(&self.label);
            return;
        }
        let _ = write!(s, "({}", self.label);
        for c in &self.children {
            s.push(' ');
            c.write_penn(s);
        }
        s.push(')');
    }

    /// Reads a bracketed tree such as CoreNLP prints.
    pub fn from_penn(text: &str) -> Option<Tree> {
        let tokens = penn_tokens(text);
        let mut pos = 0;
        let t = read_tree(&tokens, &mut pos)?;
        (pos == tokens.len()).then_some(t)
    }

    /// `Debinarizer` then `BoundaryRemover`.
    pub fn debinarize(&self) -> Tree {
        let mut t = self.splice_synthetic();
        if let Some(last) = t.children.last() {
            if last.label == ".$$." || last.label == ".$." {
                t.children.pop();
            }
        }
        t
    }

    fn splice_synthetic(&self) -> Tree {
        if self.is_leaf() {
            return self.clone();
        }
        let mut children = Vec::with_capacity(self.children.len());
        for c in &self.children {
            let nc = c.splice_synthetic();
            if !nc.is_leaf() && nc.label.contains('@') {
                children.extend(nc.children);
            } else {
                children.push(nc);
            }
        }
        Tree {
            label: self.label.clone(),
            children,
        }
    }

    /// `EnglishSubcategoryStripper` with `retainTMPSubcategories` (the models CoreNLP ships have
    /// `splitBaseNP` and `splitPoss` below 2, whose undoing is therefore not needed).
    pub fn strip_subcategories(&self) -> Tree {
        if self.is_leaf() {
            return self.clone();
        }
        let label = if self.is_preterminal() {
            basic_category(&self.label).to_string()
        } else if self.label.contains("-TMP") {
            format!("{}-TMP", basic_category(&self.label))
        } else {
            basic_category(&self.label).to_string()
        };
        Tree {
            label,
            children: self
                .children
                .iter()
                .map(Tree::strip_subcategories)
                .collect(),
        }
    }

    /// Replaces the leaves' words, left to right.
    pub fn set_words(&mut self, words: &[String]) {
        let mut i = 0;
        self.set_words_from(words, &mut i);
    }

    fn set_words_from(&mut self, words: &[String], i: &mut usize) {
        if self.is_leaf() {
            if let Some(w) = words.get(*i) {
                self.label.clone_from(w);
            }
            *i += 1;
            return;
        }
        for c in &mut self.children {
            c.set_words_from(words, i);
        }
    }
}

/// `PennTreebankLanguagePack.basicCategory`: the label up to its first annotation character
/// (`- = | # ^ ~ _ [`), where a label that starts with one (`-LRB-`, `#`) keeps it, and keeps a
/// second one equal to it (`-LRB-`).
pub fn basic_category(label: &str) -> &str {
    const MARKS: &[char] = &['-', '=', '|', '#', '^', '~', '_', '['];
    let mut saw_at_zero = false;
    let mut seen_at_zero = '\0';
    for (n, (i, ch)) in label.char_indices().enumerate() {
        if MARKS.contains(&ch) {
            if n == 0 {
                saw_at_zero = true;
                seen_at_zero = ch;
            } else if saw_at_zero && n > 1 && ch == seen_at_zero {
                saw_at_zero = false;
            } else {
                return &label[..i];
            }
        }
    }
    label
}

fn penn_tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in text.char_indices() {
        match ch {
            '(' | ')' => {
                if let Some(s) = start.take() {
                    out.push(&text[s..i]);
                }
                out.push(&text[i..i + 1]);
            }
            c if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(&text[s..i]);
                }
            }
            _ => {
                if start.is_none() {
                    start = Some(i);
                }
            }
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn read_tree(tokens: &[&str], pos: &mut usize) -> Option<Tree> {
    match *tokens.get(*pos)? {
        "(" => {
            *pos += 1;
            let label = match *tokens.get(*pos)? {
                "(" | ")" => String::new(),
                l => {
                    *pos += 1;
                    l.to_string()
                }
            };
            let mut children = Vec::new();
            while *tokens.get(*pos)? != ")" {
                children.push(read_tree(tokens, pos)?);
            }
            *pos += 1;
            Some(Tree { label, children })
        }
        ")" => None,
        w => {
            *pos += 1;
            Some(Tree::leaf(w))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_categories() {
        assert_eq!(basic_category("NP^PP-U-R-v"), "NP");
        assert_eq!(basic_category("-LRB-"), "-LRB-");
        assert_eq!(basic_category("-LRB-^NP"), "-LRB-");
        assert_eq!(basic_category("#^QP"), "#");
        assert_eq!(basic_category("PRP$^NP"), "PRP$");
        assert_eq!(basic_category(".$$."), ".$$.");
        assert_eq!(basic_category("NP-TMP^FRAG-B"), "NP");
    }

    #[test]
    fn debinarize_and_strip() {
        let t = Tree::from_penn("(ROOT (S^ROOT (NP^S (DT^NP a) (@NP^S (JJ^NP big) (NN^NP dog))) (VP^S (VBZ runs))) (.$$. .$.))")
            .expect("tree");
        let out = t.debinarize().strip_subcategories();
        assert_eq!(
            out.penn(),
            "(ROOT (S (NP (DT a) (JJ big) (NN dog)) (VP (VBZ runs))))"
        );
        let tmp = Tree::from_penn("(ROOT (NP-TMP^S (NN today)))").expect("tree");
        assert_eq!(
            tmp.strip_subcategories().penn(),
            "(ROOT (NP-TMP (NN today)))"
        );
    }
}
