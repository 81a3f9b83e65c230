//! Outside bounds: how well any parse could do around a chart item, so that the chart can leave
//! out items that no parse near the best one uses, and still return CoreNLP's tree.
//!
//! This is A* parsing's "SX" estimate (Klein and Manning, 2003) with the words put back: for a
//! state spanning a sentence's words `start..end`, every parse that contains it scores at most its
//! inside score, plus the best score any outside structure over `start` words on its left and
//! `length - end` on its right can reach with every lexical score 0 ([`Bounds::outside`], a table
//! of the grammar alone), plus each outside word's best lexical score ([`WordBounds`], per
//! sentence). The table is computed once per grammar in max-plus arithmetic: the best inside
//! score of each state over `w` words with free tags, then the best outside score top-down from
//! the goal, each pair `(left, right)` after the pairs with fewer words.
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
    /// The goal's best inside score over `w` words with zero-scored tags, by `w`.
    inside_goal: Vec<f32>,
}

/// Index of the pair `(left, right)`: pairs come by their sum, then by `left`.
fn pair(left: usize, right: usize) -> usize {
    let d = left + right;
    d * (d + 1) / 2 + left
}

impl Bounds {
    /// The bounds of `grammar` for up to `positions` positions, `goal` its start symbol and
    /// `tags` the states that are tags, each with its log prior in the training counts (which
    /// only orders a word's taggings for the chart's first pass).
    pub fn new(grammar: &Grammar, goal: u32, tags: &[(u32, f32)], positions: usize) -> Bounds {
        assert!(
            positions <= MAX_BOUNDED,
            "bounds for at most {MAX_BOUNDED} positions"
        );
        let n = grammar.num_states;
        let mut prior = vec![NEG; n];
        for &(t, p) in tags {
            prior[t as usize] = p;
        }
        let closed = |c: usize| {
            &grammar.closed[grammar.closed_start[c] as usize..grammar.closed_start[c + 1] as usize]
        };
        // Best inside score over w words with free, zero-scored tags: inside[w][state].
        let mut inside = vec![vec![NEG; n]; positions + 1];
        for &(t, _) in tags {
            inside[1][t as usize] = 0.0;
        }
        for w in 1..=positions {
            if w >= 2 {
                let (done, rest) = inside.split_at_mut(w);
                let cell = &mut rest[0];
                for r in &grammar.binary {
                    let (l, rt) = (r.left as usize, r.right as usize);
                    let mut best = cell[r.parent as usize];
                    for wl in 1..w {
                        best = best.max(r.score + done[wl][l] + done[w - wl][rt]);
                    }
                    cell[r.parent as usize] = best;
                }
            }
            // Closed unaries until nothing rises: the chart may walk chains of closed rules, which
            // beat their closed score by rounding at most, but by that they may.
            for _ in 0..MAX_CLOSURE_PASSES {
                let mut rose = false;
                for c in 0..n {
                    let v = inside[w][c];
                    if v == NEG {
                        continue;
                    }
                    for &(p, s) in closed(c) {
                        let p = p as usize;
                        if v + s > inside[w][p] {
                            inside[w][p] = v + s;
                            rose = true;
                        }
                    }
                }
                if !rose {
                    break;
                }
            }
        }
        // Computed by state, each state's pairs together (the rules read a few states' rows
        // over many pairs), then laid out by pair for the chart, which reads one span's states.
        let pairs = pair(0, positions);
        let width = positions + 1;
        let mut inside_by_state = vec![NEG; n * width];
        for (w, cell) in inside.iter().enumerate() {
            for (s, &v) in cell.iter().enumerate() {
                inside_by_state[s * width + w] = v;
            }
        }
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
                    for &(p, s) in closed(c) {
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
            inside_goal: inside.iter().map(|c| c[goal as usize]).collect(),
        }
    }

    /// Longest sentence (positions, the boundary included) the table covers.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// The best outside score, lexical scores left out, of `state` with `left` words before it
    /// and `right` after it (−∞: no parse has it there).
    pub fn outside(&self, state: usize, left: usize, right: usize) -> f32 {
        self.outside[pair(left, right) * self.states + state]
    }

    /// log P(tag) of `state` (a tag) in the training counts.
    pub fn prior(&self, state: usize) -> f32 {
        self.prior[state]
    }

    /// The best score of a parse of `w` positions, lexical scores left out.
    pub fn inside_goal(&self, w: usize) -> f32 {
        self.inside_goal[w]
    }

    /// The outside bounds of one span's states, as one row.
    pub fn row(&self, left: usize, right: usize) -> &[f32] {
        let at = pair(left, right) * self.states;
        &self.outside[at..at + self.states]
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
