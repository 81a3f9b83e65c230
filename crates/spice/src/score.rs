//! Scene graph -> tuples -> scores (SPEC §6).
//!
//! In: a candidate scene graph and a reference scene graph. Out: true/false positive and false
//! negative counts, precision, recall and F for all tuples and per category, then macro averages
//! over images.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::graph::{Concept, SceneGraph};

/// Tuple categories of the paper's table (the jar's `-subset` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Category {
    Object,
    Attribute,
    Relation,
    Cardinality,
    Color,
    Size,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::Object,
        Category::Attribute,
        Category::Relation,
        Category::Cardinality,
        Category::Color,
        Category::Size,
    ];

    /// The name the jar writes.
    pub fn name(self) -> &'static str {
        match self {
            Category::Object => "Object",
            Category::Attribute => "Attribute",
            Category::Relation => "Relation",
            Category::Cardinality => "Cardinality",
            Category::Color => "Color",
            Category::Size => "Size",
        }
    }

    /// TupleFilter: membership is tested on the attribute concept rendered as text, so a merged
    /// concept ("gray/grey") is in no list.
    pub fn contains(self, t: &Tuple<'_>) -> bool {
        match self {
            Category::Object => t.len() == 1,
            Category::Attribute => t.len() == 2,
            Category::Relation => t.len() == 3,
            Category::Cardinality => t.len() == 2 && attribute_in(t, SMALL_NUMBERS),
            Category::Color => t.len() == 2 && attribute_in(t, COLORS),
            Category::Size => t.len() == 2 && attribute_in(t, SIZES),
        }
    }
}

fn attribute_in(t: &Tuple<'_>, list: &[&str]) -> bool {
    match t.0[1].words() {
        [w] => list.contains(&w.as_str()),
        _ => false,
    }
}

const SMALL_NUMBERS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];

const COLORS: &[&str] = &[
    "black", "brown", "blue", "red", "yellow", "pink", "gray", "grey", "green", "dark", "light",
    "white", "cream", "orange", "purple", "maroon", "beige", "violet",
];

/// The reference's size adjectives (its list also has "overweight"; "long" is not among them).
const SIZES: &[&str] = &[
    "baby",
    "illimitable",
    "scrawny",
    "beefy",
    "immeasurable",
    "short",
    "big",
    "immense",
    "sizable",
    "bony",
    "infinitesimal",
    "skeletal",
    "boundless",
    "lanky",
    "skimpy",
    "brawny",
    "large",
    "skinny",
    "broad",
    "lean",
    "slender",
    "bulky",
    "life-size",
    "slim",
    "chunky",
    "limitless",
    "small",
    "colossal",
    "little",
    "squat",
    "compact",
    "mammoth",
    "stocky",
    "corpulent",
    "massive",
    "stout",
    "cosmic",
    "meager",
    "strapping",
    "cubby",
    "measly",
    "sturdy",
    "curvy",
    "microscopic",
    "tall",
    "elfin",
    "mini",
    "teensy",
    "emaciated",
    "miniature",
    "teeny",
    "endless",
    "minuscule",
    "teeny-tiny",
    "enormous",
    "minute",
    "teeny-weeny",
    "epic",
    "narrow",
    "thick",
    "expansive",
    "obese",
    "thickset",
    "extensive",
    "outsized",
    "thin",
    "fat",
    "oversize",
    "tiny",
    "fleshy",
    "overweight",
    "titanic",
    "full-size",
    "paltry",
    "towering",
    "gargantuan",
    "petite",
    "trifling",
    "gaunt",
    "pint-size",
    "trim",
    "giant",
    "plump",
    "tubby",
    "gigantic",
    "pocket-size",
    "undersized",
    "grand",
    "portly",
    "underweight",
    "great",
    "pudgy",
    "unlimited",
    "heavy",
    "puny",
    "vast",
    "hefty",
    "rotund",
    "wee",
    "huge",
    "scanty",
    "whopping",
    "hulking",
    "scraggy",
    "wide",
];

