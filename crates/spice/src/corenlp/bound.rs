//! Outside bounds: how well any parse could do around a chart item, so that the chart can leave
//! out items that no parse near the best one uses, and still return CoreNLP's tree.
//!
//! This is A* parsing's "SX" estimate (Klein and Manning, 2003) with the words put back: for a
//! state spanning a sentence's words `start..end`, every parse that contains it scores at most its
//! inside score, plus the best score any outside structure over `start` words on its left and
//! `length - end` on its right can reach with lexical scores left out ([`Bounds::outside`], a
//! table of the grammar alone; each tag leaf scores `-ψ`, below), plus each outside word's best
//! lexical score (plus `ψ`; [`Bounds::best_lexical`], per sentence). The table is computed once
//! per grammar and `ψ` in max-plus arithmetic: the best inside score of each state over `w` words
//! with free tags, then the best outside score top-down from the goal, each pair `(left, right)`
//! after the pairs with fewer words.
//!
//! The table and the words' best lexical scores are maximised apart, so a tag that scores well for
//! a word but that the grammar seldom uses well (`DT^LST` for "a") loosens the bound. Potentials
//! on the tags move score between the two without changing any parse's score: with `ψ(t)` added
//! to every lexical score of tag `t` and taken off each leaf `t` of the table, a parse scores the
//! same (each leaf is a tag it gives a word), so the bound holds for every `ψ`, and a good `ψ`
//! tightens it. [`fit_potentials`] finds one on sentences the parser has seen: a subgradient
//! descent on the mean bound of their whole parse (a convex function of `ψ`), in the spirit of
//! dual decomposition. The potentials change which items the chart leaves out, never a tree.
//!
//! CoreNLP's parser is exhaustive; pruning with these bounds is used by [`super::chart`] only in
//! a way that cannot change the tree it returns (see there).

use super::grammar::Grammar;

const NEG: f32 = f32::NEG_INFINITY;

/// Passes of the closed unary rules over a cell of the tables, at most: they stop when nothing
/// rises (two or three, as the closure is transitive up to rounding).
const MAX_CLOSURE_PASSES: usize = 16;

/// The most positions a table may cover (its size and cost grow with the square and the cube).
pub const MAX_BOUNDED: usize = 64;

/// The grammar's outside bounds for sentences of up to `positions` positions (the boundary word
/// included).
#[derive(Clone)]
pub struct Bounds {
    /// By state: a tag's log prior (−∞ for other states).
    prior: Vec<f32>,
    states: usize,
    positions: usize,
    /// `outside[pair(left, right) * states + state]`, for `left + right < positions`.
    outside: Vec<f32>,
    /// The goal's best inside score over `w` words, each tag leaf scoring `-potential`, by `w`.
    inside_goal: Vec<f32>,
    /// By state: the potential `ψ` of a tag (0 for other states).
    potential: Vec<f32>,
}

/// Index of the pair `(left, right)`: pairs come by their sum, then by `left`.
fn pair(left: usize, right: usize) -> usize {
    let d = left + right;
    d * (d + 1) / 2 + left
}

