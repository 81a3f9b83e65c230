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
//!
//! What is left out, and why the tree stays the same ([`Chart::with_bounds`]): CoreNLP fills
//! every cell. Here a sentence is first parsed with a beam: each cell keeps only its few states
//! likeliest by inside score plus outside bound (or, when that finds no parse, with only each
//! word's two likeliest taggings); that chart holds a subset of the whole chart's derivations
//! with the same arithmetic, so its best score `s` is the score of a parse of the whole chart,
//! which scores at least `s`. The whole chart is then filled leaving out each item whose inside
//! score plus its outside bound ([`super::bound`]: no parse containing it scores more) is below
//! `s` less a slack. An item of the best parse, or of any parse the read-back could take instead
//! (each of its nodes within a relative 1e-5 of its cell's best, so the whole within the slack of
//! the best), is never left out; every max over what is kept that reaches such an item is the same max, in the same order,
//! as in the whole chart (what is left out could not have won it), so the read-back sees the
//! same bits on its path and returns the same tree. Leaving items out only lowers cells, so a
//! cell the read-back tries and rejects stays rejected. The slack makes this so in practice; each
//! tree is also proved so ([`certified`]): every node the read-back takes, with the tree around it,
//! scores above the threshold by more than the read-back's tolerance, or the sentence is parsed
//! again with the whole chart.

use std::sync::Arc;

use super::bound::Bounds;
use super::grammar::Grammar;
use super::lexicon::{Lexicon, Word};
use super::memo::Memo;
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
    /// One-word cells after the unary closure, by taggings ([`LexicalClosures`]).
    pub closures: LexicalClosures,
}

/// One-word cells after the unary closure, computed once for each list of taggings (states and
/// score bits: a word at its place in the sentence; the boundary word) and shared by the threads,
/// up to [`CLOSED_BYTES`] in all. The closure of such a cell depends on nothing else, and most
/// words recur; a cell opened with floors keeps what rises above them, which is what the closure
/// walked from its taggings above the floors keeps (a state below its floor cannot raise another
/// above its own: the outside bound of a child is at least its parent's plus the closed rule, so
/// the parent's floor is at least the child's plus the rule; where rounding lets one through, it
/// is kept with its whole chart's score, which leaves the tree as it is).
pub type LexicalClosures = Memo<Taggings, Closed>;

/// An empty [`LexicalClosures`].
pub fn lexical_closures() -> LexicalClosures {
    Memo::new(CLOSED_BYTES)
}

/// A word's taggings as a key: states and the bits of their scores.
type Taggings = Box<[(u32, u32)]>;

/// A closed one-word cell: its finite states in index order, with their scores.
type Closed = Arc<[(u32, f32)]>;

/// How much [`LexicalClosures`] keeps: 8 bytes a tagging and a closed state (the 30,000 captions
/// of 5,000 COCO images closed 3,228 cells of 1,405 states and 183 taggings on average: 41 MB).
/// Past it, cells are closed each time.
const CLOSED_BYTES: usize = 96 << 20;

/// One sentence's chart.
pub struct Chart<'a> {
    grammar: &'a Grammar,
    lexicon: &'a Lexicon,
    symbols: &'a Symbols,
    /// Words with the boundary word last.
    words: Vec<Word>,
    /// Number of positions, the boundary included.
    length: usize,
    flood: bool,
    /// While filling the first pass's beam: the states each cell keeps (0: no beam).
    beam: usize,
    /// Each position's taggings and their scores, as the first pass tries them (state, score).
    lexical: Vec<Vec<(u32, f32)>>,
    /// Pruning, when the grammar's bounds cover the sentence.
    prune: Option<Prune<'a>>,
}

/// What the chart leaves out: items whose inside score, plus the best outside score any parse
/// could give them, falls below `threshold`.
struct Prune<'a> {
    bounds: &'a Bounds,
    /// `before[k]`: the best lexical scores of the words before position `k` (each with its
    /// tag's potential), summed; `after[k]` those of the words from `k` on.
    before: Vec<f32>,
    after: Vec<f32>,
    /// The taggings of the first pass's fallback: each word's likeliest few.
    likeliest: Vec<Vec<(u32, f32)>>,
    /// The score of a parse the first pass found, less the slack (−∞ before it ran, or when it
    /// found none: then nothing is left out).
    threshold: f32,
}

/// How much work a parse took: the charts filled (the first pass included), the items stored
/// in the first pass and in all, and the best parse's score.
#[derive(Debug, Clone, Copy)]
pub struct Work {
    pub fills: usize,
    pub first_items: usize,
    pub items: usize,
    pub score: f32,
}

