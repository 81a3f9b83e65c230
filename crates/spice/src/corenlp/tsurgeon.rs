//! Tree surgery as CoreNLP's Tsurgeon does it (`edu.stanford.nlp.trees.tregex.tsurgeon`): a
//! pattern is matched, an operation rewrites the tree at the matched nodes, and matching starts
//! again from the top until the pattern no longer matches (`Tsurgeon.processPattern`).
//!
//! The tree being rewritten lives in a [`Surgery`], where nodes keep their identity while
//! operations move them about (Tsurgeon's operations hold Java object references, and a
//! script of several operations refers to nodes the earlier ones moved). For each round of
//! matching it is written out as a [`Tree`] whose preorder ids map back to the nodes.

use super::tree::Tree;
use super::tregex::{HeadFinder, Pattern, TreeView};

/// A node of a [`Surgery`].
pub type Node = usize;

/// A tree under surgery.
#[derive(Debug, Clone)]
pub struct Surgery {
    label: Vec<String>,
    children: Vec<Vec<Node>>,
    parent: Vec<Option<Node>>,
    root: Node,
    /// The tree as last written out ([`Surgery::tree`]), until an operation changes it: a
    /// script matches many patterns that do not match, each on the same tree.
    written: Option<(Tree, Vec<Node>)>,
}

/// The nodes a match bound, by name.
pub struct Bound {
    names: Vec<(String, Node)>,
}

impl Bound {
    /// The node bound to `name`, if the match bound one.
    pub fn get(&self, name: &str) -> Option<Node> {
        self.names
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, id)| id)
    }

    /// The node bound to `name`; the script's pattern always binds it.
    pub fn node(&self, name: &str) -> Node {
        self.get(name)
            .unwrap_or_else(|| panic!("the pattern binds no node {name}"))
    }
}

/// Where [`Surgery::move_to`] puts a node.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// Just right of this node (`$- node`).
    RightOf(Node),
    /// As the first child of this node (`>0 node`, `>1 node`).
    FirstChildOf(Node),
}

impl Surgery {
    pub fn new(tree: &Tree) -> Surgery {
        let mut s = Surgery {
            label: Vec::new(),
            children: Vec::new(),
            parent: Vec::new(),
            root: 0,
            written: None,
        };
        s.root = s.add(tree, None);
        s
    }

    fn add(&mut self, t: &Tree, parent: Option<Node>) -> Node {
        let id = self.label.len();
        self.label.push(t.label.clone());
        self.children.push(Vec::new());
        self.parent.push(parent);
        let kids: Vec<Node> = t.children.iter().map(|c| self.add(c, Some(id))).collect();
        self.children[id] = kids;
        id
    }

    fn new_node(&mut self, label: &str, kids: Vec<Node>, parent: Option<Node>) -> Node {
        self.written = None;
        let id = self.label.len();
        for &k in &kids {
            self.parent[k] = Some(id);
        }
        self.label.push(label.to_string());
        self.children.push(kids);
        self.parent.push(parent);
        id
    }

    /// The tree as it now stands, with the node behind each preorder id.
    pub fn tree(&self) -> (Tree, Vec<Node>) {
        let mut order = Vec::new();
        let t = self.write(self.root, &mut order);
        (t, order)
    }

    fn write(&self, n: Node, order: &mut Vec<Node>) -> Tree {
        order.push(n);
        Tree {
            label: self.label[n].clone(),
            children: self.children[n]
                .iter()
                .map(|&c| self.write(c, order))
                .collect(),
        }
    }

    pub fn into_tree(self) -> Tree {
        match self.written {
            Some((tree, _)) => tree,
            None => self.tree().0,
        }
    }

    pub fn label(&self, n: Node) -> &str {
        &self.label[n]
    }

    pub fn children(&self, n: Node) -> &[Node] {
        &self.children[n]
    }

    pub fn parent(&self, n: Node) -> Option<Node> {
        self.parent[n]
    }

    fn index_in_parent(&self, n: Node) -> (Node, usize) {
        let p = self.parent[n].expect("a node with a parent");
        let i = self.children[p]
            .iter()
            .position(|&c| c == n)
            .expect("a child of its parent");
        (p, i)
    }

    /// `relabel node LABEL`.
    pub fn relabel(&mut self, n: Node, label: &str) {
        self.written = None;
        self.label[n] = label.to_string();
    }