impl Bounds {
    /// The bounds of `grammar` for up to `positions` positions, `goal` its start symbol and
    /// `tags` the states that are tags, each with its log prior in the training counts (which
    /// only orders a word's taggings for the chart's first pass); `potential` is `ψ` by state
    /// (all 0, or from [`fit_potentials`]).
    pub fn new(
        grammar: &Grammar,
        goal: u32,
        tags: &[(u32, f32)],
        positions: usize,
        potential: Vec<f32>,
    ) -> Bounds {
        assert!(
            positions <= MAX_BOUNDED,
            "bounds for at most {MAX_BOUNDED} positions"
        );
        let n = grammar.num_states;
        let mut prior = vec![NEG; n];
        for &(t, p) in tags {
            prior[t as usize] = p;
        }
        let tag_states: Vec<u32> = tags.iter().map(|&(t, _)| t).collect();
        let inside = inside_table(grammar, &tag_states, &potential, positions);
        // Computed by state, each state's pairs together (the rules read a few states' rows
        // over many pairs), then laid out by pair for the chart, which reads one span's states.
        let pairs = pair(0, positions);
        let width = inside.width;
        let inside_by_state = &inside.by_state;
        let mut by_state = vec![NEG; n * pairs];
        by_state[goal as usize * pairs + pair(0, 0)] = 0.0;
        for d in 0..positions {
            // Binary rules: the item is a child, its sibling takes w of the words on its side;
            // the parent has d - w words outside, on the same sides.
            for r in &grammar.binary {
                let parent = &by_state[r.parent as usize * pairs..][..pairs];
                let right_inside = &inside_by_state[r.right as usize * width..][..width];
                let left_inside = &inside_by_state[r.left as usize * width..][..width];
                let mut as_left = [NEG; MAX_BOUNDED];
                let mut as_right = [NEG; MAX_BOUNDED];
                for left in 0..=d {
                    let right = d - left;
                    let mut best = NEG;
                    for w in 1..=right {
                        best = best.max(r.score + parent[pair(left, right - w)] + right_inside[w]);
                    }
                    as_left[left] = best;
                    let mut best = NEG;
                    for w in 1..=left {
                        best = best.max(r.score + parent[pair(left - w, right)] + left_inside[w]);
                    }
                    as_right[left] = best;
                }
                let at = pair(0, d);
                for (row, values) in [(r.left, &as_left), (r.right, &as_right)] {
                    let row = &mut by_state[row as usize * pairs + at..][..=d];
                    for (o, &v) in row.iter_mut().zip(values.iter()) {
                        *o = o.max(v);
                    }
                }
            }
            for _ in 0..MAX_CLOSURE_PASSES {
                let mut rose = false;
                for c in 0..n {
                    for &(p, s) in grammar.closed_with_child(c) {
                        for left in 0..=d {
                            let at = pair(left, d - left);
                            let o = by_state[p as usize * pairs + at] + s;
                            let here = &mut by_state[c * pairs + at];
                            if o > *here {
                                *here = o;
                                rose = true;
                            }
                        }
                    }
                }
                if !rose {
                    break;
                }
            }
        }
        let mut outside = vec![NEG; pairs * n];
        for (s, row) in by_state.chunks_exact(pairs).enumerate() {
            for (at, &v) in row.iter().enumerate() {
                outside[at * n + s] = v;
            }
        }
        Bounds {
            prior,
            states: n,
            positions,
            outside,
            inside_goal: (0..width).map(|w| inside.at(w, goal as usize)).collect(),
            potential,
        }
    }

    /// Longest sentence (positions, the boundary included) the table covers.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// The best outside score of `state` with `left` words before it and `right` after it,
    /// lexical scores left out and each tag leaf scoring `-ψ` (−∞: no parse has it there); add
    /// the outside words' [`Bounds::best_lexical`] for a bound.
    pub fn outside(&self, state: usize, left: usize, right: usize) -> f32 {
        self.outside[pair(left, right) * self.states + state]
    }

    /// A word's best lexical score among its `taggings` (state, score), each with its tag's
    /// potential added: what the bounds count for a word outside an item.
    pub fn best_lexical(&self, taggings: &[(u32, f32)]) -> f32 {
        taggings
            .iter()
            .map(|&(st, s)| s + self.potential[st as usize])
            .fold(NEG, f32::max)
    }

    /// The bounds' limit on the score of any parse of a sentence with these taggings (the
    /// boundary word's last); `None` past the table's length.
    pub fn whole_parse(&self, taggings: &[Vec<(u32, f32)>]) -> Option<f32> {
        let w = taggings.len();
        (w <= self.positions).then(|| {
            let words: f32 = taggings.iter().map(|t| self.best_lexical(t)).sum();
            self.inside_goal[w] + words
        })
    }

    /// log P(tag) of `state` (a tag) in the training counts.
    pub fn prior(&self, state: usize) -> f32 {
        self.prior[state]
    }

    /// The best score of a parse of `w` positions, lexical scores left out and each tag leaf
    /// scoring `-ψ`.
    pub fn inside_goal(&self, w: usize) -> f32 {
        self.inside_goal[w]
    }

