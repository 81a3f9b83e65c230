//! `ExhaustivePCFGParser`: CKY over the whole grammar, then the best tree read back from the chart.
//!
//! Scores are floats added in CoreNLP's order (`rule + left + right`, `child + unary`), so every
//! cell holds the bits CoreNLP's holds. The chart keeps no back-pointers: like CoreNLP, the tree is
//! read back top-down by taking, for each node, the first way of building it (split points left to
//! right, binary rules in the grammar's list order, then core unary rules in the order they were
//! added) whose score is within a relative 1e-5 of the cell's best. That first match, not the
//! exact maximum, is what CoreNLP returns, and what this returns.
//!
//! Quirks kept: the sentence ends with the boundary word `.$.` (tag `.$$.`); cells ending at the
//! boundary are filled only for the whole sentence; unary closure is applied to each cell once,
//! states in index order, each reading the cell as earlier states left it; a sentence with no
//! parse is parsed again with every tag allowed at score −1000 (CoreNLP's recovery).

use super::grammar::Grammar;
use super::lexicon::{Lexicon, Word};
use super::tree::Tree;

const NEG: f32 = f32::NEG_INFINITY;

/// What the chart needs of the model besides the grammar and lexicon.
#[derive(Debug, Clone)]
pub struct Symbols {
    pub states: Vec<String>,
    pub tags: Vec<String>,
    /// Tag index → state index.
    pub state_of_tag: Vec<u32>,
    /// State index → tag index, for states that are tags.
    pub tag_of_state: Vec<Option<u32>>,
    pub goal: u32,
    pub boundary_tag: Option<u32>,
}

/// One sentence's chart.
pub struct Chart<'a> {
    grammar: &'a Grammar,
    lexicon: &'a Lexicon,
    symbols: &'a Symbols,
    /// Words with the boundary word last.
    words: Vec<Word>,
    /// Number of positions, the boundary included.
    length: usize,
    /// Each cell's scores by state; empty for the cells CKY does not fill (read as all −∞).
    scores: Vec<Vec<f32>>,
    /// A row of −∞, what an unfilled cell reads as.
    unfilled: Vec<f32>,
    /// For each (start, state), the ends of the filled cells where the state is finite, as bits.
    ends_of: Vec<u128>,
    /// For each (end, state), the starts of the filled cells where the state is finite.
    starts_of: Vec<u128>,
    /// For each start, the states finite in some filled cell starting there.
    left_states: Vec<Vec<u32>>,
    flood: bool,
}

/// Positions a chart can hold, the boundary included: a cell's split points are bits of a `u128`.
pub const MAX_POSITIONS: usize = 128;

/// The boundary word CoreNLP appends to every sentence.
pub const BOUNDARY_WORD: &str = ".$.";

