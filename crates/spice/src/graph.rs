//! Proposals -> scene graph (SPEC §5).
//!
//! In: the proposals of the rules stage ((object), (object, attribute), (subject, object,
//! relation)), for one candidate caption or for all reference captions of an image. Out: a
//! [`SceneGraph`] of object nodes with attribute concepts and relation edges, where synonymous
//! concepts have been merged (unless merging is off, as with the jar's `-noSynsets`).
//!
//! The official implementation keeps nodes, attributes and relations in Java hash containers keyed
//! by identity, so when several existing nodes are equally similar to a new concept it picks one
//! at random. We pick the earliest, which makes every result deterministic.

use serde::{Deserialize, Serialize};

use crate::javaorder;
use crate::wordnet::{Lexicon, Synsets};

/// A word or phrase (or several merged ones) with its WordNet synsets.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Concept {
    /// Words in the order they joined the concept.
    words: Vec<String>,
    /// Sorted, unique.
    synsets: Synsets,
}

impl Concept {
    /// A concept of one word, with its synsets looked up (SceneGraph.getSynSets).
    pub fn new(word: &str, lexicon: &Lexicon) -> Concept {
        Concept {
            words: vec![word.to_string()],
            synsets: lexicon.concept_synsets(word),
        }
    }

    /// A concept from parts (tests, stored graphs).
    pub fn from_parts(words: Vec<String>, mut synsets: Synsets) -> Concept {
        synsets.sort_unstable();
        synsets.dedup();
        let mut unique: Vec<String> = Vec::with_capacity(words.len());
        for w in words {
            if !unique.contains(&w) {
                unique.push(w);
            }
        }
        Concept {
            words: unique,
            synsets,
        }
    }

    pub fn words(&self) -> &[String] {
        &self.words
    }

    pub fn synsets(&self) -> &[u32] {
        &self.synsets
    }

    /// Same words and same synsets (as sets).
    pub fn same_as(&self, other: &Concept) -> bool {
        self.synsets == other.synsets
            && self.words.len() == other.words.len()
            && self.words.iter().all(|w| other.words.contains(w))
    }

    fn shares_word(&self, other: &Concept) -> bool {
        self.words.iter().any(|w| other.words.contains(w))
    }

    /// Similar: the concepts share a synset or a word (SemanticConcept.similarTo).
    pub fn similar_to(&self, other: &Concept) -> bool {
        sorted_intersect(&self.synsets, &other.synsets) || self.shares_word(other)
    }

    /// 1 if the words intersect, else |synsets ∩| / |synsets ∪| in single precision, as the
    /// reference computes it; NaN when neither has a synset (never "greater than" anything).
    pub fn similarity(&self, other: &Concept) -> f32 {
        if self.shares_word(other) {
            return 1.0;
        }
        let inter = sorted_intersection_len(&self.synsets, &other.synsets);
        let union = self.synsets.len() + other.synsets.len() - inter;
        inter as f32 / union as f32
    }

    /// Union of words and synsets.
    pub fn merge(&mut self, other: &Concept) {
        for w in &other.java_ordered_words() {
            if !self.words.iter().any(|x| x == w) {
                self.words.push((*w).to_string());
            }
        }
        let mut s = std::mem::take(&mut self.synsets);
        s.extend_from_slice(&other.synsets);
        s.sort_unstable();
        s.dedup();
        self.synsets = s;
    }

    /// Words in the order the reference iterates its `HashSet<String>`, which is the order it
    /// prints them in.
    pub fn java_ordered_words(&self) -> Vec<&str> {
        javaorder::hash_set_order(&self.words)
    }

    /// The concept as text: words joined by "/" (SemanticConcept.toString).
    pub fn text(&self) -> String {
        self.java_ordered_words().join("/")
    }
}

