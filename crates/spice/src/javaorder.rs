//! The iteration order of Java's `HashSet<String>` / `HashMap<String, _>`.
//!
//! The reference prints merged concepts ("grey/gray") and writes JSON object keys in the order
//! its Java hash containers iterate them. Reproducing that order keeps our output byte-comparable
//! with the jar's. Java iterates buckets in index order, and within a bucket in insertion order;
//! a table starts with 16 buckets and doubles whenever it holds more than 3/4 of its capacity.

/// Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, wrapping.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

/// Bucket count of a Java hash table created empty that has received `len` entries.
fn capacity(len: usize) -> usize {
    let mut cap = 16usize;
    while len * 4 > cap * 3 {
        cap *= 2;
    }
    cap
}

/// The bucket index Java's HashMap gives a string key in a table of `cap` buckets.
fn bucket(s: &str, cap: usize) -> usize {
    let h = string_hash(s) as u32;
    ((h ^ (h >> 16)) as usize) & (cap - 1)
}

/// `items` (in insertion order) in the order Java's hash containers iterate them.
pub fn hash_set_order<S: AsRef<str>>(items: &[S]) -> Vec<&str> {
    let cap = capacity(items.len());
    let mut v: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    v.sort_by_key(|s| bucket(s, cap));
    v
}

/// The order in which a Java 8+ `HashMap` with a table of `table_size` buckets (never resized)
/// iterates keys inserted in the given order, given each key's `hashCode()`; keys are distinct
/// and so are their hash codes. Buckets come in index order. A bucket is a list in insertion
/// order until its ninth key, when Java turns it into a red-black tree ordered by hash: the
/// iteration then follows the tree's `next` links, where a new key goes right after the node it
/// hangs under and the root is moved to the front after every change. All of that is
/// reproduced, because CoreNLP's unary grammar adds its rules in this order.
pub fn hash_map_order(hashes: &[i32], table_size: usize) -> Vec<usize> {
    assert!(table_size.is_power_of_two());
    let spread = |h: i32| h ^ ((h as u32) >> 16) as i32;
    let mut bins: Vec<Bin> = Vec::new();
    let mut bin_of = std::collections::HashMap::new();
    for (key, &h) in hashes.iter().enumerate() {
        let hash = spread(h);
        let b = (hash as u32 as usize) & (table_size - 1);
        let bin = *bin_of.entry(b).or_insert_with(|| {
            bins.push(Bin::default());
            bins.len() - 1
        });
        bins[bin].insert(hash, key);
    }
    let mut order: Vec<usize> = bin_of.keys().copied().collect();
    order.sort_unstable();
    order
        .into_iter()
        .flat_map(|b| bins[bin_of[&b]].keys())
        .collect()
}

#[derive(Default)]
struct Bin {
    nodes: Vec<TreeNode>,
    first: Option<usize>,
    tree: bool,
}

#[derive(Clone, Copy)]
struct TreeNode {
    hash: i32,
    key: usize,
    next: Option<usize>,
    prev: Option<usize>,
    parent: Option<usize>,
    left: Option<usize>,
    right: Option<usize>,
    red: bool,
}

const TREEIFY_THRESHOLD: usize = 8;

impl Bin {
    fn keys(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut at = self.first;
        while let Some(i) = at {
            out.push(self.nodes[i].key);
            at = self.nodes[i].next;
        }
        out
    }

    fn insert(&mut self, hash: i32, key: usize) {
        let x = self.nodes.len();
        self.nodes.push(TreeNode {
            hash,
            key,
            next: None,
            prev: None,
            parent: None,
            left: None,
            right: None,
            red: false,
        });
        let Some(first) = self.first else {
            self.first = Some(x);
            return;
        };
        if self.tree {
            self.put_tree(first, x);
            return;
        }
        let mut last = first;
        while let Some(n) = self.nodes[last].next {
            last = n;
        }
        self.nodes[last].next = Some(x);
        self.nodes[x].prev = Some(last);
        if self.nodes.len() > TREEIFY_THRESHOLD {
            self.treeify();
        }
    }

    /// Which side of `p` a node of hash `h` goes (hashes are distinct).
    fn goes_left(&self, p: usize, h: i32) -> bool {
        self.nodes[p].hash > h
    }

    fn treeify(&mut self) {
        self.tree = true;
        let mut root: Option<usize> = None;
        let mut at = self.first;
        while let Some(x) = at {
            at = self.nodes[x].next;
            self.nodes[x].left = None;
            self.nodes[x].right = None;
            match root {
                None => {
                    self.nodes[x].parent = None;
                    self.nodes[x].red = false;
                    root = Some(x);
                }
                Some(r) => {
                    let h = self.nodes[x].hash;
                    let mut p = r;
                    loop {
                        let left = self.goes_left(p, h);
                        let child = if left {
                            self.nodes[p].left
                        } else {
                            self.nodes[p].right
                        };
                        match child {
                            Some(c) => p = c,
                            None => {
                                self.nodes[x].parent = Some(p);
                                if left {
                                    self.nodes[p].left = Some(x);
                                } else {
                                    self.nodes[p].right = Some(x);
                                }
                                root = Some(self.balance_insertion(r, x));
                                break;
                            }
                        }
                    }
                }
            }
        }
        if let Some(r) = root {
            self.move_root_to_front(r);
        }
    }

