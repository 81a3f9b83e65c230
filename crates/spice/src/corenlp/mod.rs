//! CoreNLP 3.6.0's parsing stage as the official SPICE runs it, on the user's own model file.
//!
//! The files follow a caption through CoreNLP in order:
//!
//! | file | CoreNLP | what |
//! |---|---|---|
//! | [`serial`] | `ObjectInputStream` | the Java serialization stream of the model file |
//! | [`model`] | `LexicalizedParser` | what the parser needs, out of the decoded objects |
//! | [`americanize`] | `AmericanizeFunction` | the model's word function, applied before lookup |
//! | [`lexicon`] | `BaseLexicon`, `EnglishUnknownWordModel` | tags a word may take, log P(word \| tag) |
//! | [`grammar`] | `BinaryGrammar`, `UnaryGrammar` | rules by child and parent, the unary closure |
//! | [`chart`] | `ExhaustivePCFGParser` | CKY and the best tree read back |
//! | [`tree`] | `Debinarizer`, `BoundaryRemover`, `EnglishSubcategoryStripper` | the tree the annotator keeps |
//! | [`tregex`] | `TregexPattern` | tree patterns, as the UD converter's relations and transforms use them |
//! | [`tsurgeon`] | `Tsurgeon` | tree surgery where a pattern matches, as the transforms use it |
//! | [`patterns`] | | the notation our relations and transforms are written in, compiled by [`tregex`] |
//! | [`coordination`] | `CoordinationTransformer` | the tree rearranged before dependencies are read |
//! | [`headfinder`] | `UniversalSemanticHeadFinder` | the head child of every constituent |
//! | [`relations`] | `UniversalEnglishGrammaticalRelations` | the relations, their hierarchy and patterns |
//! | [`structure`] | `GrammaticalStructure`, `UniversalEnglishGrammaticalStructure` | basic dependencies from the tree |
//!
//! [`official`] reads the official pipeline's analyses the tests compare with; [`memo`] keeps what
//! the lexicon and the chart compute once for a word.
//!
//! No JVM is involved and nothing of CoreNLP is part of this repository: the model is read from
//! the file the user points at, and the converter's patterns are written in our own notation.

pub mod americanize;
pub mod bound;
pub mod chart;
pub mod coordination;
pub mod grammar;
pub mod headfinder;
pub mod lexicon;
pub mod memo;
pub mod model;
pub mod official;
pub mod patterns;
pub mod relations;
pub mod serial;
pub mod structure;
pub mod tree;
pub mod tregex;
pub mod tsurgeon;

use std::collections::HashMap;
use std::path::Path;

pub use model::ModelError;
pub use tree::Tree;

/// CoreNLP's English PCFG, ready to parse.
#[derive(Debug)]
pub struct PcfgParser {
    grammar: grammar::Grammar,
    lexicon: lexicon::Lexicon,
    symbols: chart::Symbols,
    americanize: bool,
    fingerprint: String,
    /// The grammar's outside bounds, without potentials (until `fitted` is ready).
    bounds: std::sync::OnceLock<bound::Bounds>,
    /// The bounds with potentials fitted on the first sentences parsed ([`Sample`]).
    fitted: std::sync::OnceLock<bound::Bounds>,
    sample: Sample,
}

/// The first sentences the parser is given, up to [`FIT_SENTENCES`] of at most
/// [`FIT_POSITIONS`] positions, kept (as their taggings) to fit the bounds' potentials on
/// ([`bound::fit_potentials`]): sentences like the ones being parsed get tighter bounds. Which
/// sentences they are changes how much the chart leaves out, never a tree.
#[derive(Default)]
struct Sample {
    sentences: std::sync::Mutex<Vec<bound::Taggings>>,
    taken: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sample").finish_non_exhaustive()
    }
}

/// Sentences sampled before the potentials are fitted, and the most positions they may have
/// (longer ones cost the fit more and tighten the bounds no more, measured).
const FIT_SENTENCES: usize = 500;
const FIT_POSITIONS: usize = 17;

/// Subgradient steps of the fit. It runs once, in the parse call that completes the sample
/// (about 1.4 s, and 0.6 s more for the bounds' table); other threads go on parsing meanwhile.
const FIT_STEPS: usize = 100;