/// A tuple of a scene graph: (object), (object, attribute) or (source, relation, target).
#[derive(Clone, Debug)]
pub struct Tuple<'g>(pub Vec<&'g Concept>);

impl Tuple<'_> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Same length and similar element by element (SemanticTuple.similarTo).
    pub fn similar_to(&self, other: &Tuple<'_>) -> bool {
        self.len() == other.len() && self.0.iter().zip(&other.0).all(|(a, b)| a.similar_to(b))
    }

    /// Same length and equal element by element (SemanticTuple.matchesTo, for `-noSynsets`).
    pub fn matches(&self, other: &Tuple<'_>) -> bool {
        self.len() == other.len() && self.0.iter().zip(&other.0).all(|(a, b)| a.same_as(b))
    }

    /// The concepts as text, e.g. `["girl", "young"]`.
    pub fn texts(&self) -> Vec<String> {
        self.0.iter().map(|c| c.text()).collect()
    }
}

/// All tuples of a graph, in the reference's (sorted) order.
pub fn tuples(g: &SceneGraph) -> Vec<Tuple<'_>> {
    let mut out = Vec::new();
    for n in &g.nodes {
        out.push(Tuple(vec![&n.object]));
        for a in &n.attributes {
            out.push(Tuple(vec![&n.object, a]));
        }
    }
    for r in &g.relations {
        out.push(Tuple(vec![
            &g.nodes[r.source].object,
            &r.relation,
            &g.nodes[r.target].object,
        ]));
    }
    // Sort keys are computed once per tuple, not once per comparison.
    let mut keyed: Vec<(Vec<ConceptKey<'_>>, Tuple<'_>)> = out
        .into_iter()
        .map(|t| (t.0.iter().map(|c| ConceptKey::of(c)).collect(), t))
        .collect();
    keyed.sort_by(|a, b| compare_keys(&a.0, &b.0));
    keyed.into_iter().map(|(_, t)| t).collect()
}

/// What SemanticConcept.compareTo compares: the words in Java's iteration order, then the
/// synsets.
struct ConceptKey<'g> {
    words: Vec<&'g str>,
    synsets: &'g [u32],
}

impl<'g> ConceptKey<'g> {
    fn of(c: &'g Concept) -> ConceptKey<'g> {
        ConceptKey {
            words: c.java_ordered_words(),
            synsets: c.synsets(),
        }
    }
}

/// Java's `String.compareTo`: UTF-16 code units (bytewise for ASCII).
fn compare_java_strings(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.cmp(b)
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

/// Guava's `lexicographical()` ordering over a sequence, with an element order.
fn lexicographic<T>(a: &[T], b: &[T], cmp: impl Fn(&T, &T) -> Ordering) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match cmp(x, y) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    a.len().cmp(&b.len())
}

fn compare_concept_keys(a: &ConceptKey<'_>, b: &ConceptKey<'_>) -> Ordering {
    lexicographic(&a.words, &b.words, |x, y| compare_java_strings(x, y))
        .then_with(|| a.synsets.cmp(b.synsets))
}

/// SemanticTuple.compareTo (truth values aside): concepts lexicographically.
fn compare_keys(a: &[ConceptKey<'_>], b: &[ConceptKey<'_>]) -> Ordering {
    lexicographic(a, b, compare_concept_keys)
}

/// Counts and ratios for one image and one category (the jar's `Evaluation`).
///
/// Counts are Java `int`s, with Java's arithmetic: a merged reference tuple can match several
/// candidate tuples, so tp can exceed the reference tuples, fn is then negative and recall above 1
/// (the official jar gives fn -2 and recall 2 for "a bathroom with a toilet and a tub and a bath
/// and a toilette and a lavatory" against "a bathroom with a toilet and a bath").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub tp: i32,
    pub fp: i32,
    #[serde(rename = "fn")]
    pub fn_: i32,
    /// Precision; NaN for a category whose references have no tuple.
    pub pr: f64,
    /// Recall; above 1 when fn is negative.
    pub re: f64,
    /// F; above 1 when recall is.
    pub f: f64,
    pub num_images: i32,
}