    /// The outside bounds of one span's states, as one row; `None` when the span has more words
    /// outside it than the table covers (`left + right >= positions`).
    pub fn row(&self, left: usize, right: usize) -> Option<&[f32]> {
        (left + right < self.positions).then(|| {
            let at = pair(left, right) * self.states;
            &self.outside[at..at + self.states]
        })
    }
}

impl std::fmt::Debug for Bounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bounds")
            .field("states", &self.states)
            .field("positions", &self.positions)
            .finish_non_exhaustive()
    }
}

/// The best inside score of each state over `w` words, for `w` up to some length: by state, each
/// state's lengths together (`by_state[state * width + w]`), so that a binary rule reads its two
/// children's rows from two places.
struct Inside {
    width: usize,
    by_state: Vec<f32>,
}

impl Inside {
    fn at(&self, w: usize, state: usize) -> f32 {
        self.by_state[state * self.width + w]
    }
}

/// The best inside score of each state over `w` words, by `w` up to `positions`: tags as leaves
/// scoring `-potential[tag]`, binary rules over every split, then closed unary rules until
/// nothing rises (the chart may walk chains of closed rules, which beat their closed score by
/// rounding at most, but by that they may). Each length is filled in a cell by state, then
/// copied into the table.
fn inside_table(grammar: &Grammar, tags: &[u32], potential: &[f32], positions: usize) -> Inside {
    let n = grammar.num_states;
    let width = positions + 1;
    let mut by_state = vec![NEG; n * width];
    let mut cell = vec![NEG; n];
    for w in 1..=positions {
        cell.fill(NEG);
        if w == 1 {
            for &t in tags {
                cell[t as usize] = -potential[t as usize];
            }
        } else {
            for r in &grammar.binary {
                let left = &by_state[r.left as usize * width..][..w];
                let right = &by_state[r.right as usize * width..][..w];
                let mut best = cell[r.parent as usize];
                for wl in 1..w {
                    best = best.max(r.score + left[wl] + right[w - wl]);
                }
                cell[r.parent as usize] = best;
            }
        }
        for _ in 0..MAX_CLOSURE_PASSES {
            let mut rose = false;
            for c in 0..n {
                let v = cell[c];
                if v == NEG {
                    continue;
                }
                for &(p, s) in grammar.closed_with_child(c) {
                    let p = p as usize;
                    if v + s > cell[p] {
                        cell[p] = v + s;
                        rose = true;
                    }
                }
            }
            if !rose {
                break;
            }
        }
        for (s, &v) in cell.iter().enumerate() {
            by_state[s * width + w] = v;
        }
    }
    Inside { width, by_state }
}

/// The length of [`fit_potentials`]' first step, in nats (the `k`-th is this over `sqrt(k)`).
/// Items the chart stored on 2,005 and 2,003 val2014 sentences after 100 steps: 31.5 and 33.5
/// million at 2; 26.9 and 30.0 million at 12; 26.9 and 29.3 at 16; 28.7 million (first set) at
/// 24 and 30.8 at 32. With steps of 2, 300 and 600 steps reached 29.8 and 29.4 million.
const FIRST_STEP: f64 = 16.0;

/// A sentence as [`fit_potentials`] reads it: each position's taggings (tag state, lexical
/// score), the boundary word's last.
pub type Taggings = Vec<Vec<(u32, f32)>>;

