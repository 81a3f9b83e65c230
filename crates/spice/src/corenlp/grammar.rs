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
    /// Binary rules by left child: (right child, parent, score), for the chart.
    pub binary_by_left: Vec<Vec<(u32, u32, f32)>>,
    /// Core unary rules by parent, in the order they were added (`rulesWithParent`).
    pub unary_by_parent: Vec<Vec<UnaryRule>>,
    /// Closed unary rules by child (`closedRulesWithChild`, self-loops removed): (parent, score).
    pub closed_by_child: Vec<Vec<(u32, f32)>>,
}

impl Grammar {
    pub fn new(num_states: usize, binary: Vec<BinaryRule>, unary: &[UnaryRule]) -> Grammar {
        let mut binary_by_parent = vec![Vec::new(); num_states];
        let mut binary_by_left = vec![Vec::new(); num_states];
        for (i, r) in binary.iter().enumerate() {
            binary_by_parent[r.parent as usize].push(i as u32);
            binary_by_left[r.left as usize].push((r.right, r.parent, r.score));
        }
        // The chart takes the best over a left child's rules in any order: by right child, the
        // right cell is read in order.
        for rules in &mut binary_by_left {
            rules.sort_by_key(|&(right, parent, _)| (right, parent));
        }
        let mut unary_by_parent = vec![Vec::new(); num_states];
        for r in unary {
            unary_by_parent[r.parent as usize].push(*r);
        }
        Grammar {
            num_states,
            binary,
            binary_by_parent,
            binary_by_left,
            unary_by_parent,
            closed_by_child: close_unaries(num_states, unary),
        }
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
