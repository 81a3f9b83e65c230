//! N-gram counting shared by BLEU and CIDEr-D: pycocoevalcap's `precook`.
//!
//! pycocoevalcap keys n-grams by tuples of strings. We map each token to a `u32` id first (ids
//! only need to be equal exactly when the strings are), and key an n-gram by its ids padded to
//! four, which hashes and compares much faster than string tuples.

use foldhash::{HashMap, HashMapExt};

/// The longest n-gram BLEU and CIDEr-D count.
pub(crate) const MAX_N: usize = 4;

/// An n-gram of length 1..=4: its token ids packed big-end first into 32-bit lanes, unused
/// lanes [`PAD`]. One integer compares, sorts and hashes much faster than an array, and orders
/// n-grams exactly as the arrays of ids would.
pub(crate) type NGram = u128;

const PAD: u32 = u32::MAX;

/// Packs token ids (1 to 4 of them) into an [`NGram`].
pub(crate) fn pack(ids: &[u32]) -> NGram {
    (0..MAX_N).fold(0u128, |g, i| {
        (g << 32) | u128::from(ids.get(i).copied().unwrap_or(PAD))
    })
}

/// The token ids of an n-gram.
pub(crate) fn unpack(g: NGram) -> impl Iterator<Item = u32> {
    (0..MAX_N)
        .map(move |i| (g >> (32 * (MAX_N - 1 - i))) as u32)
        .take_while(|&t| t != PAD)
}

/// Length of an n-gram (1..=4).
pub(crate) fn order(g: &NGram) -> usize {
    unpack(*g).count()
}

/// How an n-gram is held as one integer: [`NGram`] (four 32-bit lanes, any vocabulary) or
/// `u64` (four 16-bit lanes, for vocabularies of fewer than 65,535 tokens: half the memory,
/// which is what the document-frequency count of CIDEr-D spends its time moving).
pub(crate) trait NGramKey:
    Copy + Eq + Ord + std::hash::Hash + Default + Send + Sync + 'static
{
    /// Token ids must be below this.
    const ID_LIMIT: u64;
    /// Packs token ids (1 to 4 of them), big end first, unused lanes all ones.
    fn pack(ids: &[u32]) -> Self;
    /// 64 well-mixed bits (for partitioning).
    fn mix(self) -> u64;
}

impl NGramKey for NGram {
    const ID_LIMIT: u64 = PAD as u64;

    fn pack(ids: &[u32]) -> Self {
        pack(ids)
    }

