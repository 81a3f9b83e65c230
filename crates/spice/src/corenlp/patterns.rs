//! Tree patterns written in Rust: how the converter's relations, head rules and transforms
//! say which nodes they relate, built from nodes and clauses instead of pattern strings.
//!
//! A [`Node`] is a description of one tree node (a label test, optionally a name) with the
//! clauses that must hold of it; a clause relates the node to another [`Node`] ([`Rel`]),
//! negated ([`Node::not`]) or optional ([`Node::maybe`]), or groups alternatives
//! ([`Node::either`]). [`Node::compile`] renders the description in Tregex's notation and
//! compiles it with [`super::tregex`], so what matches and in which order is Tregex's.
//!
//! ```
//! use spice::corenlp::patterns::{node, Rel::*};
//! // a VP whose head child is a verb with a noun phrase somewhere to its right, named `target`
//! let p = node("VP").has(HeadChild, node("/^VB/").has(SisterAfter, node("NP").named("target")));
//! assert!(p.compile().is_ok());
//! ```

use std::fmt::Write as _;

use super::tregex::{Pattern, TregexError};

/// How a clause's node stands to the node it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rel {
    /// The other node is a child (`<`).
    Child,
    /// The other node is the parent (`>`).
    Parent,
    /// The other node is somewhere below (`<<`).
    Dominates,
    /// The other node is somewhere above (`>>`).
    Under,
    /// The other node is the head child (`<#`).
    HeadChild,
    /// The other node is the parent this node heads (`>#`).
    HeadOf,
    /// The other node is on the head path below (`<<#`).
    HeadedBy,
    /// The other node is above, reached along head children (`>>#`).
    HeadsUpTo,
    /// The other node is the child at 1-based position `i`, from the end when negative (`<i`).
    ChildAt(i32),
    /// This node is the `i`-th child of the other (`>i`).
    ChildNumber(i32),
    /// The other node is the only child (`<:`).
    OnlyChild,
    /// This node is the only child of the other (`>:`).
    OnlyChildOf,
    /// The other node lies at the end of a chain of only children (`<<:`).
    UnaryBelow,
    /// A sister on either side (`$`).
    Sister,
    /// A sister somewhere to the right (`$++`).
    SisterAfter,
    /// A sister somewhere to the left (`$--`).
    SisterBefore,
    /// The sister just to the right (`$+`).
    NextSister,
    /// The sister just to the left (`$-`).
    PrevSister,
    /// The other node starts after this one ends (`..`).
    Before,
    /// The other node starts right where this one ends (`.`).
    JustBefore,
    /// The other node ends before this one starts (`,,`).
    After,
    /// The other node ends right where this one starts (`,`).
    JustAfter,
    /// The leftmost descendant line (`<<,`).
    LeftmostBelow,
    /// The rightmost descendant line (`<<-`).
    RightmostBelow,
    /// The other node is this very node (`==`).
    Same,
    /// Below through nodes all matching the label (`<+(L)`).
    DownThrough(&'static str),
    /// Above through nodes all matching the label (`>+(L)`).
    UpThrough(&'static str),
    /// Any node of the tree, tested on its own (` : `).
    Anywhere,
    /// The other node is this very node or a child (`<=`).
    SelfOrChild,
}

impl Rel {
    fn write(&self, out: &mut String) {
        let s = match self {
            Rel::Child => "<",
            Rel::Parent => ">",
            Rel::Dominates => "<<",
            Rel::Under => ">>",
            Rel::HeadChild => "<#",
            Rel::HeadOf => ">#",
            Rel::HeadedBy => "<<#",
            Rel::HeadsUpTo => ">>#",
            Rel::OnlyChild => "<:",
            Rel::OnlyChildOf => ">:",
            Rel::UnaryBelow => "<<:",
            Rel::Sister => "$",
            Rel::SisterAfter => "$++",
            Rel::SisterBefore => "$--",
            Rel::NextSister => "$+",
            Rel::PrevSister => "$-",
            Rel::Before => "..",
            Rel::JustBefore => ".",
            Rel::After => ",,",
            Rel::JustAfter => ",",
            Rel::LeftmostBelow => "<<,",
            Rel::RightmostBelow => "<<-",
            Rel::Same => "==",
            Rel::Anywhere => ":",
            Rel::SelfOrChild => "<=",
            Rel::ChildAt(i) => {
                let _ = write!(out, "<{i}");
                return;
            }
            Rel::ChildNumber(i) => {
                let _ = write!(out, ">{i}");
                return;
            }
            Rel::DownThrough(l) => {
                let _ = write!(out, "<+({l})");
                return;
            }
            Rel::UpThrough(l) => {
                let _ = write!(out, ">+({l})");
                return;
            }
        };
        out.push_str(s);
    }
}

/// A node description with its clauses.
#[derive(Debug, Clone)]
pub struct Node {
    label: Label,
    name: Option<&'static str>,
    clauses: Vec<Clause>,
}

#[derive(Debug, Clone)]
enum Label {
    /// A label test in Tregex's description notation: `NP`, `NP|WHNP`, `/^VB/`, `__`, with
    /// `!` (not) and `@` (basic category) in front.
    Test(String),
    /// The node bound to a name earlier in the pattern (`=name`).
    Same(&'static str),
    /// A node with the same label as the one bound to a name (`~name`).
    Labelled(&'static str),
}

#[derive(Debug, Clone)]
enum Clause {
    Rel {
        mark: Mark,
        rel: Rel,
        node: Node,
    },
    Group {
        mark: Mark,
        alternatives: Vec<Vec<Clause>>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Must,
    Not,
    Maybe,
}

impl Mark {
    fn write(self, out: &mut String) {
        match self {
            Mark::Must => {}
            Mark::Not => out.push('!'),
            Mark::Maybe => out.push('?'),
        }
    }
}

/// A node whose label passes `test` (`NP`, `NP|WHNP`, `/^(?:VB|AUX)/`, `__` for any).
pub fn node(test: impl Into<String>) -> Node {
    Node {
        label: Label::Test(test.into()),
        name: None,
        clauses: Vec::new(),
    }
}

/// Any node.
pub fn any() -> Node {
    node("__")
}

/// The node already bound to `name`.
pub fn same(name: &'static str) -> Node {
    Node {
        label: Label::Same(name),
        name: None,
        clauses: Vec::new(),
    }
}

/// A node labelled as the node already bound to `name`.
pub fn label_of(name: &'static str) -> Node {
    Node {
        label: Label::Labelled(name),
        name: None,
        clauses: Vec::new(),
    }
}

/// A label test for whole words in any case: `words(&["be", "is"])` passes `Be` and `IS`.
/// Each word is a regular expression (`days?`, `Jan\.`).
pub fn words(list: &[&str]) -> String {
    format!("/^(?i:{})$/", list.join("|"))
}

/// One alternative of [`Node::either`]: the clauses that must all hold.
#[derive(Debug, Clone, Default)]
pub struct Clauses(Vec<Clause>);

/// An empty conjunction to start an alternative with.
pub fn all() -> Clauses {
    Clauses::default()
}

impl Clauses {
    pub fn has(mut self, rel: Rel, n: Node) -> Clauses {
        self.0.push(Clause::Rel {
            mark: Mark::Must,
            rel,
            node: n,
        });
        self
    }

    pub fn not(mut self, rel: Rel, n: Node) -> Clauses {
        self.0.push(Clause::Rel {
            mark: Mark::Not,
            rel,
            node: n,
        });
        self
    }

    pub fn maybe(mut self, rel: Rel, n: Node) -> Clauses {
        self.0.push(Clause::Rel {
            mark: Mark::Maybe,
            rel,
            node: n,
        });
        self
    }

    pub fn either(mut self, alternatives: Vec<Clauses>) -> Clauses {
        self.0.push(group(Mark::Must, alternatives));
        self
    }

    pub fn neither(mut self, alternatives: Vec<Clauses>) -> Clauses {
        self.0.push(group(Mark::Not, alternatives));
        self
    }
}

fn group(mark: Mark, alternatives: Vec<Clauses>) -> Clause {
    Clause::Group {
        mark,
        alternatives: alternatives.into_iter().map(|c| c.0).collect(),
    }
}

impl Node {
    /// Binds the node to `name` (`target` for the node a relation relates).
    pub fn named(mut self, name: &'static str) -> Node {
        self.name = Some(name);
        self
    }

    /// Binds the node to `target`.
    pub fn target(self) -> Node {
        self.named("target")
    }

    /// The node must stand in `rel` to a node matching `n`.
    pub fn has(mut self, rel: Rel, n: Node) -> Node {
        self.clauses = Clauses(self.clauses).has(rel, n).0;
        self
    }

    /// No node matching `n` may stand in `rel` to this node.
    pub fn not(mut self, rel: Rel, n: Node) -> Node {
        self.clauses = Clauses(self.clauses).not(rel, n).0;
        self
    }

    /// Binds `n` if a node stands in `rel`, without requiring one.
    pub fn maybe(mut self, rel: Rel, n: Node) -> Node {
        self.clauses = Clauses(self.clauses).maybe(rel, n).0;
        self
    }

    /// At least one of the alternatives must hold (tried in order).
    pub fn either(mut self, alternatives: Vec<Clauses>) -> Node {
        self.clauses.push(group(Mark::Must, alternatives));
        self
    }

    /// None of the alternatives may hold.
    pub fn neither(mut self, alternatives: Vec<Clauses>) -> Node {
        self.clauses.push(group(Mark::Not, alternatives));
        self
    }

    /// The description in Tregex's notation.
    pub fn to_tregex(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    pub fn compile(&self) -> Result<Pattern, TregexError> {
        Pattern::compile(&self.to_tregex())
    }

    fn write(&self, out: &mut String) {
        match &self.label {
            Label::Test(t) => out.push_str(t),
            Label::Same(n) => {
                out.push('=');
                out.push_str(n);
            }
            Label::Labelled(n) => {
                out.push('~');
                out.push_str(n);
            }
        }
        if let Some(n) = self.name {
            out.push('=');
            out.push_str(n);
        }
        write_clauses(&self.clauses, out);
    }
}

fn write_clauses(clauses: &[Clause], out: &mut String) {
    for c in clauses {
        out.push(' ');
        match c {
            Clause::Rel { mark, rel, node } => {
                mark.write(out);
                rel.write(out);
                out.push_str(" (");
                node.write(out);
                out.push(')');
            }
            Clause::Group { mark, alternatives } => {
                mark.write(out);
                out.push('[');
                for (i, alt) in alternatives.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" |");
                    }
                    write_clauses(alt, out);
                }
                out.push_str(" ]");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rel::*;
    use super::*;

    #[test]
    fn renders_and_compiles() {
        let p = node("SQ|SINV")
            .has(
                Child,
                node("/^(?:VB|AUX)/")
                    .target()
                    .has(Child, node(words(&["be", "'s", "Jan\\."]))),
            )
            .not(SisterBefore, node("NP"))
            .either(vec![
                all().has(DownThrough("VP"), node("VBN")),
                all().has(ChildAt(-1), same("target")),
            ]);
        assert_eq!(
            p.to_tregex(),
            "SQ|SINV < (/^(?:VB|AUX)/=target < (/^(?i:be|'s|Jan\\.)$/)) !$-- (NP) \
             [ <+(VP) (VBN) | <-1 (=target) ]"
        );
        p.compile().expect("compiles");
    }

    #[test]
    fn same_structure_as_the_written_form() {
        // Parentheses around a related node change nothing in what is compiled.
        let built = node("VP")
            .has(Child, node("NP").target().not(Child, node("EX")))
            .compile()
            .expect("compiles");
        let written = Pattern::compile("VP < (NP=target !< EX)").expect("compiles");
        assert_eq!(built.structure(), written.structure());
    }
}
