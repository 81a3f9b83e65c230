//! SPICE (Anderson et al., ECCV 2016) rebuilt in Rust.
//!
//! **The stages, in order.** This is the one statement of the pipeline; [`Engine::parse`],
//! [`finish_basic`] and [`proposals_of`] run it so, and other docs refer here.
//!
//! | # | stage | module | in → out |
//! |---|---|---|---|
//! | 1 | tokenize, split sentences | [`tokenize`] | text → PTB tokens per sentence |
//! | 2 | tag | [`tag`] | tokens → Penn Treebank tags, as CoreNLP's PCFG tags them |
//! | 3 | parse | [`parse`] | words + tags → basic UD tree, as the PCFG's tree converts |
//! | 4 | lemmatize | [`lemmatize`] | tagged words → CoreNLP Morphology lemmas |
//! | 5 | enhance | [`enhance`] | basic tree → collapsed, CC-processed graph (SPEC §2) |
//! | 6 | clean-up | [`cleanup`] | quantifier expressions, pronouns (SPEC §3) |
//! | 7 | rules | [`rules`] | graph → proposals (SPEC §4) |
//! | 8 | scene graph | [`graph`], [`wordnet`] | proposals of one or more captions → merged graph (SPEC §5) |
//! | 9 | score | [`score`] | candidate and reference graphs → tuples, matches, F (SPEC §6) |
//!
//! Stages 1–5 make [`depgraph::DepGraph`]s as CoreNLP 3.6.0 would: stages 2 and 3 are the built-in
//! tagger and parser (trained on the exact pipeline's analyses), or the exact pipeline itself,
//! CoreNLP's PCFG and UD converter on the user's model ([`corenlp`]). Beside the pipeline,
//! [`batch`] runs the jar's batch evaluation in parallel, [`metrics`] and [`cocoeval`] the
//! classic COCO metrics, [`metaeval`] how well each metric agrees with human judgments, and
//! [`fidelity`] measures us against the official jar's outputs.
//!
//! [`Engine`] is the entry point for callers that want scores from captions or graphs.

pub mod batch;
pub mod cache;
pub mod cleanup;
pub mod cocoeval;
pub mod corenlp;
pub mod depgraph;
pub mod enhance;
pub mod fidelity;
pub mod graph;
pub mod javaorder;
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
    /// Which parser turns captions into dependency graphs.
    pub front_end: FrontEnd,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            use_synsets: true,
            front_end: FrontEnd::BuiltIn,
        }
    }
}

/// The parser in front of the rules: the built-in one, or CoreNLP 3.6.0's PCFG and converter run
/// on the user's model file ([`corenlp`]), which is the official pipeline's.
#[derive(Clone, Copy)]
pub enum FrontEnd {
    BuiltIn,
    CoreNlp(&'static corenlp::PcfgParser),
}

impl FrontEnd {
    /// Loads CoreNLP's English PCFG from `path` (`englishPCFG.ser.gz`, the models jar, or a
    /// directory holding either) once per process.
    pub fn corenlp(path: &std::path::Path) -> Result<FrontEnd, corenlp::ModelError> {
        corenlp::PcfgParser::load_shared(path).map(FrontEnd::CoreNlp)
    }

    /// How outputs name it: `built-in` or `corenlp-3.6.0`.
    pub fn name(&self) -> &'static str {
        match self {
            FrontEnd::BuiltIn => "built-in",
            FrontEnd::CoreNlp(_) => "corenlp-3.6.0",
        }
    }

    /// Which model file it runs, for CoreNLP's ([`corenlp::PcfgParser::fingerprint`]).
    pub fn model_fingerprint(&self) -> Option<&'static str> {
        match self {
            FrontEnd::BuiltIn => None,
            FrontEnd::CoreNlp(p) => Some(p.fingerprint()),
        }
    }
}