/// Spans with fewer words than this outside them (the boundary included) have outside bounds
/// ([`chart::Chart::with_bounds`]): every span of a sentence up to this many positions, the
/// longer spans of a longer one (rare in captions: on 166 COCO sentences of 24 words and more
/// their bounds leave out a third of the items and 13 % of the time). The bounds' table grows with
/// the cube of it.
const BOUNDED_POSITIONS: usize = 24;

/// The same for the bounds without potentials, which serve only the first sentences, until the
/// fit is done: every thread waits for their table, which at 24 positions takes 0.56 s.
const FIRST_BOUNDED_POSITIONS: usize = 16;

/// The taggings of each word the chart's first pass tries.
const LIKELIEST_TAGS: usize = 2;

impl PcfgParser {
    /// [`PcfgParser::load`] once per process and path: the parser lives as long as the process.
    pub fn load_shared(path: &Path) -> Result<&'static PcfgParser, ModelError> {
        use std::sync::{Mutex, OnceLock};
        static LOADED: OnceLock<Mutex<HashMap<std::path::PathBuf, &'static PcfgParser>>> =
            OnceLock::new();
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(p) = loaded.get(&key) {
            return Ok(p);
        }
        let p: &'static PcfgParser = Box::leak(Box::new(PcfgParser::load(path)?));
        loaded.insert(key, p);
        Ok(p)
    }

    /// Loads the English PCFG from `englishPCFG.ser.gz`, the models jar, or a directory holding
    /// either ([`model::Model::load`]).
    pub fn load(path: &Path) -> Result<PcfgParser, ModelError> {
        PcfgParser::from_model(model::Model::load(path)?).map_err(|e| match e {
            ModelError::Unsupported { what, .. } => ModelError::Unsupported {
                path: path.display().to_string(),
                what,
            },
            other => other,
        })
    }

    pub fn from_model(m: model::Model) -> Result<PcfgParser, ModelError> {
        if m.split_base_np >= 2 || m.split_poss >= 2 {
            return Err(ModelError::Unsupported {
                path: String::new(),
                what: "it splits base NPs or possessives (splitBaseNP / splitPoss 2), whose undoing is not reproduced".into(),
            });
        }
        let state_index: HashMap<&str, u32> = m
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i as u32))
            .collect();
        let missing = |what: &str| ModelError::Unsupported {
            path: String::new(),
            what: format!("it has no state {what}"),
        };
        let mut state_of_tag = Vec::with_capacity(m.tags.len());
        let mut tag_of_state = vec![None; m.states.len()];
        for (t, tag) in m.tags.iter().enumerate() {
            let s = *state_index.get(tag.as_str()).ok_or_else(|| missing(tag))?;
            state_of_tag.push(s);
            tag_of_state[s as usize] = Some(t as u32);
        }
        let goal = *state_index
            .get(m.start_symbol.as_str())
            .ok_or_else(|| missing(&m.start_symbol))?;
        let boundary_tag = m.tags.iter().position(|t| t == ".$$.").map(|t| t as u32);
        let grammar = grammar::Grammar::new(m.states.len(), m.binary, &m.unary);
        if grammar.right_children >= usize::from(u16::MAX) {
            return Err(ModelError::Unsupported {
                path: String::new(),
                what: format!(
                    "its binary rules have {} right children; the chart takes fewer than {}",
                    grammar.right_children,
                    u16::MAX
                ),
            });
        }
        let most_rules = grammar.most_rules_by_left();
        if most_rules >= usize::from(u16::MAX) {
            return Err(ModelError::Unsupported {
                path: String::new(),
                what: format!(
                    "a state is the left child of {most_rules} binary rules; the chart takes fewer than {}",
                    u16::MAX
                ),
            });
        }
        let lexicon = lexicon::Lexicon::new(m.lexicon, &m.words)?;
        Ok(PcfgParser {
            grammar,
            lexicon,
            symbols: chart::Symbols {
                states: m.states,
                tags: m.tags,
                state_of_tag,
                tag_of_state,
                goal,
                boundary_tag,
                closures: chart::lexical_closures(),
            },
            americanize: m.americanize,
            fingerprint: m.fingerprint,
            bounds: std::sync::OnceLock::new(),
            fitted: std::sync::OnceLock::new(),
            sample: Sample::default(),
        })
    }

    /// The model's fingerprint ([`model::Model::fingerprint`]): scores made with different model
    /// files are not the same scores.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The grammar's outside bounds ([`bound::Bounds`]) for the chart: with the fitted
    /// potentials once they are ready, before that without (computed on first use).
    fn bounds(&self) -> &bound::Bounds {
        if let Some(b) = self.fitted.get() {
            return b;
        }
        self.bounds.get_or_init(|| {
            self.make_bounds(vec![0.0; self.grammar.num_states], FIRST_BOUNDED_POSITIONS)
        })
    }

    fn make_bounds(&self, potential: Vec<f32>, positions: usize) -> bound::Bounds {
        let priors = self.lexicon.tag_log_priors();
        let tags: Vec<(u32, f32)> = self
            .symbols
            .state_of_tag
            .iter()
            .enumerate()
            .map(|(t, &s)| (s, priors.get(t).copied().unwrap_or(f32::NEG_INFINITY)))
            .collect();
        let goal = self.symbols.goal;
        bound::Bounds::new(&self.grammar, goal, &tags, positions, potential)
    }

    /// Keeps a sentence's taggings for the sample ([`Sample`]); the call that completes it fits
    /// the potentials and builds the bounds that use them.
    fn observe(&self, taggings: &[Vec<(u32, f32)>]) {
        use std::sync::atomic::Ordering;
        let sample = &self.sample;
        if sample.taken.load(Ordering::Relaxed)
            || taggings.len() > FIT_POSITIONS
            || taggings.iter().any(Vec::is_empty)
        {
            return;
        }
        let sentences = {
            let mut kept = sample.sentences.lock().unwrap_or_else(|e| e.into_inner());
            if sample.taken.load(Ordering::Relaxed) {
                return;
            }
            kept.push(taggings.to_vec());
            if kept.len() < FIT_SENTENCES {
                return;
            }
            sample.taken.store(true, Ordering::Relaxed);
            std::mem::take(&mut *kept)
        };
        let potential = bound::fit_potentials(
            &self.grammar,
            self.symbols.goal,
            &self.symbols.state_of_tag,
            &sentences,
            FIT_STEPS,
        );
        let _ = self
            .fitted
            .set(self.make_bounds(potential, BOUNDED_POSITIONS));
    }

    /// A chart for `words` (as the chart takes them), bounded; its taggings go to the sample.
    fn bounded_chart(&self, words: &[String]) -> Option<chart::Chart<'_>> {
        let chart = self.observed_chart(words)?;
        Some(chart.with_bounds(self.bounds(), LIKELIEST_TAGS))
    }

    /// A chart for `words`, its taggings given to the sample ([`Sample`]).
    fn observed_chart(&self, words: &[String]) -> Option<chart::Chart<'_>> {
        let chart = chart::Chart::new(&self.grammar, &self.lexicon, &self.symbols, words)?;
        self.observe(chart.taggings());
        Some(chart)
    }

    /// The chart of `words` (as the chart takes them: americanized) with its work counted:
    /// `exhaustive` leaves nothing out.
    #[doc(hidden)]
    pub fn parse_measured(
        &self,
        words: &[&str],
        exhaustive: bool,
    ) -> Option<(Option<Tree>, chart::Work)> {
        let words: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
        let chart = if exhaustive {
            chart::Chart::new(&self.grammar, &self.lexicon, &self.symbols, &words)?
        } else {
            self.bounded_chart(&words)?
        };
        Some(chart.parse_counted())
    }

    /// Gives the potentials' sample ([`Sample`]) a sentence (as the chart takes it) without
    /// parsing it, as parsing it would: for a benchmark that counts the chart's own work.
    #[doc(hidden)]
    pub fn sample_sentence(&self, words: &[&str]) {
        let words: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
        self.observed_chart(&words);
    }

    /// Whether the bounds' potentials have been fitted yet ([`Sample`]).
    #[doc(hidden)]
    pub fn potentials_fitted(&self) -> bool {
        self.fitted.get().is_some()
    }

    /// The chart's bounds' limit on the score of any parse of `words` (as the chart takes
    /// them), `None` for a sentence they do not cover ([`bound::Bounds::whole_parse`]).
    #[doc(hidden)]
    pub fn whole_parse_bound(&self, words: &[&str]) -> Option<f32> {
        let words: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
        let chart = chart::Chart::new(&self.grammar, &self.lexicon, &self.symbols, &words)?;
        self.bounds().whole_parse(chart.taggings())
    }

    /// The tree `ParserAnnotator` keeps for a tokenized sentence (tokens as CoreNLP's tokenizer
    /// writes them: `-LRB-`, `` ` ``...).
    pub fn parse(&self, words: &[&str]) -> Tree {
        let shown: Vec<String> = words
            .iter()
            .map(|w| {
                if self.americanize {
                    americanize::americanize(w)
                } else {
                    (*w).to_string()
                }
            })
            .collect();
        let original: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
        match self.bounded_chart(&shown).and_then(chart::Chart::parse) {
            Some(binary) => {
                let mut t = binary.debinarize().strip_subcategories();
                t.set_words(&original);
                t
            }
            None => failed_tree(words),
        }
    }
}

