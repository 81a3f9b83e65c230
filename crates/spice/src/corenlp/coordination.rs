//! `CoordinationTransformer`: what CoreNLP does to a tree before reading dependencies off it.
//! Of its stages, this holds so far the first, `DependencyTreeTransformer` (labels to their basic
//! category, keeping `-TMP` and `-ADV` on noun phrases and UCPs), and the one that matters most
//! to captions, `CCtransform`, which
//! gives flat coordinated noun phrases ("a black and white photo", "a man, a woman and a dog")
//! the structure the head rules need to make the first conjunct the head. The other stages
//! (multi-word expressions, UCP renaming, QP, SQ flattening, dates, X over X, CONJP, adverbs,
//! SBAR to PP, "now that") are Tregex and Tsurgeon scripts, to come.
//!
//! Quirks kept: CoreNLP finds a conjunction's position among its siblings with `indexOf`, which
//! compares trees by structure, so a second "(CC and)" counts as the first one's position; labels
//! are compared whole (`value()`), not by basic category.

use super::tree::{basic_category, Tree};

/// The stages of `CoordinationTransformer` reproduced so far, in CoreNLP's order.
pub fn transform(tree: &Tree) -> Tree {
    let mut t = tree.clone();
    if t.label == "TOP" {
        t.label = "ROOT".to_string();
    }
    strip_functional_tags(&mut t);
    cc_transform(&mut t);
    t
}

/// `DependencyTreeTransformer.stripTag`: every phrase and tag label to its basic category, but
/// an NP or UCP with `-TMP` or `-ADV` in its label keeps that mark. (Its other step, pruning
/// `-NONE-` empty elements, has nothing to do on a parser's trees.)
pub fn strip_functional_tags(t: &mut Tree) {
    if t.is_leaf() {
        return;
    }
    let np_or_ucp = t.label.starts_with("NP") || t.label.starts_with("UCP");
    let mark = if np_or_ucp && t.label.contains("-TMP") {
        "-TMP"
    } else if np_or_ucp && t.label.contains("-ADV") {
        "-ADV"
    } else {
        ""
    };
    t.label = format!("{}{mark}", basic_category(&t.label));
    for c in &mut t.children {
        strip_functional_tags(c);
    }
}

/// `CCtransform`: repeatedly, the first conjunction (in preorder) directly under an NP with at
/// least two siblings after it, no NP from it on, not first, and not followed by another
/// conjunction, has its NP restructured (`transformCC`).
pub fn cc_transform(tree: &mut Tree) {
    while let Some((path, cc)) = find_cc_parent(tree, &mut Vec::new()) {
        transform_cc(node_at(tree, &path), cc);
    }
}

fn node_at<'t>(tree: &'t mut Tree, path: &[usize]) -> &'t mut Tree {
    path.iter().fold(tree, |t, &i| &mut t.children[i])
}

/// `findCCparent`: the path to the NP to restructure and the conjunction's index in it.
fn find_cc_parent(t: &Tree, path: &mut Vec<usize>) -> Option<(Vec<usize>, usize)> {
    for (i, child) in t.children.iter().enumerate() {
        if child.is_preterminal() {
            if child.label.starts_with("CC") && t.label.starts_with("NP") {
                let kids = &t.children;
                // indexOf: the first sibling equal to the conjunction, compared by structure.
                let cc = kids.iter().position(|k| k == child).unwrap_or(i);
                let no_np_after = kids[cc..].iter().all(|k| !k.label.starts_with("NP"));
                if kids.len() > cc + 2
                    && no_np_after
                    && cc != 0
                    && (cc == kids.len() - 1 || !kids[cc + 1].label.starts_with("CC"))
                {
                    return Some((path.clone(), cc));
                }
            }
        } else if !child.is_leaf() {
            path.push(i);
            if let Some(found) = find_cc_parent(child, path) {
                return Some(found);
            }
            path.pop();
        }
    }
    None
}

fn lbl(t: &Tree) -> &str {
    &t.label
}

/// `getHeadTag`: the label of a phrase built around a child: ADJP for an adjective, else NP.
fn head_tag(t: &Tree) -> &'static str {
    if t.label.starts_with("NN") {
        "NP"
    } else if t.label.starts_with("JJ") {
        "ADJP"
    } else {
        "NP"
    }
}