    fn mix(self) -> u64 {
        ((self as u64) ^ ((self >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

impl NGramKey for u64 {
    const ID_LIMIT: u64 = 0xFFFF;

    fn pack(ids: &[u32]) -> Self {
        (0..MAX_N).fold(0u64, |g, i| {
            (g << 16) | ids.get(i).map_or(0xFFFF, |&t| u64::from(t) & 0xFFFF)
        })
    }

    fn mix(self) -> u64 {
        (self ^ (self >> 29)).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

/// Splits like Python's `str.split()` without arguments: on runs of Unicode whitespace as
/// Python's `str.isspace` sees it, which is Rust's `char::is_whitespace` plus the ASCII
/// separators U+001C..U+001F. Empty pieces are dropped.
pub(crate) fn split_py(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
        .filter(|t| !t.is_empty())
}

/// Maps tokens to ids. Tokens found in `base` (a corpus vocabulary, e.g. that of a
/// [`super::CiderDf`]) keep its ids; others get fresh ids after it, local to this interner.
pub(crate) struct Interner<'a> {
    base: Option<&'a HashMap<Box<str>, u32>>,
    next: u32,
    local: HashMap<&'a str, u32>,
}

impl<'a> Interner<'a> {
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Interner {
            base: None,
            next: 0,
            local: HashMap::new(),
        }
    }

    pub(crate) fn with_base(base: &'a HashMap<Box<str>, u32>) -> Self {
        // Ids are u32 and PAD is u32::MAX: a vocabulary never gets near 4 billion tokens.
        let next = u32::try_from(base.len()).unwrap_or(PAD - 1);
        Interner {
            base: Some(base),
            next,
            local: HashMap::new(),
        }
    }

    pub(crate) fn id(&mut self, token: &'a str) -> u32 {
        if let Some(&id) = self.base.and_then(|b| b.get(token)) {
            return id;
        }
        let next = &mut self.next;
        *self.local.entry(token).or_insert_with(|| {
            let id = *next;
            *next = next.saturating_add(1).min(PAD - 1);
            id
        })
    }

    /// Ids of the whitespace-separated tokens of a caption.
    pub(crate) fn ids(&mut self, caption: &'a str) -> Vec<u32> {
        split_py(caption).map(|t| self.id(t)).collect()
    }
}

/// The n-grams (n = 1..=4) of a token sequence with their counts, in order of first occurrence
/// by n, then by position: the iteration order of the dict `precook` builds. CIDEr-D sums over
/// this order, so keeping it keeps the sums bit-identical.
pub(crate) struct NGramCounts<K = NGram> {
    pub(crate) entries: Vec<(K, u32)>,
    /// The n-grams of order n are `entries[start[n - 1]..start[n]]`.
    start: [usize; MAX_N + 1],
    /// N-gram -> position in `entries`, for long sequences only.
    index: HashMap<K, usize>,
    hashed: bool,
}

impl<K> Default for NGramCounts<K> {
    fn default() -> Self {
        NGramCounts {
            entries: Vec::new(),
            start: [0; MAX_N + 1],
            index: HashMap::new(),
            hashed: false,
        }
    }
}

/// Up to this many tokens, n-grams are deduplicated by scanning instead of hashing.
const SCAN_LIMIT: usize = 24;

impl<K: NGramKey> NGramCounts<K> {
    #[cfg(test)]
    pub(crate) fn new(ids: &[u32]) -> Self {
        let mut counts = NGramCounts::default();
        counts.fill(ids);
        counts
    }

    /// Recounts for `ids`, reusing the memory of the previous count.
    pub(crate) fn fill(&mut self, ids: &[u32]) {
        self.entries.clear();
        self.index.clear();
        let long = ids.len() > SCAN_LIMIT;
        self.hashed = long;
        for n in 1..=MAX_N {
            let first = self.entries.len();
            self.start[n - 1] = first;
            for window in ids.windows(n) {
                let g = K::pack(window);
                let found = if long {
                    self.index.get(&g).copied()
                } else {
                    self.entries[first..]
                        .iter()
                        .position(|(h, _)| *h == g)
                        .map(|i| first + i)
                };
                match found {
                    Some(i) => self.entries[i].1 += 1,
                    None => {
                        if long {
                            self.index.insert(g, self.entries.len());
                        }
                        self.entries.push((g, 1));
                    }
                }
            }
        }
        self.start[MAX_N] = self.entries.len();
    }

    /// The n-grams of order `n` (1..=4) with their counts.
    pub(crate) fn order(&self, n: usize) -> &[(K, u32)] {
        &self.entries[self.start[n - 1]..self.start[n]]
    }

    /// Position in `entries` of an n-gram of order `n`, if the sequence has it.
    pub(crate) fn position(&self, n: usize, g: K) -> Option<usize> {
        if !self.hashed {
            let first = self.start[n - 1];
            self.entries[first..self.start[n]]
                .iter()
                .position(|(h, _)| *h == g)
                .map(|i| first + i)
        } else {
            self.index.get(&g).copied()
        }
    }
}

/// Every n-gram (n = 1..=4) of a token sequence, with repeats, in `precook`'s order.
pub(crate) fn ngrams(ids: &[u32]) -> impl Iterator<Item = NGram> + '_ {
    (1..=MAX_N).flat_map(move |n| ids.windows(n).map(pack))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_python_str_split() {
        let got: Vec<_> = split_py("  a\tb \u{a0}c\u{1f}d\n").collect();
        assert_eq!(got, ["a", "b", "c", "d"]);
        assert_eq!(split_py("").count(), 0);
    }

    #[test]
    fn counts_keep_first_occurrence_order_by_order_then_position() {
        let mut interner = Interner::new();
        let ids = interner.ids("a b a b");
        let counts = NGramCounts::<NGram>::new(&ids);
        let shown: Vec<(usize, u32)> = counts.entries.iter().map(|(g, c)| (order(g), *c)).collect();
        // a:2 b:2 | "a b":2 "b a":1 | "a b a":1 "b a b":1 | "a b a b":1
        assert_eq!(
            shown,
            [(1, 2), (1, 2), (2, 2), (2, 1), (3, 1), (3, 1), (4, 1)]
        );
        assert_eq!(ngrams(&ids).count(), 4 + 3 + 2 + 1);
    }

    #[test]
    fn tokens_outside_the_base_vocabulary_get_fresh_ids() {
        let base: HashMap<Box<str>, u32> =
            [("dog".into(), 0), ("cat".into(), 1)].into_iter().collect();
        let mut interner = Interner::with_base(&base);
        assert_eq!(interner.ids("cat zebra dog zebra yak"), [1, 2, 0, 2, 3]);
    }
}