/// `ParserUtils.xTree`: what the annotator keeps for a sentence it could not parse.
fn failed_tree(words: &[&str]) -> Tree {
    let leaves = words
        .iter()
        .map(|w| Tree::node("XX", vec![Tree::leaf(w)]))
        .collect();
    Tree::node("X", leaves)
}

/// A caption through the official pipeline's parsing stage: CoreNLP's tokenizer and sentence
/// splitter ([`crate::tokenize`]), this parser, the UD converter ([`structure`]), lemmas, and
/// CoreNLP's collapsing ([`crate::enhance::enhance_corenlp`]): one collapsed, CC-processed graph
/// per sentence, as SPICE's rules read them.
pub fn parse_caption(parser: &PcfgParser, caption: &str) -> Vec<crate::DepGraph> {
    let heads = headfinder::SemanticHeadFinder::shared();
    let tokens = crate::tokenize::tokenize(caption);
    let mut out = Vec::new();
    for range in crate::tokenize::split_sentences(&tokens) {
        let words: Vec<&str> = tokens[range].iter().map(|t| t.text.as_str()).collect();
        if words.is_empty() {
            continue;
        }
        let tree = parser.parse(&words);
        out.push(tree_graph(&tree, heads, out.len()));
    }
    out
}

/// The longest sentence the chart parses, in words (a cell's split points are the bits of a
/// `u128`); longer ones keep the unparsed `X` tree, as CoreNLP's annotator does when the JVM's
/// heap cannot hold the chart (README, "Long sentences").
pub const MAX_PARSED_WORDS: usize = chart::MAX_POSITIONS - 2;