/// Potentials `ψ` (by state) that tighten the bounds on sentences like `sample`'s: `iterations`
/// steps of subgradient descent on the mean over the sample of its whole-parse bound,
/// `inside_goal(n) + Σ_words max_t (lexical(word, t) + ψ(t))`, from `ψ = 0`; the best `ψ` seen
/// is returned. The subgradient for `ψ(t)`: how many words take `t` as their best tagging, less
/// how many leaves `t` the table's best parse of each length has. Any `ψ` gives true bounds; this
/// one only makes them tighter on such sentences.
pub fn fit_potentials(
    grammar: &Grammar,
    goal: u32,
    tags: &[u32],
    sample: &[Taggings],
    iterations: usize,
) -> Vec<f32> {
    let n = grammar.num_states;
    let mut potential = vec![0f32; n];
    let longest = sample.iter().map(Vec::len).max().unwrap_or(0);
    if longest == 0 || longest > MAX_BOUNDED {
        return potential;
    }
    let mut is_tag = vec![false; n];
    for &t in tags {
        is_tag[t as usize] = true;
    }
    let mut closed_by_parent: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
    for c in 0..n {
        for &(p, s) in grammar.closed_with_child(c) {
            closed_by_parent[p as usize].push((c as u32, s));
        }
    }
    let mut of_length = vec![0usize; longest + 1];
    for s in sample {
        of_length[s.len()] += 1;
    }
    let (mut best, mut best_potential) = (f64::INFINITY, potential.clone());
    // One more step than updates: the last potentials are weighed too.
    for step in 0..=iterations {
        let inside = inside_table(grammar, tags, &potential, longest);
        let tree = BestTree {
            grammar,
            closed_by_parent: &closed_by_parent,
            inside: &inside,
            is_tag: &is_tag,
            potential: &potential,
        };
        let mut gradient = vec![0f64; n];
        let mut objective = 0f64;
        // Lengths the grammar cannot parse, or whose best parse is not read back (never seen),
        // are left out of this step; so are their sentences.
        let mut counted = vec![false; longest + 1];
        let mut size = 0f64;
        for (w, &count) in of_length.iter().enumerate() {
            let mut leaves = vec![0u32; n];
            if count == 0 || !tree.leaves(goal as usize, w, &mut leaves, &mut Vec::new(), 0) {
                continue;
            }
            counted[w] = true;
            size += count as f64;
            objective += count as f64 * f64::from(inside.at(w, goal as usize));
            for (g, &l) in gradient.iter_mut().zip(&leaves) {
                *g -= count as f64 * f64::from(l);
            }
        }
        for sentence in sample.iter().filter(|s| counted[s.len()]) {
            for position in sentence {
                let (mut top, mut tag) = (NEG, None);
                for &(t, score) in position {
                    let v = score + potential[t as usize];
                    if v > top {
                        (top, tag) = (v, Some(t as usize));
                    }
                }
                objective += f64::from(top);
                if let Some(t) = tag {
                    gradient[t] += 1.0;
                }
            }
        }
        if size == 0.0 {
            break;
        }
        objective /= size;
        if !objective.is_finite() {
            break;
        }
        if objective < best {
            (best, best_potential) = (objective, potential.clone());
        }
        if step == iterations {
            break;
        }
        let norm = gradient.iter().map(|g| g * g).sum::<f64>().sqrt();
        if norm == 0.0 {
            break;
        }
        // A step of FIRST_STEP / sqrt(step + 1) nats along the normalised subgradient.
        let length = FIRST_STEP / ((step + 1) as f64).sqrt() / norm;
        for (p, g) in potential.iter_mut().zip(&gradient) {
            *p -= (length * g) as f32;
        }
    }
    best_potential
}

/// The best parse behind an inside table, read back for its leaves.
struct BestTree<'a> {
    grammar: &'a Grammar,
    closed_by_parent: &'a [Vec<(u32, f32)>],
    inside: &'a Inside,
    is_tag: &'a [bool],
    potential: &'a [f32],
}