/// The chart's storage, kept per thread and reused from sentence to sentence (only what a
/// sentence touched is cleared after it). A cell's scores are stored twice, by the state's start
/// and by its end, so that the split-point loop reads two short contiguous rows: the left child's
/// scores over its ends and the right child's over its starts.
#[derive(Default)]
struct Buffers<M> {
    /// Number of states the index arrays below are laid out for.
    states: usize,
    /// Set while a sentence uses the buffers: still set at the next sentence means the last
    /// one did not finish (a panic), and the buffers are rebuilt rather than trusted.
    in_use: bool,
    /// For each start, the states finite in some cell starting there, in the order they came.
    left: Vec<Vec<Span<M>>>,
    /// For each start, the states in `left[start]` that are the left child of some binary rule:
    /// the ones a cell's binary rules start from, with what of the grammar a cell reads of them.
    left_children: Vec<Vec<LeftChild>>,
    /// For each (start, state), 1 + its place in `left[start]` (0: none yet).
    left_at: Vec<u32>,
    /// Left rows: a span's scores by end (the cell ending at `start + 1 + i` at `i`).
    by_start: Rows,
    /// The right children (by `right_slot`) finite in some cell ending at the end being filled,
    /// in the order they came (their places), and for each right child 1 + its place (0: none).
    /// Only the cells ending there read them, so they are set back at each end, and what the
    /// binary rules read of them stays in a few KB.
    right_states: Vec<u32>,
    right_seen: Vec<u16>,
    /// By place: the starts of the cells ending here where the right child is finite, as bits
    /// (at 1 + place: `right_starts[0]` is empty, for a right child not seen), and where its
    /// row of scores by start begins in `by_end`. `right_seen` and `right_starts` have
    /// [`SLOTS`] entries, so that a `u16` indexes them without a bounds check.
    right_starts: Vec<M>,
    right_row: Vec<u32>,
    by_end: Rows,
    /// Room for one left child's rules whose right child is finite in some cell ending here:
    /// the rule's place in the left child's list ([`SLOTS`] entries).
    candidates: Vec<u32>,
    /// The beam's scratch: a cell's states' inside scores plus outside bounds.
    merits: Vec<f32>,
    /// Each cell's states that are right children, (slot, score) in slot order: the cell
    /// `(start, end)`'s are `cell_items[a..b]` for `(a, b) = cell_range[start * stride + end]`.
    cell_items: Vec<(u32, f32)>,
    cell_range: Vec<(u32, u32)>,
    stride: usize,
    /// The cell being filled, by state (−∞ between cells), and its finite states as bits.
    cell: Vec<f32>,
    finite: Vec<u64>,
    /// Items stored since the count was last reset.
    items: usize,
}

/// Rows of scores laid end to end ([`Buffers`]' `by_start`, `by_end`): a row is read only where
/// its mask says a score was written, so a new row's room is not set, and what earlier rows and
/// sentences left there stays.
#[derive(Default)]
struct Rows {
    scores: Vec<f32>,
    used: usize,
}

impl Rows {
    /// Room for a row of `len` scores; where it begins.
    fn add(&mut self, len: usize) -> u32 {
        let at = self.used;
        self.used += len;
        if self.scores.len() < self.used {
            self.scores
                .resize(self.used.max(2 * self.scores.len()), NEG);
        }
        at as u32
    }

    /// No rows (the room stays, unset).
    fn clear(&mut self) {
        self.used = 0;
    }
}

/// Where one state is finite along one side of the chart: the other ends of those cells as bits,
/// and where its scores begin in its row store.
#[derive(Clone, Copy, Default)]
struct Span<M> {
    ends: M,
    state: u32,
    row: u32,
}

/// A state that is the left child of binary rules, as [`Chart::binary_cell`] reads it: its place in
/// `left[start]`, where its rules are in the grammar's lists by left child, and its lookup table
/// by right child ([`Grammar::right_table`]; `u32::MAX`: none). Copied here from the grammar once
/// a start, so that a cell does not look each one up.
#[derive(Clone, Copy)]
struct LeftChild {
    place: u32,
    first: u32,
    last: u32,
    table: u32,
}

/// Positions a chart can hold, the boundary included: a cell's split points are bits of a `u128`
/// ([`Mask`]).
pub const MAX_POSITIONS: usize = 128;

/// The boundary word CoreNLP appends to every sentence.
pub const BOUNDARY_WORD: &str = ".$.";

/// Sentences up to this many positions keep each cell's right children in a list, for left
/// children with many rules to look up ([`Chart::binary_cell`]); longer ones, rare in captions,
/// would need hundreds of MB for it.
const LOOKUP_POSITIONS: usize = 64;

/// The states each cell keeps in the first pass's beam ([`Chart::with_bounds`]): on 1,004
/// COCO sentences, 30 found a parse for all but 2, the best itself for all but 194 (short of it
/// by 2.7 nats on average on those); 20 left 22 without a parse, 50 took more time for no fewer
/// items in the second pass.
const BEAM: usize = 30;

/// The entries of the tables indexed by a right child's slot or place, or by a rule's place in
/// its left child's list: all `u16` values ([`super::PcfgParser::from_model`] refuses grammars
/// with more right children, or a left child with more rules).
pub const SLOTS: usize = 1 << 16;

