//! The binary and unary grammars as CoreNLP's `BinaryGrammar` and `UnaryGrammar` hold them after
//! `readObject`: binary rules indexed by parent (for reading the best tree back) and by left
//! child (for the chart), and the unary closure.
//!
//! `UnaryGrammar` adds its rules one by one, each time relaxing every chain through the new rule
//! (`closeRulesUnderMax`), in float arithmetic. The closed scores therefore depend on the order
//! the rules come in, which [`super::model`] reproduces, and the same loops are run here in the
//! same order so that every closed score has the same bits as CoreNLP's.

use std::collections::HashMap;

use super::model::{BinaryRule, UnaryRule};

#[derive(Debug, Clone)]
pub struct Grammar {
    pub num_states: usize,
    pub binary: Vec<BinaryRule>,
    /// Binary rules by parent, in the list order (`rulesWithParent`).
    pub binary_by_parent: Vec<Vec<u32>>,
    /// Binary rules by left child, for the chart: those of left child `l` are at
    /// `by_left_start[l]..by_left_start[l + 1]` of the two arrays (right child; parent and
    /// score, read together), which the chart scans for right children without reading the rest. Right children are
    /// given by their place among the states that are right children (`right_slot`).
    pub by_left_start: Vec<u32>,
    pub by_left_right: Vec<u16>,
    pub by_left_rule: Vec<(u32, f32)>,
    /// Core unary rules by parent, in the order they were added (`rulesWithParent`).
    pub unary_by_parent: Vec<Vec<UnaryRule>>,
    /// Closed unary rules by child (`closedRulesWithChild`, self-loops removed): those of child
    /// `c` are `closed[closed_start[c]..closed_start[c + 1]]`, (parent, score).
    pub closed_start: Vec<u32>,
    pub closed: Vec<(u32, f32)>,
    /// For each state that is the right child of some binary rule, its place among them
    /// (`u32::MAX` for the others): the chart indexes only those by their end.
    pub right_slot: Vec<u32>,
    pub right_children: usize,
    /// For a left child with many rules (at least [`INDEXED_RULES`], and fewer than `u16::MAX`
    /// so that an offset fits the table), where its rules with each
    /// right child begin, so that the chart can look up the right children it has at hand instead
    /// of scanning them all: `by_left_indexed[l]` is the table's place (`u32::MAX`: not indexed),
    /// and `right_index[place * right_children + slot]` is 1 + the offset of the first rule of `l`
    /// with that right child from `by_left_start[l]` (0: none).
    pub by_left_indexed: Vec<u32>,
    pub right_index: Vec<u16>,
}

/// Left children with at least this many binary rules get a lookup table by right child
/// ([`Grammar::right_table`]): 129 tables of the English PCFG, 1.7 MB (at 64, 4 % more time; at
/// 16 or 24, more time too).
pub const INDEXED_RULES: usize = 32;

impl Grammar {
    pub fn new(num_states: usize, binary: Vec<BinaryRule>, unary: &[UnaryRule]) -> Grammar {
        let mut binary_by_parent = vec![Vec::new(); num_states];
        let mut binary_by_left: Vec<Vec<(u32, u32, f32)>> = vec![Vec::new(); num_states];
        for (i, r) in binary.iter().enumerate() {
            binary_by_parent[r.parent as usize].push(i as u32);
            binary_by_left[r.left as usize].push((r.right, r.parent, r.score));
        }
        // The chart takes the best over a left child's rules in any order: by right child, the
        // right cell is read in order.
        for rules in &mut binary_by_left {
            rules.sort_by_key(|&(right, parent, _)| (right, parent));
        }
        // Slots in state order, so that a cell's states, walked in order, reach them in order.
        let mut right_slot = vec![u32::MAX; num_states];
        for r in &binary {
            right_slot[r.right as usize] = 0;
        }
        let mut right_children = 0;
        for slot in right_slot.iter_mut().filter(|s| **s == 0) {
            *slot = right_children as u32;
            right_children += 1;
        }
        let mut by_left_start = vec![0u32];
        let (mut by_left_right, mut by_left_rule) = (Vec::new(), Vec::new());
        for rules in &binary_by_left {
            for &(right, parent, score) in rules {
                // Fewer than `u16::MAX` right children, or the parser refuses the grammar.
                by_left_right.push(right_slot[right as usize] as u16);
                by_left_rule.push((parent, score));
            }
            by_left_start.push(by_left_right.len() as u32);
        }
        let mut by_left_indexed = vec![u32::MAX; num_states];
        let mut right_index = Vec::new();
        for l in 0..num_states {
            let (first, last) = (by_left_start[l] as usize, by_left_start[l + 1] as usize);
            if last - first < INDEXED_RULES || last - first >= usize::from(u16::MAX) {
                continue;
            }
            by_left_indexed[l] = (right_index.len() / right_children) as u32;
            let table = right_index.len();
            right_index.resize(table + right_children, 0u16);
            for i in (first..last).rev() {
                right_index[table + by_left_right[i] as usize] = (i - first + 1) as u16;
            }
        }
        let mut closed_start = vec![0u32];
        let mut closed = Vec::new();
        for rules in close_unaries(num_states, unary) {
            closed.extend(rules);
            closed_start.push(closed.len() as u32);
        }
        let mut unary_by_parent = vec![Vec::new(); num_states];
        for r in unary {
            unary_by_parent[r.parent as usize].push(*r);
        }
        Grammar {
            num_states,
            binary,
            binary_by_parent,
            by_left_start,
            by_left_right,
            by_left_rule,
            unary_by_parent,
            closed_start,
            closed,
            right_slot,
            right_children,
            by_left_indexed,
            right_index,
        }
    }

