//! The grammatical relations of Universal Dependencies as CoreNLP 3.6.0 finds them in a tree
//! (`UniversalEnglishGrammaticalRelations`): each relation names its parent in the hierarchy
//! (`nsubj` is a `subj` is an `arg` is a `dep`), the labels of the nodes it may govern from,
//! and the patterns whose `target` is the node it relates to such a governor.
//!
//! The patterns are written in our notation ([`super::patterns`]); [`source_order`] lists
//! them as CoreNLP defines them (a parity test compares each with CoreNLP's when a file of
//! CoreNLP's patterns is at hand), [`in_try_order`] as CoreNLP tries them on a node (the order
//! decides which relation reaches a dependent first).

pub mod words;

use std::sync::OnceLock;

use fancy_regex::Regex;

use super::patterns::Node;
use super::tregex::Pattern;

/// A relation as written: compiled by [`Relation::compile`].
pub struct Definition {
    /// The short name (`nsubj`, `nmod:poss`).
    pub name: &'static str,
    /// The relation above it in the hierarchy (`None` for `gov` and `dep`).
    pub parent: Option<&'static str>,
    /// A regular expression the governor's whole label must match; `None` for relations
    /// found by no pattern (`arg`, `subj`, `mod`, ...).
    pub governors: Option<&'static str>,
    /// The patterns, in CoreNLP's order; each binds `target`.
    pub targets: Vec<Node>,
}

/// A relation ready to match.
#[derive(Debug)]
pub struct Relation {
    pub name: &'static str,
    pub parent: Option<&'static str>,
    governors: Option<Regex>,
    pub targets: Vec<Pattern>,
}

impl Relation {
    fn compile(d: &Definition) -> Relation {
        Relation {
            name: d.name,
            parent: d.parent,
            governors: d.governors.map(|g| {
                Regex::new(&format!("^(?:{g})$"))
                    .unwrap_or_else(|e| panic!("relation {}: governors /{g}/: {e}", d.name))
            }),
            targets: d
                .targets
                .iter()
                .map(|n| {
                    n.compile()
                        .unwrap_or_else(|e| panic!("relation {}: {e}", d.name))
                })
                .collect(),
        }
    }

    /// `GrammaticalRelation.isApplicable`: may a node labelled `label` govern by this relation?
    pub fn applies_to(&self, label: &str) -> bool {
        self.governors
            .as_ref()
            .is_some_and(|g| g.is_match(label).unwrap_or(false))
    }
}

/// Every relation with its patterns, in the order of CoreNLP's source.
pub fn source_order() -> Vec<Definition> {
    let mut out = vec![
        Definition {
            name: "gov",
            parent: None,
            governors: None,
            targets: Vec::new(),
        },
        Definition {
            name: "dep",
            parent: None,
            governors: None,
            targets: Vec::new(),
        },
    ];
    out.extend(arguments::definitions());
    out.extend(modifiers::definitions());
    out
}

/// The relations in the order CoreNLP tries them on a node (its `values` list), compiled once.
pub fn in_try_order() -> &'static [Relation] {
    static RELATIONS: OnceLock<Vec<Relation>> = OnceLock::new();
    RELATIONS.get_or_init(|| {
        let defs = source_order();
        TRY_ORDER
            .iter()
            .map(|name| {
                let d = defs
                    .iter()
                    .find(|d| d.name == *name)
                    .unwrap_or_else(|| panic!("relation {name} is not defined"));
                Relation::compile(d)
            })
            .collect()
    })
}

/// The relation named `name`.
pub fn by_name(name: &str) -> Option<&'static Relation> {
    in_try_order().iter().find(|r| r.name == name)
}

/// Is `ancestor` the relation `r` or above it in the hierarchy (`GrammaticalRelation.isAncestor`)?
pub fn is_ancestor(ancestor: &str, r: &str) -> bool {
    let mut cur = Some(r);
    while let Some(name) = cur {
        if name == ancestor {
            return true;
        }
        cur = by_name(name).and_then(|x| x.parent);
    }
    false
}

/// CoreNLP's `values`: the order relations are tried on each node.
const TRY_ORDER: &[&str] = &[
    "gov",
    "dep",
    "pred",
    "aux",
    "auxpass",
    "cop",
    "conj",
    "cc",
    "punct",
    "arg",
    "subj",
    "nsubj",
    "nsubjpass",
    "csubj",
    "csubjpass",
    "comp",
    "obj",
    "dobj",
    "iobj",
    "nmod",
    "ccomp",
    "xcomp",
    "mark",
    "rel",
    "ref",
    "expl",
    "mod",
    "advcl",
    "nmod:tmod",
    "acl:relcl",
    "nummod",
    "amod",
    "compound",
    "appos",
    "acl",
    "advmod",
    "neg",
    "mwe",
    "det",
    "det:predet",
    "cc:preconj",
    "nmod:poss",
    "case",
    "compound:prt",
    "sdep",
    "agent",
    "nmod:npmod",
    "parataxis",
    "discourse",
    "goeswith",
    "list",
    "prep",
];

mod arguments;
mod modifiers;