/// Above this many bytes, a thread's chart storage is given back after the sentence.
const KEEP_BYTES: usize = 256 << 20;

thread_local! {
    static SHORT: std::cell::RefCell<Buffers<u64>> = std::cell::RefCell::new(Buffers::default());
    static LONG: std::cell::RefCell<Buffers<u128>> = std::cell::RefCell::new(Buffers::default());
}

/// A set of positions as bits: a cell's split points, the ends of a state's cells from one
/// start, the starts of a right child's cells at one end. A sentence of fewer than 64 positions
/// (nearly every caption) takes a `u64`, in half the room of the `u128` a longer one needs.
trait Mask: Copy + Default + std::ops::BitAnd<Output = Self> + std::ops::BitOrAssign {
    fn bit(i: usize) -> Self;
    /// The positions `start + 1 .. end`.
    fn between(start: usize, end: usize) -> Self;
    fn is_empty(self) -> bool;
    fn has(self, i: usize) -> bool;
    /// Takes the lowest position out of a set that is not empty, and returns it.
    fn pop(&mut self) -> usize;
}

macro_rules! mask {
    ($t:ty) => {
        impl Mask for $t {
            #[inline(always)]
            fn bit(i: usize) -> $t {
                1 << i
            }
            #[inline(always)]
            fn between(start: usize, end: usize) -> $t {
                ((1 << end) - 1) & !((1 << (start + 1)) - 1)
            }
            #[inline(always)]
            fn is_empty(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn has(self, i: usize) -> bool {
                self >> i & 1 != 0
            }
            #[inline(always)]
            fn pop(&mut self) -> usize {
                let i = self.trailing_zeros() as usize;
                *self &= *self - 1;
                i
            }
        }
    };
}
mask!(u64);
mask!(u128);

impl<M: Mask> Buffers<M> {
    /// Ready for a sentence of `positions` positions over `n` states, everything unset.
    fn prepare(&mut self, n: usize, positions: usize) {
        if self.states != n || self.in_use {
            *self = Buffers {
                states: n,
                ..Buffers::default()
            };
        }
        let slots = (positions + 1) * n;
        if self.left_at.len() < slots {
            self.left_at.resize(slots, 0);
        }
        if self.right_seen.len() < SLOTS {
            self.right_seen.resize(SLOTS, 0);
            self.right_starts.resize(SLOTS, M::default());
            self.candidates.resize(SLOTS, 0);
        }
        if self.left.len() < positions + 1 {
            self.left.resize(positions + 1, Vec::new());
            self.left_children.resize(positions + 1, Vec::new());
        }
        let words = n.div_ceil(64);
        if self.cell.len() != n {
            self.cell = vec![NEG; n];
            self.finite = vec![0; words];
        }
        self.by_start.clear();
        self.stride = positions + 1;
        self.cell_range.clear();
        self.cell_range.resize(self.stride * self.stride, (0, 0));
        self.cell_items.clear();
        self.in_use = true;
    }

    /// Unsets the right children of the last end, for the next one.
    fn next_end(&mut self) {
        for (place, &slot) in self.right_states.iter().enumerate() {
            self.right_seen[slot as usize] = 0;
            self.right_starts[place + 1] = M::default();
        }
        self.right_states.clear();
        self.right_row.clear();
        self.by_end.clear();
    }

    /// Unsets everything the last sentence set, so the next one starts from a clear chart.
    fn clear(&mut self) {
        let n = self.states;
        for (start, spans) in self.left.iter_mut().enumerate() {
            for sp in spans.iter() {
                self.left_at[start * n + sp.state as usize] = 0;
            }
            spans.clear();
        }
        for places in &mut self.left_children {
            places.clear();
        }
        self.next_end();
        self.in_use = false;
        let bytes = 4 * (self.by_start.scores.capacity() + self.by_end.scores.capacity())
            + 4 * self.left_at.capacity()
            + 4 * self.right_row.capacity()
            + 8 * (self.cell_items.capacity() + self.cell_range.capacity());
        if bytes > KEEP_BYTES {
            *self = Buffers::default();
        }
    }

    fn score(&self, start: usize, end: usize, state: usize) -> f32 {
        let at = self.left_at[start * self.states + state] as usize;
        if at == 0 {
            return NEG;
        }
        let sp = &self.left[start][at - 1];
        if !sp.ends.has(end) {
            NEG
        } else {
            self.by_start.scores[sp.row as usize + end - start - 1]
        }
    }
}

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
        let mut ws: Vec<Word> = words
            .iter()
            .enumerate()
            .map(|(i, w)| lexicon.word_at(w, i))
            .collect();
        ws.push(lexicon.word_at(BOUNDARY_WORD, words.len()));
        let length = ws.len();
        let lexical = ws
            .iter()
            .enumerate()
            .map(|(start, word)| {
                let is_boundary = start + 1 == length;
                lexicon
                    .scored_taggings(word, start)
                    .iter()
                    .copied()
                    // The boundary token carries its tag, so only that tag is tried for it.
                    .filter(|&(tag, s)| {
                        s > NEG && (!is_boundary || Some(tag as u32) == symbols.boundary_tag)
                    })
                    .map(|(tag, s)| (symbols.state_of_tag[tag as usize], s))
                    .collect()
            })
            .collect();
        Some(Chart {
            grammar,
            lexicon,
            symbols,
            words: ws,
            length,
            flood: false,
            beam: 0,
            lexical,
            prune: None,
        })
    }

    /// Parses in two passes, the second exactly as CoreNLP would but leaving out what cannot
    /// matter: first a beam ([`BEAM`] states a cell, the likeliest by inside score plus `bounds`'
    /// outside bound), or when it finds no parse the chart with only each word's `likeliest`
    /// taggings (by lexical score and the tag's prior), whose best parse, if found, is a parse of
    /// the whole chart too; then the whole chart, leaving out every item that, by `bounds`, no
    /// parse within the slack of that score contains. Every item of the best parse, and of every
    /// parse [`Chart::extract`] could take instead, is kept with the score it has in the whole
    /// chart, so the tree is the same. In a sentence longer than the bounds cover, a span with more
    /// words outside it than they cover has no bound, and nothing is left out there; a sentence
    /// with a word without taggings of its own is parsed as before.
    pub fn with_bounds(mut self, bounds: &'a Bounds, likeliest: usize) -> Chart<'a> {
        if self.lexical.iter().any(Vec::is_empty) {
            return self;
        }
        let best: Vec<f32> = self
            .lexical
            .iter()
            .map(|t| bounds.best_lexical(t))
            .collect();
        let mut before = vec![0f32; self.length + 1];
        for (k, &s) in best.iter().enumerate() {
            before[k + 1] = before[k] + s;
        }
        let mut after = vec![0f32; self.length + 1];
        for (k, &s) in best.iter().enumerate().rev() {
            after[k] = after[k + 1] + s;
        }
        let likeliest = self
            .lexical
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.sort_by(|a, b| {
                    let key = |&(st, s): &(u32, f32)| s + bounds.prior(st as usize);
                    key(b).total_cmp(&key(a))
                });
                t.truncate(likeliest.max(1));
                t
            })
            .collect();
        self.prune = Some(Prune {
            bounds,
            before,
            after,
            likeliest,
            threshold: NEG,
        });
        self
    }

    /// Each position's taggings and their scores (state, score), the boundary word's last.
    pub fn taggings(&self) -> &[Vec<(u32, f32)>] {
        &self.lexical
    }

    /// Parses; `None` when even the recovery parse finds nothing.
    pub fn parse(self) -> Option<Tree> {
        self.parse_counted().0
    }

    /// [`Chart::parse`], and how much work it took.
    pub fn parse_counted(mut self) -> (Option<Tree>, Work) {
        if self.length < u64::BITS as usize {
            SHORT.with(|b| self.run(&mut b.borrow_mut()))
        } else {
            LONG.with(|b| self.run(&mut b.borrow_mut()))
        }
    }

    /// [`Chart::parse_counted`] on one thread's buffers, masks of `M`.
    fn run<M: Mask>(&mut self, b: &mut Buffers<M>) -> (Option<Tree>, Work) {
        b.items = 0;
        let mut fills = 1;
        let mut first_items = 0;
        if self.prune.is_some() {
            // The first pass: a beam ranked by the bounds (their threshold still unset, so
            // nothing else is left out), no recovery parse. Its cells hold no more than the
            // whole chart's, so its best parse scores no more than the whole chart's.
            self.beam = BEAM;
            self.fill(b);
            self.beam = 0;
            let mut p = self.prune.take().expect("checked above");
            let mut found = self.goal_score(b);
            if found == NEG {
                // The likeliest taggings only, nothing left out.
                b.clear();
                fills += 1;
                std::mem::swap(&mut self.lexical, &mut p.likeliest);
                self.fill(b);
                found = self.goal_score(b);
                std::mem::swap(&mut self.lexical, &mut p.likeliest);
            }
            first_items = b.items;
            b.clear();
            fills += 1;
            if found > NEG {
                p.threshold = found - slack(found, self.length);
                self.prune = Some(p);
            }
        }
        self.fill(b);
        let threshold = self.prune.as_ref().map_or(NEG, |p| p.threshold);
        if threshold > NEG && self.goal_score(b) < threshold {
            // Cannot happen (the first pass's parse is in the chart): the whole chart.
            b.clear();
            self.prune = None;
            fills += 1;
            self.fill(b);
        }
        if self.goal_score(b) == NEG {
            b.clear();
            self.flood = true;
            self.fill(b);
        }
        let mut sure = true;
        let mut tree = self.read_back(b, &mut sure);
        if self.prune.is_some() && (tree.is_none() || !sure) {
            // Not proved to be the whole chart's tree (never seen on the shared sets): the
            // whole chart.
            b.clear();
            self.prune = None;
            fills += 1;
            self.fill(b);
            tree = self.read_back(b, &mut sure);
        }
        let work = Work {
            fills,
            first_items,
            items: b.items,
            score: self.goal_score(b),
        };
        b.clear();
        (tree, work)
    }

    fn read_back<M: Mask>(&self, b: &Buffers<M>, sure: &mut bool) -> Option<Tree> {
        if self.goal_score(b) == NEG {
            None
        } else {
            self.extract(b, self.symbols.goal, 0, self.length, 0.0, sure)
        }
    }

    fn goal_score<M: Mask>(&self, b: &Buffers<M>) -> f32 {
        b.score(0, self.length, self.symbols.goal as usize)
    }

    fn fill<M: Mask>(&self, b: &mut Buffers<M>) {
        b.prepare(self.grammar.num_states, self.length);
        let floors = self.beam == 0 && self.prune.as_ref().is_some_and(|p| p.threshold > NEG);
        // Cells by end, and at each end from the shortest: a cell's children end before it or
        // here, after it starts, so they are filled before it; the cells ending at one position
        // come together, and what the binary rules read of their right children (the states
        // ending there) stays in cache. The scores do not depend on the order.
        for end in 1..=self.length {
            b.next_end();
            if self.flood {
                if floors {
                    self.open_cell(b, end - 1, end);
                }
                self.lexical_cell(b, end - 1);
                self.unaries_and_store(b, end - 1, end);
            } else {
                let closed = self.closed_lexical_cell(b, end - 1);
                if floors {
                    self.open_cell(b, end - 1, end);
                }
                let Buffers {
                    cell,
                    finite,
                    merits,
                    ..
                } = &mut *b;
                match self.beam_row(end - 1, end) {
                    Some(row) if closed.len() > self.beam => {
                        // Only the states the beam keeps ([`Chart::store`] ranks them again
                        // and keeps them all): a closed cell holds some 1,400.
                        let merit = |s: u32, v: f32| v + row.map_or(0.0, |r| r[s as usize]);
                        merits.clear();
                        merits.extend(closed.iter().map(|&(s, v)| merit(s, v)));
                        let kth = beam_floor(merits, self.beam);
                        for &(s, v) in closed.iter() {
                            if merit(s, v) >= kth {
                                raise(cell, finite, s as usize, v);
                            }
                        }
                    }
                    _ => {
                        for &(s, v) in closed.iter() {
                            raise(cell, finite, s as usize, v);
                        }
                    }
                }
                self.store(b, end - 1, end);
            }
            for start in (0..end.saturating_sub(1)).rev() {
                // Cells ending at the boundary are filled only for the whole sentence.
                if end == self.length && start != 0 {
                    continue;
                }
                if floors {
                    self.open_cell(b, start, end);
                }
                self.binary_cell(b, start, end);
                self.unaries_and_store(b, start, end);
            }
        }
        if floors {
            b.cell.fill(NEG);
        }
    }

    /// With a threshold, a cell starts with each state at the least inside score that can keep
    /// it (the threshold less its outside bound) instead of −∞, so that the rules and the unary
    /// closure raise, and mark finite, only the states that will be kept: what falls below is
    /// never stored, and never passes its score on through the closure (as when it was left out
    /// after the fact).
    fn open_cell<M: Mask>(&self, b: &mut Buffers<M>, start: usize, end: usize) {
        let p = self.prune.as_ref().expect("floors come with pruning");
        let Some(row) = p.bounds.row(start, self.length - end) else {
            // More words outside than the bounds cover: nothing is left out here.
            b.cell.fill(NEG);
            return;
        };
        let floor = p.threshold - p.before[start] - p.after[end];
        for (c, &r) in b.cell.iter_mut().zip(row) {
            *c = floor - r;
        }
    }

    /// The one-word cell at `start` after the unary closure, from the cache or closed here (on
    /// a clear cell, which it leaves clear).
    fn closed_lexical_cell<M: Mask>(&self, b: &mut Buffers<M>, start: usize) -> Closed {
        let key: Taggings = self.lexical[start]
            .iter()
            .map(|&(st, s)| (st, s.to_bits()))
            .collect();
        if let Some(hit) = self.symbols.closures.get(&key) {
            return hit;
        }
        // Floors of the last cell may stay in it.
        b.cell.fill(NEG);
        self.lexical_cell(b, start);
        self.close_unaries(b);
        let Buffers { cell, finite, .. } = &mut *b;
        let mut closed = Vec::new();
        for (w, word) in finite.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                closed.push((s as u32, std::mem::replace(&mut cell[s], NEG)));
            }
        }
        let closed: Closed = closed.into();
        let size = 8 * (key.len() + closed.len());
        self.symbols.closures.keep(key, closed.clone(), size);
        closed
    }

    fn lexical_cell<M: Mask>(&self, b: &mut Buffers<M>, start: usize) {
        let is_boundary = start + 1 == self.length;
        let word = &self.words[start];
        let lex = self.lexicon;
        let sym = self.symbols;
        // A cell opened with floors ([`Chart::open_cell`]) keeps only taggings above them;
        // otherwise it starts at −∞ and keeps every finite one.
        let set = |b: &mut Buffers<M>, state: usize, s: f32| {
            raise(&mut b.cell, &mut b.finite, state, s);
        };
        let mut assigned = false;
        if !self.flood || is_boundary {
            for &(state, s) in &self.lexical[start] {
                assigned = true;
                set(b, state as usize, s);
            }
        }
        if !assigned {
            for (state, tag) in sym.tag_of_state.iter().enumerate() {
                let Some(tag) = *tag else { continue };
                if is_boundary && Some(tag) != sym.boundary_tag {
                    continue;
                }
                set(b, state, lex.score(word, tag as i32, start));
            }
        }
        if self.flood && !is_boundary {
            for (state, tag) in sym.tag_of_state.iter().enumerate() {
                if tag.is_some() && b.cell[state] == NEG {
                    set(b, state, -1000.0);
                }
            }
        }
    }

    /// A cell of two or more positions: every binary rule over every split point where both
    /// children are finite, the best of each parent kept. Which order the candidates come in does
    /// not change a maximum, so they are taken by left child: for each state finite in a cell
    /// starting here, its rules whose right child is finite in some cell ending here, over the
    /// split points where both are (a bit mask each), reading the two children's rows. A left
    /// child with many rules (`Grammar::right_table`), when its right cells hold less than
    /// half as many states as it has rules, goes the other way: each of those states looks up
    /// its rules.
    fn binary_cell<M: Mask>(&self, b: &mut Buffers<M>, start: usize, end: usize) {
        let g = self.grammar;
        let Buffers {
            left,
            left_children,
            by_start,
            right_starts,
            right_row,
            by_end,
            right_seen,
            candidates,
            cell,
            finite,
            cell_items,
            cell_range,
            stride,
            ..
        } = b;
        let between = M::between(start, end);
        let spans = &left[start];
        let seen: &[u16; SLOTS] = right_seen[..SLOTS].try_into().expect("sized by prepare");
        let starts: &[M; SLOTS] = right_starts[..SLOTS].try_into().expect("sized by prepare");
        let kept: &mut [u32; SLOTS] = (&mut candidates[..SLOTS])
            .try_into()
            .expect("sized by prepare");
        for lc in &left_children[start] {
            let lsp = &spans[lc.place as usize];
            let lm = lsp.ends & between;
            if lm.is_empty() {
                continue;
            }
            // This row's index i holds the cell ending at start + 1 + i.
            let left_row = &by_start.scores[lsp.row as usize..];
            let first = lc.first as usize;
            let rights = &g.by_left_right[first..lc.last as usize];
            // A left child with many rules looks up the right children the right cells hold,
            // when they are fewer than half its rules.
            if let Some(index) = g
                .right_table(lc.table)
                .filter(|_| self.length <= LOOKUP_POSITIONS)
            {
                let mut held = 0;
                let mut m = lm;
                while !m.is_empty() {
                    let split = m.pop();
                    let (a, z) = cell_range[split * *stride + end];
                    held += (z - a) as usize;
                }
                if 2 * held < rights.len() {
                    let mut m = lm;
                    while !m.is_empty() {
                        let split = m.pop();
                        let left_score = left_row[split - start - 1];
                        let (a, z) = cell_range[split * *stride + end];
                        for &(rc, right_score) in &cell_items[a as usize..z as usize] {
                            let at = index[rc as usize] as usize;
                            if at == 0 {
                                continue;
                            }
                            for (i, &r) in rights.iter().enumerate().skip(at - 1) {
                                if u32::from(r) != rc {
                                    break;
                                }
                                let (p, p_score) = g.by_left_rule[first + i];
                                let tot = p_score + left_score + right_score;
                                raise(cell, finite, p as usize, tot);
                            }
                        }
                    }
                    continue;
                }
            }
            // The rules whose right child is finite in some cell ending here at a split point
            // where the left child is too, picked without branching (about one in seven is).
            let found = rules_with_splits(rights, seen, starts, lm, kept);
            for &c in &kept[..found] {
                let i = c as usize;
                let place = usize::from(seen[usize::from(rights[i])]);
                let mut m = lm & starts[place];
                let place = place - 1;
                let right_row = &by_end.scores[right_row[place] as usize..];
                let (p, p_score) = g.by_left_rule[first + i];
                let p = p as usize;
                let mut best = cell[p];
                while !m.is_empty() {
                    let split = m.pop();
                    let tot = p_score + left_row[split - start - 1] + right_row[split];
                    if tot > best {
                        best = tot;
                    }
                }
                raise(cell, finite, p, best);
            }
        }
    }

    /// The unary closure over the cell being filled, then its states stored
    /// ([`Chart::close_unaries`], [`Chart::store`]).
    fn unaries_and_store<M: Mask>(&self, b: &mut Buffers<M>, start: usize, end: usize) {
        self.close_unaries(b);
        self.store(b, start, end);
    }

    /// The unary closure over the cell being filled, states in index order, reading the cell as
    /// it changes (a state raised by an earlier state's closure passes on its new score; one
    /// raised by a later state does not, as in CoreNLP).
    fn close_unaries<M: Mask>(&self, b: &mut Buffers<M>) {
        let words = self.grammar.num_states.div_ceil(64);
        let Buffers { cell, finite, .. } = b;
        // Bits set while walking are seen when the walk reaches them.
        for w in 0..words {
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
                let g = self.grammar;
                for &(parent, p_score) in g.closed_with_child(state) {
                    let tot = i_score + p_score;
                    let p = parent as usize;
                    raise(cell, finite, p, tot);
                }
            }
        }
    }

    /// The cell's finite states stored, and set back to −∞ (the floors of a cell opened with
    /// them stay until the next cell opens, or the fill ends).
    fn store<M: Mask>(&self, b: &mut Buffers<M>, start: usize, end: usize) {
        let n = self.grammar.num_states;
        let Buffers {
            left,
            left_children,
            left_at,
            by_start,
            right_starts,
            right_row,
            by_end,
            right_states,
            right_seen,
            cell,
            finite,
            items,
            merits,
            cell_items,
            cell_range,
            stride,
            ..
        } = b;
        // In the beam, a state is kept when `score + row[state]` is among the cell's `beam`
        // best, once its closure is done. With a threshold, the cell was opened with floors
        // ([`Chart::open_cell`]): only what is kept is finite.
        // A cell of no more states than the beam keeps them all, without ranking them.
        let beam_row = self.beam_row(start, end).filter(|_| {
            finite
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum::<usize>()
                > self.beam
        });
        let pruning = beam_row.map(|row| {
            merits.clear();
            for (w, &word) in finite.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let s = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    merits.push(cell[s] + row.map_or(0.0, |r| r[s]));
                }
            }
            (row, beam_floor(merits, self.beam))
        });
        let left_len = self.length - start;
        let first_item = cell_items.len() as u32;
        for (w, word) in finite.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let s = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let score = std::mem::replace(&mut cell[s], NEG);
                if let Some((row, floor)) = pruning {
                    if score + row.map_or(0.0, |r| r[s]) < floor {
                        continue;
                    }
                }
                *items += 1;
                let i = start * n + s;
                if left_at[i] == 0 {
                    left[start].push(Span {
                        ends: M::default(),
                        state: s as u32,
                        row: by_start.add(left_len),
                    });
                    left_at[i] = left[start].len() as u32;
                    let g = self.grammar;
                    let (first, last) = (g.by_left_start[s], g.by_left_start[s + 1]);
                    if last > first {
                        left_children[start].push(LeftChild {
                            place: left_at[i] - 1,
                            first,
                            last,
                            table: g.by_left_indexed[s],
                        });
                    }
                }
                let lsp = &mut left[start][left_at[i] as usize - 1];
                lsp.ends |= M::bit(end);
                by_start.scores[lsp.row as usize + end - start - 1] = score;
                let slot = self.grammar.right_slot[s];
                if slot == u32::MAX {
                    continue;
                }
                if self.length <= LOOKUP_POSITIONS {
                    cell_items.push((slot, score));
                }
                let seen = &mut right_seen[slot as usize];
                if *seen == 0 {
                    right_states.push(slot);
                    *seen = right_states.len() as u16;
                    right_row.push(by_end.add(end));
                }
                let place = *seen as usize - 1;
                right_starts[place + 1] |= M::bit(start);
                by_end.scores[right_row[place] as usize + start] = score;
            }
        }
        cell_range[start * *stride + end] = (first_item, cell_items.len() as u32);
    }

    /// While filling the first pass's beam, the row of outside bounds the cell `start..end`'s
    /// states are ranked by (`None` inside: no row); `None` outside the beam.
    fn beam_row(&self, start: usize, end: usize) -> Option<Option<&'a [f32]>> {
        self.prune.as_ref().filter(|_| self.beam > 0).map(|p| {
            // Past the bounds' table, the beam ranks by the row of a span with as many words
            // outside as the table covers, shared out alike (a ranking needs no bound).
            let (left, right) = (start, self.length - end);
            let most = p.bounds.positions() - 1;
            p.bounds.row(start, right).or_else(|| {
                let l = left * most / (left + right);
                p.bounds.row(l, most - l)
            })
        })
    }

    /// The tree under `goal` over `start..end`, read back as CoreNLP does. With pruning, each
    /// node taken is also checked against the threshold ([`Chart::certified`]): `outside` is the
    /// score of the read-back's tree around it, and `sure` is cleared when a node fails.
    fn extract<M: Mask>(
        &self,
        b: &Buffers<M>,
        goal: u32,
        start: usize,
        end: usize,
        outside: f64,
        sure: &mut bool,
    ) -> Option<Tree> {
        let best = f64::from(b.score(start, end, goal as usize));
        if let Some(p) = &self.prune {
            *sure &= certified(best, outside, f64::from(p.threshold));
        }
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
            for &ri in &self.grammar.binary_by_parent[goal as usize] {
                let r = &self.grammar.binary[ri as usize];
                // No way of building the node without its left child (its score would be −∞).
                let left = b.score(start, split, r.left as usize);
                if left == NEG {
                    continue;
                }
                let right = b.score(split, end, r.right as usize);
                let score = f64::from(r.score + left + right);
                if matches(score, best) {
                    let around = outside + f64::from(r.score);
                    let l =
                        self.extract(b, r.left, start, split, around + f64::from(right), sure)?;
                    let rt =
                        self.extract(b, r.right, split, end, around + f64::from(left), sure)?;
                    return Some(Tree::node(label, vec![l, rt]));
                }
            }
        }
        for r in &self.grammar.unary_by_parent[goal as usize] {
            let score = f64::from(r.score + b.score(start, end, r.child as usize));
            if r.child != r.parent && matches(score, best) {
                let child =
                    self.extract(b, r.child, start, end, outside + f64::from(r.score), sure)?;
                return Some(Tree::node(label, vec![child]));
            }
        }
        None
    }
}