impl Score {
    /// Precision, recall and F from counts (Evaluation.calcFScore). With `allow_nan`, a score
    /// with no reference tuple is NaN; otherwise undefined ratios are 0.
    pub fn from_counts(tp: i32, fp: i32, fn_: i32, allow_nan: bool) -> Score {
        let mut s = Score {
            tp,
            fp,
            fn_,
            pr: 0.0,
            re: 0.0,
            f: 0.0,
            num_images: 1,
        };
        s.calc(allow_nan);
        s
    }

    fn calc(&mut self, allow_nan: bool) {
        let beta = 1.0f64;
        // Java's int addition: wraps instead of overflowing.
        let ref_n = self.fn_.wrapping_add(self.tp);
        let test_n = self.fp.wrapping_add(self.tp);
        if ref_n > 0 {
            self.re = f64::from(self.tp) / f64::from(ref_n);
            if test_n > 0 {
                self.pr = f64::from(self.tp) / f64::from(test_n);
            }
            if self.pr > 0.0 && self.re > 0.0 {
                self.f =
                    (1.0 + beta * beta) * (self.pr * self.re) / (beta * beta * self.pr + self.re);
            }
        }
        if allow_nan && ref_n == 0 {
            self.f = f64::NAN;
            self.pr = f64::NAN;
            self.re = f64::NAN;
        }
    }

    fn is_nan(&self) -> bool {
        self.f.is_nan() || self.pr.is_nan() || self.re.is_nan()
    }
}

/// A tuple rendered as text with whether it matched (the jar's `-detailed` output).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkedTuple {
    pub tuple: Vec<String>,
    pub truth_value: bool,
}

/// The result of matching one candidate tuple set against one reference tuple set.
#[derive(Clone, Debug)]
pub struct Matching {
    pub score: Score,
    /// Whether each candidate (reference) tuple matched, in the order given.
    pub candidate_truth: Vec<bool>,
    pub reference_truth: Vec<bool>,
}