impl BestTree<'_> {
    /// Counts into `leaves` the tag leaves of a best parse of `state` over `w` words; false when
    /// none is found (a −∞ score; or the closure not settled, never seen). `unary` holds the
    /// states already passed through by unary rules over these words, so that a cycle of equal
    /// scores is not walked round.
    fn leaves(
        &self,
        state: usize,
        w: usize,
        leaves: &mut [u32],
        unary: &mut Vec<usize>,
        depth: usize,
    ) -> bool {
        let target = self.inside.at(w, state);
        if depth > 4 * MAX_BOUNDED || target == NEG {
            return false;
        }
        if w == 1 && self.is_tag[state] && -self.potential[state] == target {
            leaves[state] += 1;
            return true;
        }
        let g = self.grammar;
        for &ri in &g.binary_by_parent[state] {
            let r = &g.binary[ri as usize];
            let (l, rt) = (r.left as usize, r.right as usize);
            for wl in 1..w {
                if r.score + self.inside.at(wl, l) + self.inside.at(w - wl, rt) == target {
                    return self.leaves(l, wl, leaves, &mut Vec::new(), depth + 1)
                        && self.leaves(rt, w - wl, leaves, &mut Vec::new(), depth + 1);
                }
            }
        }
        unary.push(state);
        for &(c, s) in &self.closed_by_parent[state] {
            let c = c as usize;
            if !unary.contains(&c) && self.inside.at(w, c) + s == target {
                return self.leaves(c, w, leaves, unary, depth + 1);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corenlp::model::BinaryRule;

    /// `S -> A B` is the only rule, and each word scores better as `A`: without potentials the
    /// bound counts both words at `A`, which no parse can give them; fitted potentials bring it
    /// down to the best parse, and every item's bound stays above it.
    #[test]
    fn fitted_potentials_tighten_the_bounds_and_keep_them_above_the_best_parse() {
        let (s, a, b) = (0u32, 1u32, 2u32);
        let rule = BinaryRule {
            parent: s,
            left: a,
            right: b,
            score: -0.5,
        };
        let grammar = Grammar::new(3, vec![rule], &[]);
        let word = vec![(a, -1.0f32), (b, -3.0)];
        let sentence: Taggings = vec![word.clone(), word];
        let best_parse = -0.5 - 1.0 - 3.0;
        let tags = [(a, 0.0), (b, 0.0)];
        let plain = Bounds::new(&grammar, s, &tags, 2, vec![0.0; 3]);
        let sample = std::slice::from_ref(&sentence);
        let potential = fit_potentials(&grammar, s, &[a, b], sample, 200);
        assert!(
            potential[a as usize] < potential[b as usize],
            "{potential:?}"
        );
        let fitted = Bounds::new(&grammar, s, &tags, 2, potential);
        let loose = plain.whole_parse(&sentence).expect("two positions");
        let tight = fitted.whole_parse(&sentence).expect("two positions");
        assert_eq!(loose, -2.5);
        assert!(
            tight >= best_parse && tight < best_parse + 0.5,
            "{tight} with potentials, {loose} without, best parse {best_parse}"
        );
        // Each tag of each word, with the bound on what any parse can put around it.
        for bounds in [&plain, &fitted] {
            for (position, other) in [(0, 1), (1, 0)] {
                for &(tag, score) in &sentence[position] {
                    let (left, right) = (position, 1 - position);
                    let around = bounds.outside(tag as usize, left, right)
                        + bounds.best_lexical(&sentence[other]);
                    if around > NEG {
                        assert!(score + around >= best_parse, "{tag} at {position}");
                    }
                }
            }
        }
        assert_eq!(
            fitted.outside(a as usize, 1, 0),
            NEG,
            "A never has a word on its left"
        );
    }

    /// The best parse read back through unary rules that form a cycle of equal scores (`C` over
    /// `D` over `C`, both over the tag `A`, numbered so that the cycle is met first): the fit
    /// still reads every length's best parse and tightens the bound as without the cycle; a
    /// length no parse covers (three words) is left out of it.
    #[test]
    fn the_fit_reads_back_through_unary_cycles_and_skips_lengths_without_a_parse() {
        use crate::corenlp::model::UnaryRule;
        let (s, c, d, b, a) = (0u32, 1u32, 2u32, 3u32, 4u32);
        let rule = BinaryRule {
            parent: s,
            left: c,
            right: b,
            score: -0.5,
        };
        let unary = |parent, child| UnaryRule {
            parent,
            child,
            score: 0.0,
        };
        let grammar = Grammar::new(5, vec![rule], &[unary(c, d), unary(d, c), unary(d, a)]);
        let word = vec![(a, -1.0f32), (b, -3.0)];
        let pair: Taggings = vec![word.clone(), word.clone()];
        let three: Taggings = vec![word.clone(), word.clone(), word];
        let best_parse = -0.5 - 1.0 - 3.0;
        let tags = [(a, 0.0), (b, 0.0)];
        let sample = [pair.clone(), three];
        let potential = fit_potentials(&grammar, s, &[a, b], &sample, 200);
        let fitted = Bounds::new(&grammar, s, &tags, 3, potential);
        let tight = fitted.whole_parse(&pair).expect("two positions");
        assert!(
            tight >= best_parse && tight < best_parse + 0.5,
            "{tight} with potentials, best parse {best_parse}"
        );
    }
}