/// Writes into `kept` the places in `rights` (a left child's rules' right children, fewer than
/// [`SLOTS`]) of the rules whose right child is `seen` (non-zero) in a cell ending here that
/// starts at a split point in `splits` (by `starts[seen]`), in order, and returns how many:
/// without branching, in a loop of its own so that it runs in registers, and without bounds
/// checks (every index is a `u16`, or masked to one, into tables of [`SLOTS`] entries).
#[inline(never)]
fn rules_with_splits<M: Mask>(
    rights: &[u16],
    seen: &[u16; SLOTS],
    starts: &[M; SLOTS],
    splits: M,
    kept: &mut [u32; SLOTS],
) -> usize {
    let mut found = 0;
    for (i, &rc) in rights.iter().enumerate() {
        let place = seen[usize::from(rc)];
        kept[found & (SLOTS - 1)] = i as u32;
        found += usize::from(!(starts[usize::from(place)] & splits).is_empty());
    }
    found
}

/// The least merit a beam of `beam` states keeps among `merits` (reordered): the `beam`-th best,
/// or −∞ when there are no more than `beam`.
fn beam_floor(merits: &mut [f32], beam: usize) -> f32 {
    if merits.len() <= beam {
        return NEG;
    }
    let (_, &mut kth, _) = merits.select_nth_unstable_by(beam - 1, |a, b| b.total_cmp(a));
    kth
}