    fn put_tree(&mut self, root: usize, x: usize) {
        let h = self.nodes[x].hash;
        let mut p = root;
        loop {
            let left = self.goes_left(p, h);
            let child = if left {
                self.nodes[p].left
            } else {
                self.nodes[p].right
            };
            if let Some(c) = child {
                p = c;
                continue;
            }
            let xpn = self.nodes[p].next;
            self.nodes[x].next = xpn;
            if left {
                self.nodes[p].left = Some(x);
            } else {
                self.nodes[p].right = Some(x);
            }
            self.nodes[p].next = Some(x);
            self.nodes[x].parent = Some(p);
            self.nodes[x].prev = Some(p);
            if let Some(n) = xpn {
                self.nodes[n].prev = Some(x);
            }
            let r = self.balance_insertion(root, x);
            self.move_root_to_front(r);
            return;
        }
    }

    fn move_root_to_front(&mut self, root: usize) {
        let first = self.first;
        if first == Some(root) {
            return;
        }
        self.first = Some(root);
        let rp = self.nodes[root].prev;
        let rn = self.nodes[root].next;
        if let Some(n) = rn {
            self.nodes[n].prev = rp;
        }
        if let Some(p) = rp {
            self.nodes[p].next = rn;
        }
        if let Some(f) = first {
            self.nodes[f].prev = Some(root);
        }
        self.nodes[root].next = first;
        self.nodes[root].prev = None;
    }

    /// A node's left (`right` false) or right child.
    fn child(&self, n: usize, right: bool) -> Option<usize> {
        if right {
            self.nodes[n].right
        } else {
            self.nodes[n].left
        }
    }

    fn set_child(&mut self, n: usize, right: bool, c: Option<usize>) {
        if right {
            self.nodes[n].right = c;
        } else {
            self.nodes[n].left = c;
        }
    }

    /// Java's `rotateLeft` (`left` true) and its mirror `rotateRight`.
    fn rotate(&mut self, mut root: usize, p: usize, left: bool) -> usize {
        // Rotating left lifts the right child; rotating right, the left one.
        if let Some(r) = self.child(p, left) {
            let inner = self.child(r, !left);
            self.set_child(p, left, inner);
            if let Some(i) = inner {
                self.nodes[i].parent = Some(p);
            }
            let pp = self.nodes[p].parent;
            self.nodes[r].parent = pp;
            match pp {
                None => {
                    root = r;
                    self.nodes[r].red = false;
                }
                Some(pp) => {
                    let p_is_right = self.nodes[pp].left != Some(p);
                    self.set_child(pp, p_is_right, Some(r));
                }
            }
            self.set_child(r, !left, Some(p));
            self.nodes[p].parent = Some(r);
        }
        root
    }

    /// Java's `TreeNode.balanceInsertion`, its two mirrored halves as one (`side` true when the
    /// parent is its grandparent's left child).
    fn balance_insertion(&mut self, mut root: usize, mut x: usize) -> usize {
        self.nodes[x].red = true;
        loop {
            let Some(mut xp) = self.nodes[x].parent else {
                self.nodes[x].red = false;
                return x;
            };
            let Some(mut xpp) = self.nodes[xp].parent.filter(|_| self.nodes[xp].red) else {
                return root;
            };
            let side = self.nodes[xpp].left == Some(xp);
            match self.child(xpp, side) {
                Some(uncle) if self.nodes[uncle].red => {
                    self.nodes[uncle].red = false;
                    self.nodes[xp].red = false;
                    self.nodes[xpp].red = true;
                    x = xpp;
                }
                _ => {
                    let mut xpp_opt = Some(xpp);
                    let mut xp_opt = Some(xp);
                    if self.child(xp, side) == Some(x) {
                        x = xp;
                        root = self.rotate(root, x, side);
                        xp_opt = self.nodes[x].parent;
                        xpp_opt = xp_opt.and_then(|p| self.nodes[p].parent);
                    }
                    if let Some(p) = xp_opt {
                        xp = p;
                        self.nodes[xp].red = false;
                        if let Some(pp) = xpp_opt {
                            xpp = pp;
                            self.nodes[xpp].red = true;
                            root = self.rotate(root, xpp, !side);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_java() {
        // Values printed by Java's "...".hashCode().
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("gray"), 3_181_155);
        assert_eq!(string_hash("Object"), 2_355_466_079u32 as i32);
        assert_eq!(string_hash("All"), 65_921);
    }

    #[test]
    fn order_is_by_bucket_then_insertion() {
        // A merged concept prints as "gray/grey" whichever word came first: "gray" falls in
        // bucket 3 of 16 and "grey" in bucket 15.
        assert_eq!(hash_set_order(&["grey", "gray"]), ["gray", "grey"]);
        // The jar's per-category score keys come out in this order.
        let keys = [
            "All",
            "Object",
            "Attribute",
            "Relation",
            "Cardinality",
            "Color",
            "Size",
        ];
        assert_eq!(
            hash_set_order(&keys),
            [
                "All",
                "Relation",
                "Cardinality",
                "Attribute",
                "Size",
                "Color",
                "Object"
            ]
        );
    }
}