/// The collapsed graph of a sentence CoreNLP did not parse: the `X` tree through the converter
/// and collapsing, every word an untyped `dep` of the last one, tagged `XX`. SPICE's rules find
/// nothing in it (they start from nouns and typed relations). The built-in front end gives it to
/// sentences longer than [`MAX_PARSED_WORDS`] too.
pub fn unparsed_graph(words: &[&str], sentence: usize) -> crate::DepGraph {
    tree_graph(
        &failed_tree(words),
        headfinder::SemanticHeadFinder::shared(),
        sentence,
    )
}

/// A tree through the UD converter, our lemmas and CoreNLP's collapsing.
fn tree_graph(
    tree: &Tree,
    heads: &headfinder::SemanticHeadFinder,
    sentence: usize,
) -> crate::DepGraph {
    let (words, deps) = structure::basic_dependencies(tree, heads);
    let mut g = basic_graph(&words, &deps, None);
    crate::enhance::enhance_corenlp(&mut g, sentence);
    g
}

/// The basic dependencies as a [`crate::DepGraph`]: words with their tags and lemmas (ours, or
/// the given ones), one edge per dependency, the root word as the graph's root.
pub fn basic_graph(
    words: &[structure::Word],
    deps: &[structure::Dependency],
    lemmas: Option<&[String]>,
) -> crate::DepGraph {
    let tokens = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let lemma = match lemmas {
                Some(l) => l[i].clone(),
                None => crate::lemmatize::lemma(&w.word, &w.tag),
            };
            crate::Token::new(&w.word, lemma, &w.tag)
        })
        .collect();
    let mut g = crate::DepGraph::new(tokens);
    for d in deps {
        if d.gov == 0 {
            g.roots.push(d.dep);
        } else {
            g.add_edge(d.gov, d.dep, crate::depgraph::Rel::named(&d.rel));
        }
    }
    g
}