/// Raises `state` in the cell being filled to `score` if that is higher, marking it finite.
#[inline(always)]
fn raise(cell: &mut [f32], finite: &mut [u64], state: usize, score: f32) {
    if score > cell[state] {
        cell[state] = score;
        finite[state / 64] |= 1 << (state % 64);
    }
}

/// Whether a node the read-back takes, scoring `best` in its cell with `outside` the score of the
/// tree read back around it, proves that nothing left out below `threshold` could have changed
/// the choice there: a way of building the node that the whole chart has and the pruned one
/// lacks (or scores lower) would match only if the node's parse scored under the threshold plus
/// `matches`' tolerance, since what was left out scores under the threshold with any outside.
/// Each node on the path passing proves the tree is the whole chart's; the slack makes it the
/// rule, and a failure sends the sentence to the whole chart.
fn certified(best: f64, outside: f64, threshold: f64) -> bool {
    best + outside >= threshold + 2.1e-5 * best.abs() + 1e-2
}

/// How far below the best parse a parse read back by [`Chart::extract`] can score: each node it
/// takes may fall short of its cell's best by `matches`' relative 1e-5, over at most about four
/// nodes a position; and a tenth of a nat for the rounding of the bounds (a bound and the chart's
/// own sums each add some ten terms a position in `f32`, which errs by under 1e-6 of the score
/// a position: a hundredth of a nat on a 30-word caption). On 2,005 COCO sentences a whole nat
/// kept 7 % more items and proved no more trees.
fn slack(score: f32, length: usize) -> f32 {
    0.1 + 1e-4 * score.abs() * length as f32
}

/// `ExhaustivePCFGParser.matches`: equal within a relative 1e-5.
fn matches(x: f64, y: f64) -> bool {
    (x - y).abs() / (x.abs() + y.abs() + 1e-10) < 1e-5
}