pub(crate) fn sorted_intersect(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

fn sorted_intersection_len(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// An object node with its attributes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Node {
    pub object: Concept,
    pub attributes: Vec<Concept>,
}

impl Node {
    fn has_attribute(&self, c: &Concept) -> bool {
        self.attributes.iter().any(|a| a.same_as(c))
    }

    /// SceneGraphNode.mergeAttribute: skip an equal concept, else merge into the first similar
    /// attribute, else add.
    fn merge_attribute(&mut self, c: &Concept) {
        if self.has_attribute(c) {
            return;
        }
        match self.attributes.iter_mut().find(|a| c.similar_to(a)) {
            Some(a) => a.merge(c),
            None => self.attributes.push(c.clone()),
        }
    }

    fn add_attribute(&mut self, c: Concept) {
        if !self.has_attribute(&c) {
            self.attributes.push(c);
        }
    }
}

/// A relation edge between two nodes (indices into [`SceneGraph::nodes`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Relation {
    pub source: usize,
    pub target: usize,
    pub relation: Concept,
}

/// A proposal from the rules stage: 1, 2 or 3 strings; a relation comes last (SPEC §4).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Proposal(pub Vec<String>);

impl Proposal {
    pub fn object(o: impl Into<String>) -> Proposal {
        Proposal(vec![o.into()])
    }
    pub fn attribute(o: impl Into<String>, a: impl Into<String>) -> Proposal {
        Proposal(vec![o.into(), a.into()])
    }
    /// (subject, object, relation): the order the rules produce.
    pub fn relation(s: impl Into<String>, o: impl Into<String>, r: impl Into<String>) -> Proposal {
        Proposal(vec![s.into(), o.into(), r.into()])
    }
}

/// A scene graph: nodes with attributes, and relations.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SceneGraph {
    pub nodes: Vec<Node>,
    pub relations: Vec<Relation>,
    /// Whether similar concepts merge (off with `-noSynsets`).
    pub merging: bool,
}

impl SceneGraph {
    pub fn new(merging: bool) -> SceneGraph {
        SceneGraph {
            nodes: Vec::new(),
            relations: Vec::new(),
            merging,
        }
    }