impl<'a> Chart<'a> {
    /// A chart for a sentence of at most `MAX_POSITIONS - 1` words (`None` for longer ones).
    pub fn new(
        grammar: &'a Grammar,
        lexicon: &'a Lexicon,
        symbols: &'a Symbols,
        words: &[String],
    ) -> Option<Chart<'a>> {
        if words.len() + 1 >= MAX_POSITIONS {
            return None;
        }
        let mut ws: Vec<Word> = words.iter().map(|w| lexicon.word(w)).collect();
        ws.push(lexicon.word(BOUNDARY_WORD));
        let length = ws.len();
        Some(Chart {
            grammar,
            lexicon,
            symbols,
            words: ws,
            length,
            scores: Vec::new(),
            unfilled: vec![NEG; grammar.num_states],
            ends_of: Vec::new(),
            starts_of: Vec::new(),
            left_states: Vec::new(),
            flood: false,
        })
    }

    fn cell(&self, start: usize, end: usize) -> usize {
        start * (self.length + 1) + end
    }

    fn at(&self, start: usize, end: usize) -> &[f32] {
        let c = self.cell(start, end);
        let row = &self.scores[c];
        if row.is_empty() {
            &self.unfilled
        } else {
            row
        }
    }

    /// Parses; `None` when even the recovery parse finds nothing.
    pub fn parse(mut self) -> Option<Tree> {
        self.fill();
        if self.goal_score() == NEG {
            self.flood = true;
            self.fill();
        }
        if self.goal_score() == NEG {
            return None;
        }
        self.extract(self.symbols.goal, 0, self.length)
    }

    fn goal_score(&self) -> f32 {
        self.at(0, self.length)[self.symbols.goal as usize]
    }

    fn fill(&mut self) {
        let n = self.grammar.num_states;
        let cells = (self.length + 1) * (self.length + 1);
        self.scores.clear();
        self.scores.resize(cells, Vec::new());
        self.ends_of.clear();
        self.ends_of.resize((self.length + 1) * n, 0);
        self.starts_of.clear();
        self.starts_of.resize((self.length + 1) * n, 0);
        self.left_states.clear();
        self.left_states.resize(self.length + 1, Vec::new());
        for start in 0..self.length {
            self.lexical_cell(start);
        }
        for diff in 2..=self.length {
            let starts = if diff == self.length {
                1
            } else {
                self.length - diff
            };
            for start in 0..starts {
                self.binary_cell(start, start + diff);
            }
        }
    }

    fn lexical_cell(&mut self, start: usize) {
        let n = self.grammar.num_states;
        let c = self.cell(start, start + 1);
        let is_boundary = start + 1 == self.length;
        let word = &self.words[start];
        let lex = self.lexicon;
        let sym = self.symbols;
        let mut assigned = false;
        {
            self.scores[c] = vec![NEG; n];
            let cell = &mut self.scores[c];
            if !self.flood || is_boundary {
                for tag in lex.taggings(word, start) {
                    // The boundary token carries its tag, so only that tag is tried for it.
                    if is_boundary && Some(tag as u32) != sym.boundary_tag {
                        continue;
                    }
                    let state = sym.state_of_tag[tag as usize] as usize;
                    let s = lex.score(word, tag, start);
                    if s > NEG {
                        assigned = true;
                        cell[state] = s;
                    }
                }
            }
            if !assigned {
                for (score, tag) in cell.iter_mut().zip(&sym.tag_of_state) {
                    let Some(tag) = *tag else { continue };
                    if *score != NEG || (is_boundary && Some(tag) != sym.boundary_tag) {
                        continue;
                    }
                    let s = lex.score(word, tag as i32, start);
                    if s > NEG {
                        *score = s;
                    }
                }
            }
            if self.flood && !is_boundary {
                for (score, tag) in cell.iter_mut().zip(&sym.tag_of_state) {
                    if tag.is_some() && *score == NEG {
                        *score = -1000.0;
                    }
                }
            }
        }
        self.unaries(c);
    }

    /// A cell of two or more positions: every binary rule over every split point where both
    /// children are finite. Split points come from the children's bit masks, so a rule costs one
    /// `and` unless it applies.
    fn binary_cell(&mut self, start: usize, end: usize) {
        let n = self.grammar.num_states;
        let c = self.cell(start, end);
        let between: u128 = ((1u128 << end) - 1) & !((1u128 << (start + 1)) - 1);
        let mut cell = vec![NEG; n];
        let ends_of = &self.ends_of[start * n..(start + 1) * n];
        let starts_of = &self.starts_of[end * n..(end + 1) * n];
        let row = self.length + 1;
        for &l in &self.left_states[start] {
            let lm = ends_of[l as usize] & between;
            if lm == 0 {
                continue;
            }
            for &(rc, parent, p_score) in &self.grammar.binary_by_left[l as usize] {
                let mut m = lm & starts_of[rc as usize];
                while m != 0 {
                    let split = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let l_score = self.scores[start * row + split][l as usize];
                    let r_score = self.scores[split * row + end][rc as usize];
                    let tot = p_score + l_score + r_score;
                    if tot > cell[parent as usize] {
                        cell[parent as usize] = tot;
                    }
                }
            }
        }
        self.scores[c] = cell;
        self.unaries(c);
    }

    /// The unary closure over one cell, states in index order, reading the cell as it changes
    /// (a state raised by an earlier state's closure passes on its new score; one raised by a
    /// later state does not, as in CoreNLP). Then the cell's finite states enter the masks.
    fn unaries(&mut self, c: usize) {
        let n = self.grammar.num_states;
        let cell = &mut self.scores[c];
        // Finite states as bits, walked in index order; bits set while walking are seen when the
        // walk reaches them.
        let mut finite = vec![0u64; n.div_ceil(64)];
        for (s, &v) in cell.iter().enumerate() {
            if v > NEG {
                finite[s / 64] |= 1 << (s % 64);
            }
        }
        for w in 0..finite.len() {
            let mut from = 0u32;
            loop {
                let pending = if from >= 64 {
                    0
                } else {
                    finite[w] >> from << from
                };
                if pending == 0 {
                    break;
                }
                let bit = pending.trailing_zeros();
                from = bit + 1;
                let state = w * 64 + bit as usize;
                let i_score = cell[state];
                for &(parent, p_score) in &self.grammar.closed_by_child[state] {
                    let tot = i_score + p_score;
                    let p = parent as usize;
                    if tot > cell[p] {
                        cell[p] = tot;
                        finite[p / 64] |= 1 << (p % 64);
                    }
                }
            }
        }
        let (start, end) = (c / (self.length + 1), c % (self.length + 1));
        for (w, &bits) in finite.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let e = &mut self.ends_of[start * n + s];
                if *e == 0 {
                    self.left_states[start].push(s as u32);
                }
                *e |= 1u128 << end;
                self.starts_of[end * n + s] |= 1u128 << start;
            }
        }
    }

    fn extract(&self, goal: u32, start: usize, end: usize) -> Option<Tree> {
        let best = f64::from(self.at(start, end)[goal as usize]);
        let label = &self.symbols.states[goal as usize];
        if end - start == 1 {
            if let Some(tag) = self.symbols.tag_of_state[goal as usize] {
                let word = &self.words[start];
                if self.lexicon.score(word, tag as i32, start) > NEG || self.flood {
                    return Some(Tree::node(label, vec![Tree::leaf(&word.text)]));
                }
            }
        }
        for split in start + 1..end {
            let left = self.at(start, split);
            let right = self.at(split, end);
            for &ri in &self.grammar.binary_by_parent[goal as usize] {
                let r = &self.grammar.binary[ri as usize];
                let score = f64::from(r.score + left[r.left as usize] + right[r.right as usize]);
                if matches(score, best) {
                    let l = self.extract(r.left, start, split)?;
                    let rt = self.extract(r.right, split, end)?;
                    return Some(Tree::node(label, vec![l, rt]));
                }
            }
        }
        let here = self.at(start, end);
        for r in &self.grammar.unary_by_parent[goal as usize] {
            let score = f64::from(r.score + here[r.child as usize]);
            if r.child != r.parent && matches(score, best) {
                let child = self.extract(r.child, start, end)?;
                return Some(Tree::node(label, vec![child]));
            }
        }
        None
    }
}

/// `ExhaustivePCFGParser.matches`: equal within a relative 1e-5.
fn matches(x: f64, y: f64) -> bool {
    (x - y).abs() / (x.abs() + y.abs() + 1e-10) < 1e-5
}