impl std::fmt::Debug for FrontEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for FrontEnd {
    fn eq(&self, other: &FrontEnd) -> bool {
        match (self, other) {
            (FrontEnd::BuiltIn, FrontEnd::BuiltIn) => true,
            (FrontEnd::CoreNlp(a), FrontEnd::CoreNlp(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for FrontEnd {}

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

    /// Parses a caption into collapsed, CC-processed dependency graphs, one per sentence: stages
    /// 1–5 of the [crate-level list](crate).
    pub fn parse(&self, caption: &str) -> Result<Vec<DepGraph>, EngineError> {
        match self.options.front_end {
            FrontEnd::BuiltIn => {
                let (tagger, parser) = parse::embedded_models()
                    .map_err(|e| EngineError::Model(format!("tagger or parser: {e}")))?;
                Ok(parse_with(tagger, parser, caption))
            }
            FrontEnd::CoreNlp(parser) => Ok(corenlp::parse_caption(parser, caption)),
        }
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

/// Stages 1–5 of the [crate-level list](crate) with a given tagger and parser (what
/// [`Engine::parse`] does with the embedded ones): the tagger's tags, the parser's tree, the
/// converter's collapsed graph.
pub fn parse_with(tagger: &tag::Tagger, parser: &parse::Parser, caption: &str) -> Vec<DepGraph> {
    let tokens = tokenize::tokenize(caption);
    let mut out = Vec::new();
    for range in tokenize::split_sentences(&tokens) {
        let words: Vec<&str> = tokens[range].iter().map(|t| t.text.as_str()).collect();
        if words.is_empty() {
            continue;
        }
        if words.len() > corenlp::MAX_PARSED_WORDS {
            // Beyond what the official parser can parse: its unparsed analysis, as the exact
            // front end gives it.
            out.push(corenlp::unparsed_graph(&words, out.len()));
            continue;
        }
        let tags = tagger.tag(&words);
        let arcs = parser.parse(&words, &tags);
        let mut g = finish_basic(&words, &tags, &arcs);
        g.sentence = out.len();
        out.push(g);
    }
    out
}

/// Stages 4–5 of the [crate-level list](crate): a basic tree (the tagger's tags, the parser's
/// arcs) to the collapsed, CC-processed graph the rules read.
pub fn finish_basic(words: &[&str], tags: &[&str], arcs: &[(usize, parse::Label)]) -> DepGraph {
    let mut g = parse::to_graph(words, tags, arcs);
    for t in &mut g.tokens {
        t.lemma = lemmatize::lemma(&t.word, &t.tag);
    }
    enhance::enhance(&mut g);
    g
}

/// Proposals of one sentence's collapsed graph: stages 6–7 (clean-up, rules).
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

    /// The official parser cannot parse a sentence past [`corenlp::MAX_PARSED_WORDS`] words (nor
    /// can the exact front end); the built-in front end gives such a sentence the same unparsed
    /// analysis, in which SPICE's rules find nothing. One word fewer, it parses as usual.
    #[test]
    fn a_sentence_longer_than_the_pcfg_parses_gets_its_unparsed_analysis() {
        let engine = Engine::new(EngineOptions::default());
        let caption = |n: usize| {
            let words = ["a", "dog", "runs", "on", "the", "green", "grass", "and"];
            (0..n)
                .map(|i| words[i % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let long = caption(corenlp::MAX_PARSED_WORDS + 1);
        let graphs = engine.parse(&long).expect("embedded models load");
        let words: Vec<&str> = long.split(' ').collect();
        assert_eq!(graphs, vec![corenlp::unparsed_graph(&words, 0)]);
        let g = &graphs[0];
        let last = words.len();
        assert_eq!(g.roots, vec![last]);
        assert_eq!(g.edges().len(), last - 1);
        assert!(g
            .edges()
            .iter()
            .all(|e| e.gov == last && e.rel == crate::depgraph::Rel::named("dep")));
        assert!(g.tokens.iter().all(|t| t.tag == "XX"));
        assert!(proposals_of(g.clone()).is_empty());

        let parsed = engine
            .parse(&caption(corenlp::MAX_PARSED_WORDS))
            .expect("embedded models load");
        assert!(parsed[0].tokens.iter().any(|t| t.tag == "NN"));
        assert!(!proposals_of(parsed[0].clone()).is_empty());
    }
}