/// TupleSet.match_similar / match_exact followed by Evaluation: walk the candidate tuples in
/// sorted order; each is true if some reference tuple is similar (or equal, without synonyms).
pub fn match_tuples(
    cand: &[&Tuple<'_>],
    refs: &[&Tuple<'_>],
    allow_nan: bool,
    use_synsets: bool,
) -> Matching {
    let mut candidate_truth = vec![false; cand.len()];
    let mut reference_truth = vec![false; refs.len()];
    let mut tp = 0i32;
    for (i, c) in cand.iter().enumerate() {
        let hit = refs.iter().position(|r| {
            if use_synsets {
                c.similar_to(r)
            } else {
                c.matches(r)
            }
        });
        if let Some(j) = hit {
            candidate_truth[i] = true;
            reference_truth[j] = true;
            tp += 1;
        }
    }
    // Evaluation(TupleSet, TupleSet, ..): sizes minus matches, in Java ints. Several candidate
    // tuples may match the same reference tuple, so fn can be negative.
    let fp = java_int(cand.len()).wrapping_sub(tp);
    let fn_ = java_int(refs.len()).wrapping_sub(tp);
    Matching {
        score: Score::from_counts(tp, fp, fn_, allow_nan),
        candidate_truth,
        reference_truth,
    }
}

/// A collection's size as Java's `int` `size()` gives it (saturated at `Integer.MAX_VALUE`).
fn java_int(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Tuples with truth values, sorted as the jar sorts them after matching: true first, then by
/// tuple. `tuples` is already sorted by tuple, so a stable sort on the truth value is enough.
fn marked(tuples: &[&Tuple<'_>], truth: &[bool]) -> Vec<MarkedTuple> {
    let mut idx: Vec<usize> = (0..tuples.len()).collect();
    idx.sort_by_key(|&i| !truth[i]);
    idx.into_iter()
        .map(|i| MarkedTuple {
            tuple: tuples[i].texts(),
            truth_value: truth[i],
        })
        .collect()
}

/// Scores of one image: all tuples and each category, and (when asked for) the tuples.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ImageScores {
    pub all: Score,
    pub categories: Vec<(Category, Score)>,
    /// Candidate and reference tuples in the jar's `-detailed` order (matched first); empty
    /// unless the tuples were asked for.
    pub candidate_tuples: Vec<MarkedTuple>,
    pub reference_tuples: Vec<MarkedTuple>,
}

impl ImageScores {
    pub fn category(&self, c: Category) -> Option<&Score> {
        self.categories
            .iter()
            .find(|(k, _)| *k == c)
            .map(|(_, s)| s)
    }
}

/// SpiceStats.score: the `All` evaluation plus one per category; with `with_tuples`, also the
/// tuples with their truth values (the jar's `-detailed`).
pub fn score_image(
    candidate: &SceneGraph,
    reference: &SceneGraph,
    use_synsets: bool,
    with_tuples: bool,
) -> ImageScores {
    let ct = tuples(candidate);
    let rt = tuples(reference);
    let ct: Vec<&Tuple<'_>> = ct.iter().collect();
    let rt: Vec<&Tuple<'_>> = rt.iter().collect();
    let all = match_tuples(&ct, &rt, false, use_synsets);
    let categories = Category::ALL
        .iter()
        .map(|&cat| {
            let cf: Vec<&Tuple<'_>> = ct.iter().copied().filter(|t| cat.contains(t)).collect();
            let rf: Vec<&Tuple<'_>> = rt.iter().copied().filter(|t| cat.contains(t)).collect();
            (cat, match_tuples(&cf, &rf, true, use_synsets).score)
        })
        .collect();
    let (candidate_tuples, reference_tuples) = if with_tuples {
        (
            marked(&ct, &all.candidate_truth),
            marked(&rt, &all.reference_truth),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    ImageScores {
        all: all.score,
        categories,
        candidate_tuples,
        reference_tuples,
    }
}

/// Macro average over images (SpiceStats.macroAverage): counts are summed over all images (in
/// Java ints), ratios averaged over the images whose score is not NaN.
pub fn macro_average<'a>(scores: impl IntoIterator<Item = &'a Score>) -> Score {
    let mut r = Score {
        tp: 0,
        fp: 0,
        fn_: 0,
        pr: 0.0,
        re: 0.0,
        f: 0.0,
        num_images: 0,
    };
    let mut n = 0i32;
    for s in scores {
        r.tp = r.tp.wrapping_add(s.tp);
        r.fp = r.fp.wrapping_add(s.fp);
        r.fn_ = r.fn_.wrapping_add(s.fn_);
        if !s.is_nan() {
            r.f += s.f;
            r.pr += s.pr;
            r.re += s.re;
            n += 1;
        }
    }
    if n > 0 {
        r.f /= f64::from(n);
        r.pr /= f64::from(n);
        r.re /= f64::from(n);
        r.num_images = n;
    } else {
        r.f = f64::NAN;
        r.pr = f64::NAN;
        r.re = f64::NAN;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Proposal;
    use crate::wordnet::Lexicon;

    fn lex() -> Lexicon {
        Lexicon::from_entries(
            [
                ("couch".to_string(), vec![1]),
                ("sofa".to_string(), vec![1]),
                ("man".to_string(), vec![2]),
                ("guy".to_string(), vec![2]),
                ("red".to_string(), vec![3]),
            ],
            Vec::<(String, Vec<String>)>::new(),
        )
    }

    fn graph(props: &[Proposal], merging: bool) -> SceneGraph {
        SceneGraph::from_proposals(props, &lex(), merging)
    }

    #[test]
    fn hand_worked_counts() {
        // Candidate "a guy on a red sofa":  (guy) (sofa) (sofa, red) (guy, on, sofa)        = 4
        // Reference "a man on a couch" + "a man sitting": (man) (couch) (man, on, couch) (man, sit) = 4
        let cand = graph(
            &[
                Proposal::object("guy"),
                Proposal::object("sofa"),
                Proposal::attribute("sofa", "red"),
                Proposal::relation("guy", "sofa", "on"),
            ],
            true,
        );
        let refs = graph(
            &[
                Proposal::object("man"),
                Proposal::object("couch"),
                Proposal::relation("man", "couch", "on"),
                Proposal::attribute("man", "sit"),
            ],
            true,
        );
        let s = score_image(&cand, &refs, true, true);
        // guy~man, sofa~couch (synonyms), (guy,on,sofa)~(man,on,couch); (sofa, red) unmatched.
        assert_eq!((s.all.tp, s.all.fp, s.all.fn_), (3, 1, 1));
        assert_eq!(s.all.pr, 0.75);
        assert_eq!(s.all.re, 0.75);
        assert!((s.all.f - 0.75).abs() < 1e-15);
        // Color: the references have no color tuple -> NaN; Relation: 1/1.
        assert!(s.category(Category::Color).is_some_and(|c| c.f.is_nan()));
        let rel = s.category(Category::Relation).copied();
        assert_eq!(rel.map(|r| (r.tp, r.fp, r.fn_)), Some((1, 0, 0)));
        // Matched tuples come first in the detailed listing.
        assert!(s.candidate_tuples[0].truth_value);
        assert!(!s.candidate_tuples[3].truth_value);
        assert_eq!(s.candidate_tuples[3].tuple, ["sofa", "red"]);
    }

    #[test]
    fn without_synsets_only_equal_concepts_match() {
        let cand = graph(&[Proposal::object("guy"), Proposal::object("couch")], false);
        let refs = graph(&[Proposal::object("man"), Proposal::object("couch")], false);
        let s = score_image(&cand, &refs, false, true);
        assert_eq!((s.all.tp, s.all.fp, s.all.fn_), (1, 1, 1));
    }

    #[test]
    fn empty_candidate_scores_zero_not_nan() {
        let cand = graph(&[], true);
        let refs = graph(&[Proposal::object("man")], true);
        let s = score_image(&cand, &refs, true, true);
        assert_eq!((s.all.tp, s.all.fp, s.all.fn_, s.all.f), (0, 0, 1, 0.0));
        // Empty references: All is 0, categories NaN.
        let s = score_image(&refs, &cand, true, true);
        assert_eq!(s.all.f, 0.0);
        assert!(s.category(Category::Object).is_some_and(|c| c.f.is_nan()));
    }

    #[test]
    fn merged_attribute_concepts_are_in_no_category_list() {
        let l = Lexicon::from_entries(
            [("gray".to_string(), vec![7]), ("grey".to_string(), vec![7])],
            Vec::<(String, Vec<String>)>::new(),
        );
        let refs = SceneGraph::from_proposals(
            &[
                Proposal::attribute("cat", "grey"),
                Proposal::attribute("cat", "gray"),
            ],
            &l,
            true,
        );
        let t = tuples(&refs);
        assert_eq!(t[1].texts(), ["cat", "gray/grey"]);
        assert!(!Category::Color.contains(&t[1]));
    }

    #[test]
    fn candidate_tuples_matching_one_merged_reference_tuple_give_negative_fn() {
        // The reference merged "toilet" and "bath" into one concept; each candidate concept is
        // similar to it, so both match it: 2 true positives out of 1 reference tuple. The jar's
        // Evaluation subtracts in Java ints: fn = 1 - 2 = -1, recall = 2 / (fn + tp) = 2.
        let merged = Concept::from_parts(vec!["toilet".into(), "bath".into()], vec![1, 2]);
        let toilet = Concept::from_parts(vec!["toilet".into()], vec![1]);
        let tub = Concept::from_parts(vec!["tub".into()], vec![2]);
        let (r, c1, c2) = (
            Tuple(vec![&merged]),
            Tuple(vec![&toilet]),
            Tuple(vec![&tub]),
        );
        let m = match_tuples(&[&c1, &c2], &[&r], false, true);
        assert_eq!((m.score.tp, m.score.fp, m.score.fn_), (2, 0, -1));
        assert_eq!((m.score.pr, m.score.re), (1.0, 2.0));
        assert_eq!(m.score.f, 4.0 / 3.0);
        assert_eq!(
            (m.candidate_truth, m.reference_truth),
            (vec![true, true], vec![true])
        );
    }

    #[test]
    fn the_official_bathroom_example_scores_as_the_jar_does() {
        // "a bathroom with a toilet and a tub and a bath and a toilette and a lavatory" against
        // "a bathroom with a toilet and a bath", with WordNet's senses in small: A toilet room
        // (bathroom, toilet, toilette, lavatory), B bath room (bathroom, bath), C bathtub (tub,
        // bath), T toilet bowl (toilet, toilette). The candidate keeps two objects, the reference
        // merges all three into one. The jar's output (../shared/corenlp/README.md): All tp 4,
        // fp 0, fn -2, pr 1, re 2, f 4/3; Object and Relation fn -1.
        const A: u32 = 1;
        const B: u32 = 2;
        const C: u32 = 3;
        const T: u32 = 4;
        let l = Lexicon::from_entries(
            [
                ("bathroom", vec![A, B]),
                ("toilet", vec![A, T]),
                ("toilette", vec![A, T]),
                ("lavatory", vec![A]),
                ("bath", vec![B, C]),
                ("tub", vec![C]),
            ]
            .map(|(w, s)| (w.to_string(), s)),
            Vec::<(String, Vec<String>)>::new(),
        );
        let with = |objects: &[&str]| -> Vec<Proposal> {
            objects
                .iter()
                .map(|o| Proposal::relation("bathroom", *o, "with"))
                .collect()
        };
        let cand = SceneGraph::from_proposals(
            &with(&["toilet", "tub", "bath", "toilette", "lavatory"]),
            &l,
            true,
        );
        let refs = SceneGraph::from_proposals(&with(&["toilet", "bath"]), &l, true);
        assert_eq!((tuples(&cand).len(), tuples(&refs).len()), (4, 2));
        let s = score_image(&cand, &refs, true, false);
        let counts = |s: &Score| (s.tp, s.fp, s.fn_);
        assert_eq!(counts(&s.all), (4, 0, -2));
        assert_eq!((s.all.pr, s.all.re, s.all.f), (1.0, 2.0, 4.0 / 3.0));
        for c in [Category::Object, Category::Relation] {
            assert_eq!(s.category(c).map(counts), Some((2, 0, -1)), "{c:?}");
        }
        // Summed over images as the jar sums them, averaged over the defined ones.
        let m = macro_average([&s.all, &Score::from_counts(1, 1, 1, false)]);
        assert_eq!((m.tp, m.fp, m.fn_, m.num_images), (5, 1, -1, 2));
        assert_eq!(m.re, (2.0 + 0.5) / 2.0);
    }

    #[test]
    fn ratios_follow_calc_f_score_whatever_the_counts() {
        // No reference tuple: with NaN allowed every ratio is NaN; without, all stay 0, precision
        // too, although there are candidate tuples (the jar computes precision only when there is
        // a reference tuple).
        let s = Score::from_counts(0, 3, 0, false);
        assert_eq!((s.pr, s.re, s.f), (0.0, 0.0, 0.0));
        assert!(Score::from_counts(0, 3, 0, true).is_nan());
        // No candidate tuple: recall 0, precision 0, F 0.
        let s = Score::from_counts(0, 0, 2, true);
        assert_eq!((s.pr, s.re, s.f), (0.0, 0.0, 0.0));
        // Corpus sums are Java ints too: they wrap rather than fail.
        let big = Score::from_counts(i32::MAX, 0, 0, false);
        let m = macro_average([&big, &Score::from_counts(1, 0, 0, false)]);
        assert_eq!(m.tp, i32::MIN);
    }

    #[test]
    fn macro_average_skips_nan_images_but_sums_counts() {
        let a = Score::from_counts(1, 1, 0, true); // f = 2/3
        let b = Score::from_counts(0, 2, 0, true); // NaN: no reference tuple
        let m = macro_average([&a, &b]);
        assert_eq!((m.tp, m.fp, m.fn_, m.num_images), (1, 3, 0, 1));
        assert!((m.f - 2.0 / 3.0).abs() < 1e-15);
    }
}