    /// For a left child with a lookup table ([`INDEXED_RULES`]), at `place =
    /// by_left_indexed[left]` (`None` for `u32::MAX`): by right child's slot, 1 + the offset of
    /// its first rule with that right child (0: none).
    pub fn right_table(&self, place: u32) -> Option<&[u16]> {
        (place != u32::MAX).then(|| {
            let at = place as usize * self.right_children;
            &self.right_index[at..at + self.right_children]
        })
    }

    /// The most binary rules one left child has.
    pub fn most_rules_by_left(&self) -> usize {
        self.by_left_start
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }

    /// The closed unary rules with child `c`, (parent, score).
    pub fn closed_with_child(&self, c: usize) -> &[(u32, f32)] {
        &self.closed[self.closed_start[c] as usize..self.closed_start[c + 1] as usize]
    }
}

/// `UnaryGrammar`'s `init`, `addRule` for each rule, then `purgeRules`.
fn close_unaries(n: usize, rules: &[UnaryRule]) -> Vec<Vec<(u32, f32)>> {
    // Closed rules live in one arena; the lists hold indexes, so that raising a score in place
    // (as Java raises the shared object's) is seen by every list.
    let mut arena: Vec<UnaryRule> = Vec::with_capacity(n + rules.len() * 4);
    let mut best: HashMap<(u32, u32), usize> = HashMap::new();
    let mut with_parent: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut with_child: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut relax = |r: UnaryRule,
                     arena: &mut Vec<UnaryRule>,
                     with_parent: &mut Vec<Vec<usize>>,
                     with_child: &mut Vec<Vec<usize>>| {
        match best.get(&(r.parent, r.child)) {
            None => {
                arena.push(r);
                let i = arena.len() - 1;
                best.insert((r.parent, r.child), i);
                with_parent[r.parent as usize].push(i);
                with_child[r.child as usize].push(i);
            }
            Some(&i) => {
                if arena[i].score < r.score {
                    arena[i].score = r.score;
                }
            }
        }
    };
    for s in 0..n as u32 {
        relax(
            UnaryRule {
                parent: s,
                child: s,
                score: 0.0,
            },
            &mut arena,
            &mut with_parent,
            &mut with_child,
        );
    }
    for ur in rules {
        // closeRulesUnderMax: every closed rule into ur.parent, times every closed rule out of
        // ur.child; the outer list's length is read once, the inner one's at each outer step.
        let outer = with_child[ur.parent as usize].len();
        for i in 0..outer {
            let pr = arena[with_child[ur.parent as usize][i]];
            let inner = with_parent[ur.child as usize].len();
            for j in 0..inner {
                let cr = arena[with_parent[ur.child as usize][j]];
                let score = pr.score + cr.score + ur.score;
                relax(
                    UnaryRule {
                        parent: pr.parent,
                        child: cr.child,
                        score,
                    },
                    &mut arena,
                    &mut with_parent,
                    &mut with_child,
                );
            }
        }
        // addRule also records the rule itself in the core lists (not the closure).
    }
    // purgeRules: self-loops leave the closed lists.
    with_child
        .into_iter()
        .map(|list| {
            list.into_iter()
                .map(|i| arena[i])
                .filter(|r| r.parent != r.child)
                .map(|r| (r.parent, r.score))
                .collect()
        })
        .collect()
}