    /// `createSubtree LABEL start end`: the siblings from `start` to `end` (inclusive, either
    /// order) go under a new node labelled `label` standing where they stood.
    pub fn create_subtree(&mut self, label: &str, start: Node, end: Node) -> Node {
        let (p, i) = self.index_in_parent(start);
        let (q, j) = self.index_in_parent(end);
        assert_eq!(p, q, "createSubtree: the nodes are not sisters");
        let (a, b) = (i.min(j), i.max(j));
        let inner: Vec<Node> = self.children[p].drain(a..=b).collect();
        let id = self.new_node(label, inner, Some(p));
        self.children[p].insert(a, id);
        id
    }

    /// `move node PLACE`: the node leaves its parent and is put at `place`.
    pub fn move_to(&mut self, n: Node, place: Place) {
        self.written = None;
        let (p, i) = self.index_in_parent(n);
        self.children[p].remove(i);
        match place {
            Place::RightOf(s) => {
                let (q, k) = self.index_in_parent(s);
                self.children[q].insert(k + 1, n);
                self.parent[n] = Some(q);
            }
            Place::FirstChildOf(q) => {
                self.children[q].insert(0, n);
                self.parent[n] = Some(q);
            }
        }
    }

    /// `excise top bottom`: `top` is replaced by `bottom`'s children (`excise x x` removes the
    /// node `x`, its children taking its place). Excising the root leaves its only child as the
    /// root (`false` if it has several: Tsurgeon then has no tree).
    pub fn excise(&mut self, top: Node, bottom: Node) -> bool {
        self.written = None;
        let kids = self.children[bottom].clone();
        if top == self.root {
            if kids.len() == 1 {
                self.root = kids[0];
                self.parent[kids[0]] = None;
                return true;
            }
            return false;
        }
        let (p, i) = self.index_in_parent(top);
        self.children[p].remove(i);
        for (k, &c) in kids.iter().enumerate() {
            self.children[p].insert(i + k, c);
            self.parent[c] = Some(p);
        }
        true
    }

    /// `delete node`: the node goes with everything under it (its parent stays, even left
    /// without children). `false` when the node is the root: Tsurgeon then has no tree.
    pub fn delete(&mut self, n: Node) -> bool {
        self.written = None;
        if n == self.root {
            return false;
        }
        let (p, i) = self.index_in_parent(n);
        self.children[p].remove(i);
        true
    }

    /// `Tsurgeon.processPattern`: while `pattern` matches (the first match in preorder), run
    /// `operation` on what it bound, then match again on the new tree. `operation` returns
    /// `false` when it left no tree (the rest of the tree is then as it was left).
    pub fn apply(
        &mut self,
        pattern: &Pattern,
        heads: &dyn HeadFinder,
        mut operation: impl FnMut(&mut Surgery, &Bound) -> bool,
    ) {
        loop {
            let (tree, order) = self.written.take().unwrap_or_else(|| self.tree());
            let hit = {
                let view = TreeView::new(&tree);
                let mut m = pattern.matcher(&view, heads);
                m.find().map(|hit| Bound {
                    names: hit
                        .bindings()
                        .map(|(name, id)| (name.to_string(), order[id]))
                        .collect(),
                })
            };
            let Some(bound) = hit else {
                self.written = Some((tree, order));
                return;
            };
            if !operation(self, &bound) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn penn(s: &str) -> Tree {
        Tree::from_penn(s).expect("tree")
    }

    #[test]
    fn create_move_excise_delete() {
        let mut s = Surgery::new(&penn("(ROOT (X (A a) (B b) (C c) (D (E e))))"));
        let (_, order) = s.tree();
        let (a, b, c, d, e) = (order[2], order[4], order[6], order[8], order[9]);
        let mwe = s.create_subtree("MWE", a, b);
        s.move_to(c, Place::RightOf(b));
        assert_eq!(
            s.tree().0.penn(),
            "(ROOT (X (MWE (A a) (B b) (C c)) (D (E e))))"
        );
        assert!(s.excise(d, d));
        s.move_to(e, Place::FirstChildOf(mwe));
        assert!(s.delete(a));
        assert_eq!(s.tree().0.penn(), "(ROOT (X (MWE (E e) (B b) (C c))))");
        assert!(!s.delete(order[0]));
    }
}
