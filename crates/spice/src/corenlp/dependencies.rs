//! The dependency skeleton `GrammaticalStructure` starts from: every word hangs on the head word
//! of the lowest constituent it does not head ([`super::headfinder`] decides the heads, each with
//! its parent known, as `TreeGraphNode.percolateHeads` asks). Relation labels, CoreNLP's
//! coordination transform of the tree and the clean-up passes that rewire a few arcs are the
//! converter's next stages, not yet here.

use super::headfinder::SemanticHeadFinder;
use super::tree::Tree;
use super::tregex::{NodeId, TreeView};

/// The governor of each word (index 0 unused; words from 1, the root's governor 0).
pub fn head_governors(tree: &Tree, hf: &SemanticHeadFinder) -> Vec<usize> {
    let view = TreeView::new(tree);
    let mut word_of = vec![0usize; view.len()];
    let mut words = 0;
    for (n, w) in word_of.iter_mut().enumerate() {
        if view.is_leaf(n) {
            words += 1;
            *w = words;
        }
    }
    // The head word of every constituent, bottom-up (preorder reversed visits children first).
    let mut parent_of = vec![None; view.len()];
    for n in 0..view.len() {
        for &c in view.children(n) {
            parent_of[c] = Some(n);
        }
    }
    let mut head_child: Vec<Option<NodeId>> = vec![None; view.len()];
    let mut head_word = vec![0usize; view.len()];
    for n in (0..view.len()).rev() {
        if view.is_leaf(n) {
            head_word[n] = word_of[n];
            continue;
        }
        let h = hf
            .head_with_parent(&view, n, parent_of[n])
            .unwrap_or(view.children(n)[0]);
        head_child[n] = Some(h);
        head_word[n] = head_word[h];
    }
    let mut gov = vec![0usize; words + 1];
    for n in 0..view.len() {
        for &c in view.children(n) {
            if Some(c) != head_child[n] {
                gov[head_word[c]] = head_word[n];
            }
        }
    }
    gov[head_word[view.root()]] = 0;
    gov
}

#[cfg(test)]
mod tests {
    use super::*;

    fn governors(penn: &str) -> Vec<usize> {
        head_governors(
            &Tree::from_penn(penn).expect("tree"),
            &SemanticHeadFinder::new(),
        )
    }

    #[test]
    fn auxiliaries_and_prepositions_hang_on_their_content_words() {
        // a man is riding a horse on the beach
        let g = governors(
            "(ROOT (S (NP (DT a) (NN man)) (VP (VBZ is) (VP (VBG riding) (NP (DT a) (NN horse)) \
             (PP (IN on) (NP (DT the) (NN beach)))))))",
        );
        assert_eq!(g, [0, 2, 4, 4, 0, 6, 4, 9, 9, 4]);
    }

    #[test]
    fn a_copula_hangs_on_its_predicate_and_a_conjunct_on_the_first() {
        // the dog is brown and white
        let g = governors(
            "(ROOT (S (NP (DT the) (NN dog)) (VP (VBZ is) (ADJP (JJ brown) (CC and) (JJ white)))))",
        );
        assert_eq!(g, [0, 2, 4, 4, 0, 4, 4]);
    }
}