/// `transformCC` on the NP `t` whose child `cc` is the conjunction.
fn transform_cc(t: &mut Tree, cc: usize) {
    let sibs = t.children.clone();
    let n = sibs.len();
    let later_ccs: Vec<usize> = (cc + 1..n)
        .filter(|&i| sibs[i].label.starts_with("CC") && i < n - 1)
        .collect();
    let before = sibs[cc - 1].label.as_str();
    if cc == 1
        && (matches!(before, "DT" | "JJ" | "RB") || lbl(&sibs[cc + 1]) != "DT")
        && !(before.starts_with("NP") || before == "ADJP" || before == "NNS")
    {
        // "soya or maize oil": the first three children become a phrase.
        let left = Tree::node(head_tag(&sibs[0]), sibs[..cc + 2].to_vec());
        t.children.drain(..cc + 2);
        match later_ccs.first() {
            Some(&first) => {
                let (mut index, mut comma) = (first, false);
                if lbl(&sibs[index - 1]) == "," {
                    index -= 1;
                    comma = true;
                }
                if cc + 2 < index {
                    let mut kids = vec![left];
                    for sib in &sibs[cc + 2..index] {
                        t.children.remove(0);
                        kids.push(sib.clone());
                    }
                    t.children
                        .insert(0, Tree::node(head_tag(&sibs[index - 1]), kids));
                } else {
                    t.children.insert(0, left);
                }
                let start = if comma { 3 } else { 2 };
                let rest: Vec<Tree> = if start < t.children.len() {
                    t.children.drain(start..).collect()
                } else {
                    Vec::new()
                };
                t.children.push(Tree::node("NP", rest));
            }
            None => t.children.insert(0, left),
        }
    } else if cc == 2
        && sibs[0].label.starts_with("DT")
        && lbl(&sibs[cc - 1]) != "NNS"
        && (n == 5 || later_ccs.first() == Some(&5))
    {
        let child = Tree::node(head_tag(&sibs[cc - 1]), sibs[1..cc + 2].to_vec());
        t.children.drain(1..cc + 2);
        t.children.insert(1, child);
    } else if cc > 2 && lbl(&sibs[cc - 2]) == "," && lbl(&sibs[cc - 1]) != "NNS" {
        // "a, b and c": the list joins one phrase, commas and all.
        let mut kids: Vec<Tree> = sibs[cc - 3..cc + 2].to_vec();
        let mut i = cc as isize - 4;
        while i > 0 && lbl(&sibs[i as usize]) == "," {
            kids.insert(0, sibs[i as usize].clone());
            kids.insert(0, sibs[i as usize - 1].clone());
            i -= 2;
        }
        let from = (i.max(-1) + 1) as usize;
        t.children.drain(from..cc + 2);
        t.children
            .insert(from, Tree::node(head_tag(&sibs[cc - 1]), kids));
    } else {
        let first_word = sibs[0]
            .children
            .first()
            .map(|w| w.label.to_lowercase())
            .unwrap_or_default();
        let preconj = matches!(first_word.as_str(), "either" | "neither" | "both");
        let begin = usize::from(preconj);
        let conj = preconj.then(|| Tree::node("CC", vec![sibs[0].children[0].clone()]));
        let comma_left = lbl(&sibs[cc - 1]) == ",";
        let mut left_kids: Vec<Tree> = sibs[begin..cc - 1].to_vec();
        if !comma_left {
            left_kids.push(sibs[cc - 1].clone());
        }
        let left = Tree::node(head_tag(&sibs[cc - 1]), left_kids);
        let next_cc = later_ccs.first().copied().unwrap_or(n);
        let comma_right = lbl(&sibs[next_cc - 1]) == ",";
        let mut right_kids: Vec<Tree> = if cc + 1 < next_cc - 1 {
            sibs[cc + 1..next_cc - 1].to_vec()
        } else {
            Vec::new()
        };
        if !comma_right {
            right_kids.push(sibs[next_cc - 1].clone());
        }
        let right = Tree::node(head_tag(&sibs[next_cc - 1]), right_kids);
        t.children.drain(..next_cc);
        let mut group = Vec::new();
        group.extend(conj);
        if !left.children.is_empty() {
            group.push(left);
        }
        if comma_left {
            group.push(sibs[cc - 1].clone());
        }
        group.push(sibs[cc].clone());
        if !right.children.is_empty() {
            group.push(right);
        }
        if later_ccs.is_empty() {
            t.children.extend(group);
            if comma_right {
                t.children.push(sibs[next_cc - 1].clone());
            }
        } else {
            // Another conjunction follows: the first coordination gets a level of its own.
            if comma_right {
                t.children.insert(0, sibs[next_cc - 1].clone());
            }
            t.children.insert(0, Tree::node("NP", group));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(penn: &str) -> String {
        let mut t = Tree::from_penn(penn).expect("tree");
        cc_transform(&mut t);
        t.penn()
    }

    #[test]
    fn functional_tags_leave_all_but_temporal_and_adverbial_noun_phrases() {
        let mut t = Tree::from_penn(
            "(TOP (S (NP-TMP (NN today)) (PP-TMP (IN in) (NP (NN time))) (VP (VB go))))",
        )
        .expect("tree");
        t = transform(&t);
        assert_eq!(
            t.penn(),
            "(ROOT (S (NP-TMP (NN today)) (PP (IN in) (NP (NN time))) (VP (VB go))))"
        );
    }

    #[test]
    fn flat_coordinations_get_structure() {
        // "a black and white photo": the determiner first, then the coordinated modifiers.
        assert_eq!(
            cc("(ROOT (NP (DT a) (JJ black) (CC and) (JJ white) (NN photo)))"),
            "(ROOT (NP (DT a) (ADJP (JJ black) (CC and) (JJ white)) (NN photo)))"
        );
        // "a man , a woman and a dog" under one NP is left alone: NPs follow the conjunction.
        let kept = "(ROOT (NP (NP (DT a) (NN man)) (, ,) (NP (DT a) (NN woman)) (CC and) (NP (DT a) (NN dog))))";
        assert_eq!(cc(kept), kept);
        // "red and white flowers": the first three children become a phrase.
        assert_eq!(
            cc("(ROOT (NP (JJ red) (CC and) (JJ white) (NNS flowers)))"),
            "(ROOT (NP (ADJP (JJ red) (CC and) (JJ white)) (NNS flowers)))"
        );
    }
}
