//! SPICE (Anderson et al., ECCV 2016) rebuilt in Rust.
//!
//! The modules follow one caption from text to F-score, in order: [`tokenize`], [`tag`],
//! [`parse`], [`lemmatize`], [`enhance`] and [`habits`] turn text into [`depgraph::DepGraph`]s as
//! CoreNLP 3.6.0 would (SPEC §2); [`cleanup`] prepares them (§3); [`rules`] turns them into
//! proposals (§4); [`graph`] builds scene graphs with [`wordnet`] synonyms (§5); [`score`]
//! matches tuples and averages (§6). [`batch`] runs the jar's batch evaluation in parallel,
//! [`metrics`] and [`cocoeval`] the classic COCO metrics, [`metaeval`] how well each metric
//! agrees with human judgments, and [`fidelity`] measures us against the official jar's outputs.
//!
//! [`Engine`] is the entry point for callers that want scores from captions or graphs.

pub mod batch;
pub mod cleanup;
pub mod cocoeval;
pub mod depgraph;
pub mod enhance;
pub mod fidelity;
pub mod graph;
pub mod habits;
mod javaorder;
pub mod lemmatize;
pub mod metaeval;
pub mod metrics;
pub mod parse;
pub mod perceptron;
pub mod rules;
pub mod score;
pub mod tag;
pub mod tokenize;
pub mod wordnet;

pub use depgraph::{DepGraph, Edge, Token};
pub use graph::{Concept, Proposal, SceneGraph};
pub use score::{Category, ImageScores, MarkedTuple, Score};

use wordnet::Lexicon;

/// What can go wrong between a caption and its scene graph.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// An embedded model failed to load: a defect of the build, not of the input.
    #[error("the embedded {0}")]
    Model(String),
}

/// Options that change scores, as the jar's flags do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOptions {
    /// Synonym matching and merging (off = the jar's `-noSynsets`).
    pub use_synsets: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { use_synsets: true }
    }
}

/// The scoring engine: cheap to create, `Send + Sync`, shareable across threads. The models and
/// the lexicon are loaded on first use, once per process.
#[derive(Debug, Clone, Copy)]
pub struct Engine {
    options: EngineOptions,
}

impl Engine {
    pub fn new(options: EngineOptions) -> Engine {
        Engine { options }
    }

    pub fn options(&self) -> EngineOptions {
        self.options
    }

    pub fn lexicon(&self) -> &'static Lexicon {
        Lexicon::embedded()
    }

    /// Proposals of one caption given as parsed sentences (collapsed, CC-processed UD graphs):
    /// clean-up then rules, sentence by sentence.
    pub fn graph_proposals(&self, sentences: &[DepGraph]) -> Vec<Proposal> {
        sentences
            .iter()
            .flat_map(|g| sentence_proposals(g.clone()))
            .collect()
    }

    /// Parses a caption into collapsed, CC-processed dependency graphs, one per sentence:
    /// tokenize, split sentences, tag, parse (basic UD), lemmatize, enhance, habits.
    pub fn parse(&self, caption: &str) -> Result<Vec<DepGraph>, EngineError> {
        let (tagger, parser) = parse::embedded_models()
            .map_err(|e| EngineError::Model(format!("tagger or parser: {e}")))?;
        let tokens = tokenize::tokenize(caption);
        let mut out = Vec::new();
        for range in tokenize::split_sentences(&tokens) {
            let words: Vec<&str> = tokens[range].iter().map(|t| t.text.as_str()).collect();
            if words.is_empty() {
                continue;
            }
            let form = tokenize::Form::of(&words);
            let tags = tag::tag_sentence(tagger, &words);
            let shown = parse::parser_tags(&words, &tags);
            let arcs = parser.parse_form(&words, &shown, form);
            out.push(finish_basic(&words, &tags, &arcs));
        }
        Ok(out)
    }

    /// Proposals of one caption given as text.
    pub fn caption_proposals(&self, caption: &str) -> Result<Vec<Proposal>, EngineError> {
        Ok(self
            .parse(caption)?
            .into_iter()
            .flat_map(sentence_proposals)
            .collect())
    }

    /// One scene graph from the proposals of several captions (the references of an image) or of
    /// one (a candidate).
    pub fn scene_graph_from_proposals<'a>(
        &self,
        captions: impl IntoIterator<Item = &'a [Proposal]>,
    ) -> SceneGraph {
        SceneGraph::from_proposals(
            captions.into_iter().flatten(),
            self.lexicon(),
            self.options.use_synsets,
        )
    }

    /// One scene graph from caption texts.
    pub fn scene_graph(&self, captions: &[&str]) -> Result<SceneGraph, EngineError> {
        let proposals = captions
            .iter()
            .map(|c| self.caption_proposals(c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.scene_graph_from_proposals(proposals.iter().map(Vec::as_slice)))
    }

    /// Scores a candidate graph against a reference graph, with the tuples and whether each
    /// matched (what a per-image page shows).
    pub fn score(&self, candidate: &SceneGraph, reference: &SceneGraph) -> ImageScores {
        score::score_image(candidate, reference, self.options.use_synsets, true)
    }

    /// Scores only: counts and ratios, without the tuple listing.
    pub fn score_counts(&self, candidate: &SceneGraph, reference: &SceneGraph) -> ImageScores {
        score::score_image(candidate, reference, self.options.use_synsets, false)
    }
}

/// The stages after the parser: a basic tree (the tagger's tags, the parser's arcs) to the
/// collapsed, CC-processed graph the rules read: lemmas, the basic-tree habits, enhancement, the
/// enhanced-graph habits.
pub fn finish_basic(words: &[&str], tags: &[&str], arcs: &[(usize, parse::Label)]) -> DepGraph {
    let mut g = parse::to_graph(words, tags, arcs);
    for t in &mut g.tokens {
        t.lemma = lemmatize::lemma(&t.word, &t.tag);
    }
    habits::apply_basic(&mut g);
    enhance::enhance(&mut g);
    habits::apply(&mut g);
    g
}

/// Proposals of one sentence's collapsed graph: clean-up then rules.
pub fn proposals_of(g: DepGraph) -> Vec<Proposal> {
    sentence_proposals(g)
}

/// Clean-up then rules on one sentence's graph.
fn sentence_proposals(mut g: DepGraph) -> Vec<Proposal> {
    cleanup::clean(&mut g);
    rules::proposals(&g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parser_tags;

    #[test]
    fn parser_sees_while_as_adverb_and_graph_keeps_preposition() {
        let words = ["A", "cat", "sleeps", "While", "a", "dog", "barks", "."];
        let tags = ["DT", "NN", "VBZ", "IN", "DT", "NN", "VBZ", "."];
        assert_eq!(
            parser_tags(&words, &tags),
            ["DT", "NN", "VBZ", "RB", "DT", "NN", "VBZ", "."]
        );
        // Only the preposition reading is shown as an adverb; "as" keeps `IN`.
        assert_eq!(parser_tags(&["as", "while"], &["IN", "NN"]), ["IN", "NN"]);
        let g = Engine::new(EngineOptions::default())
            .parse("a cat sleeps while a dog barks .")
            .expect("embedded models load");
        let while_tag = g[0]
            .tokens
            .iter()
            .find(|t| t.word == "while")
            .map(|t| t.tag.as_str());
        assert_eq!(while_tag, Some("IN"));
    }
}