    /// Builds one graph from proposals (all reference captions of an image go into one graph).
    pub fn from_proposals<'a>(
        proposals: impl IntoIterator<Item = &'a Proposal>,
        lexicon: &Lexicon,
        merging: bool,
    ) -> SceneGraph {
        let mut g = SceneGraph::new(merging);
        for p in proposals {
            g.add_proposal(p, lexicon);
        }
        g
    }

    /// SceneGraph.addTuple.
    pub fn add_proposal(&mut self, p: &Proposal, lexicon: &Lexicon) {
        match p.0.as_slice() {
            [o] => {
                self.get_or_add_node(Concept::new(o, lexicon));
            }
            [o, a] => {
                let n = self.get_or_add_node(Concept::new(o, lexicon));
                let c = Concept::new(a, lexicon);
                if self.merging {
                    self.nodes[n].merge_attribute(&c);
                } else {
                    self.nodes[n].add_attribute(c);
                }
            }
            [s, o, r] => {
                let s = self.get_or_add_node(Concept::new(s, lexicon));
                let t = self.get_or_add_node(Concept::new(o, lexicon));
                let word = r.strip_prefix("be ").unwrap_or(r);
                self.add_relation(s, t, Concept::new(word, lexicon));
            }
            _ => {}
        }
    }

    /// SceneGraph.getOrAddNode: reuse an equal node, else merge into the most similar one (first
    /// of the best), else add a node.
    fn get_or_add_node(&mut self, c: Concept) -> usize {
        let mut best: Option<usize> = None;
        let mut best_sim = 0.0f32;
        for (i, n) in self.nodes.iter().enumerate() {
            if c.same_as(&n.object) {
                return i;
            }
            let sim = c.similarity(&n.object);
            if sim > best_sim {
                best_sim = sim;
                best = Some(i);
            }
        }
        if let (true, Some(i)) = (self.merging, best) {
            // SceneGraphNode.merge: the new node has no attributes yet, so only the object merges.
            self.nodes[i].object.merge(&c);
            return i;
        }
        self.nodes.push(Node {
            object: c,
            attributes: Vec::new(),
        });
        self.nodes.len() - 1
    }

    fn add_relation(&mut self, source: usize, target: usize, c: Concept) {
        let same_ends = |r: &&mut Relation| r.source == source && r.target == target;
        if self
            .relations
            .iter_mut()
            .filter(same_ends)
            .any(|r| r.relation.same_as(&c))
        {
            return;
        }
        if self.merging {
            if let Some(r) = self
                .relations
                .iter_mut()
                .filter(same_ends)
                .find(|r| c.similar_to(&r.relation))
            {
                r.relation.merge(&c);
                return;
            }
        }
        self.relations.push(Relation {
            source,
            target,
            relation: c,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lexicon where "couch" and "sofa" share synset 1, "man" and "guy" share 2, "sit" has 3.
    fn lex() -> Lexicon {
        Lexicon::from_entries(
            [
                ("couch".to_string(), vec![1]),
                ("sofa".to_string(), vec![1, 9]),
                ("man".to_string(), vec![2, 4]),
                ("guy".to_string(), vec![2]),
                ("sit".to_string(), vec![3]),
                ("sit_on".to_string(), vec![5]),
                ("red".to_string(), vec![6]),
                ("ruddy".to_string(), vec![6]),
            ],
            Vec::<(String, Vec<String>)>::new(),
        )
    }

    fn words(c: &Concept) -> Vec<&str> {
        c.words().iter().map(String::as_str).collect()
    }

    #[test]
    fn synonyms_merge_into_one_node() {
        // References "a man on a couch" and "a guy on a sofa": two nodes, not four.
        let props = [
            Proposal::object("man"),
            Proposal::object("couch"),
            Proposal::relation("man", "couch", "on"),
            Proposal::object("guy"),
            Proposal::object("sofa"),
            Proposal::relation("guy", "sofa", "on"),
        ];
        let g = SceneGraph::from_proposals(&props, &lex(), true);
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(words(&g.nodes[0].object), ["man", "guy"]);
        assert_eq!(words(&g.nodes[1].object), ["couch", "sofa"]);
        // The second "on" relation is an exact duplicate once the ends merged.
        assert_eq!(g.relations.len(), 1);
    }

    #[test]
    fn no_merging_keeps_synonyms_apart() {
        let props = [Proposal::object("couch"), Proposal::object("sofa")];
        let g = SceneGraph::from_proposals(&props, &lex(), false);
        assert_eq!(g.nodes.len(), 2);
    }

    #[test]
    fn attributes_merge_by_synonym_and_relations_drop_leading_be() {
        let props = [
            Proposal::attribute("couch", "red"),
            Proposal::attribute("couch", "ruddy"),
            Proposal::relation("man", "couch", "be on"),
            Proposal::relation("man", "couch", "on"),
        ];
        let g = SceneGraph::from_proposals(&props, &lex(), true);
        assert_eq!(g.nodes[0].attributes.len(), 1);
        assert_eq!(words(&g.nodes[0].attributes[0]), ["red", "ruddy"]);
        // "be on" became "on", so the second is an exact duplicate.
        assert_eq!(g.relations.len(), 1);
        assert_eq!(words(&g.relations[0].relation), ["on"]);
    }

    #[test]
    fn most_similar_node_wins_and_unrelated_words_stay_apart() {
        // "sofa" {1,9}: similarity to "couch" {1} is 1/2, to "man" 0: merges into couch.
        let props = [
            Proposal::object("man"),
            Proposal::object("couch"),
            Proposal::object("sofa"),
            Proposal::object("dog"),
        ];
        let g = SceneGraph::from_proposals(&props, &lex(), true);
        assert_eq!(g.nodes.len(), 3);
        assert_eq!(words(&g.nodes[1].object), ["couch", "sofa"]);
        // "dog" has no synsets here: similarity is NaN, never above 0, so it gets its own node.
        assert_eq!(words(&g.nodes[2].object), ["dog"]);
    }
}
