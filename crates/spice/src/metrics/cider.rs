//! CIDEr-D as pycocoevalcap's `Cider` computes it (Vedantam et al. 2015, with the "-D" changes:
//! clipping and the Gaussian length penalty).
//!
//! Every caption becomes four TF-IDF vectors, one per n-gram order n = 1..4: an n-gram's weight
//! is its count in the caption times `log(N) - log(max(1, df))`, where `N` is the number of
//! reference images and `df` the number of images whose references contain the n-gram. For each
//! reference and each n, the candidate's similarity is the clipped dot product
//! `sum min(c, r) * r` over the candidate's n-grams, divided by both vector norms (unless one is
//! 0), times the length penalty `exp(-(delta^2) / (2 sigma^2))` with `sigma = 6`. The image's
//! score is the mean over n, averaged over references, times 10. The corpus score is the mean
//! over images.
//!
//! Two quirks of pycocoevalcap are part of the definition and kept:
//! - `delta` is the difference of the *bigram* counts of candidate and reference, not of their
//!   token counts (`if n == 1: length += term_freq` with 0-based `n`). For captions of at least
//!   one token both differ by the same amount; they differ when one caption is empty.
//! - `N` is the number of images whose references built the frequencies. pycocoevalcap builds
//!   them from the evaluated images, so `N` is the size of the evaluation. With a [`CiderDf`]
//!   precomputed over a reference split, scores equal pycocoevalcap's when the evaluation covers
//!   exactly that split (as a challenge submission must).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::corpus::Corpus;
use super::ngrams::{
    ngrams, pack, split_py, unpack, Interner, NGram, NGramCounts, NGramKey, MAX_N,
};
use super::{numpy_mean, ImageCaptions, MetricsError};

mod compact;

/// pycocoevalcap's `sigma`: the standard deviation of the length penalty.
pub const SIGMA: f64 = 6.0;

/// pycocoevalcap's name for CIDEr-D (`COCOEvalCap` calls it "CIDEr").
pub const SCORE_NAME: &str = "CIDEr";

/// CIDEr-D, corpus-level (mean) and per image (in input order).
#[derive(Debug, Clone, PartialEq)]
pub struct CiderScores {
    pub corpus: f64,
    pub per_image: Vec<f64>,
}

/// Document frequencies of reference n-grams: for each n-gram (n = 1..4), the number of images
/// whose reference captions contain it, and the number of images.
///
/// Serializes (serde) as `{"images": N, "ngrams": {"a man": 1234, ...}}`, n-gram tokens joined
/// by one space, keys sorted, so equal frequencies serialize to equal bytes. For storage, the
/// compact form ([`CiderDf::to_bytes`], [`CiderDf::from_bytes`]) is smaller and reads faster than
/// counting again, which the JSON form does not.
#[derive(Debug, Clone)]
pub struct CiderDf {
    images: usize,
    /// Token -> id; the ids make up the n-gram keys of `index`.
    vocab: HashMap<Box<str>, u32>,
    /// Id -> token.
    tokens: Vec<Box<str>>,
    /// N-gram -> position in `counts`.
    index: HashMap<NGram, u32>,
    /// Document frequency of each n-gram of `index`.
    counts: Vec<u32>,
}

impl CiderDf {
    /// Counts document frequencies over the references of each image (one item per image, each a
    /// list of tokenized reference captions), as pycocoevalcap's `compute_doc_freq` does.
    pub fn from_references<I, R>(images: I) -> Self
    where
        I: IntoIterator<Item = R>,
        R: IntoIterator,
        R::Item: AsRef<str>,
    {
        let mut out = CiderDf {
            images: 0,
            vocab: HashMap::new(),
            tokens: Vec::new(),
            index: HashMap::new(),
            counts: Vec::new(),
        };
        // Token ids of every reference, image by image (serial: one vocabulary).
        let token_ids: Vec<Vec<Vec<u32>>> = images
            .into_iter()
            .map(|references| {
                references
                    .into_iter()
                    .map(|r| split_py(r.as_ref()).map(|t| out.intern(t)).collect())
                    .collect()
            })
            .collect();
        out.images = token_ids.len();
        // Each image's distinct n-grams (parallel).
        let per_image: Vec<Vec<NGram>> = token_ids
            .par_iter()
            .map(|refs| {
                let mut grams: Vec<NGram> = refs.iter().flat_map(|ids| ngrams(ids)).collect();
                grams.sort_unstable();
                grams.dedup();
                grams
            })
            .collect();
        drop(token_ids);
        // Count images per n-gram (serial: one table).
        out.index
            .reserve(per_image.iter().map(Vec::len).sum::<usize>() / 2);
        for grams in per_image {
            for g in grams {
                let counts = &mut out.counts;
                let slot = *out.index.entry(g).or_insert_with(|| {
                    counts.push(0);
                    u32::try_from(counts.len() - 1).unwrap_or(u32::MAX)
                });
                out.counts[slot as usize] += 1;
            }
        }
        out
    }

    fn df(&self, g: &NGram) -> u32 {
        self.index
            .get(g)
            .map_or(0, |&slot| self.counts[slot as usize])
    }

    fn intern(&mut self, token: &str) -> u32 {
        if let Some(&id) = self.vocab.get(token) {
            return id;
        }
        // More than u32::MAX - 1 distinct tokens cannot fit in memory next to their n-grams.
        let id = u32::try_from(self.tokens.len()).unwrap_or(u32::MAX - 1);
        self.tokens.push(token.into());
        self.vocab.insert(token.into(), id);
        id
    }

    /// Number of images the frequencies were counted over (`N` in the idf `log(N / df)`).
    pub fn images(&self) -> usize {
        self.images
    }

    /// Number of distinct n-grams counted.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Document frequency of an n-gram given as tokens (0 if unseen or not 1..=4 tokens long).
    pub fn get(&self, ngram: &[&str]) -> u32 {
        if ngram.is_empty() || ngram.len() > MAX_N {
            return 0;
        }
        let mut ids = [0; MAX_N];
        for (slot, token) in ids.iter_mut().zip(ngram) {
            match self.vocab.get(*token) {
                Some(&id) => *slot = id,
                None => return 0,
            }
        }
        self.df(&pack(&ids[..ngram.len()]))
    }

    fn ngram_text(&self, g: &NGram) -> String {
        let mut s = String::new();
        for id in unpack(*g) {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&self.tokens[id as usize]);
        }
        s
    }
}

/// The serialized form of [`CiderDf`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CiderDfFile {
    images: usize,
    ngrams: BTreeMap<String, u32>,
}

impl Serialize for CiderDf {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ngrams = self
            .index
            .iter()
            .map(|(g, &slot)| (self.ngram_text(g), self.counts[slot as usize]))
            .collect();
        CiderDfFile {
            images: self.images,
            ngrams,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CiderDf {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let file = CiderDfFile::deserialize(deserializer)?;
        CiderDf::try_from(file).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<CiderDfFile> for CiderDf {
    type Error = MetricsError;

    fn try_from(file: CiderDfFile) -> Result<Self, Self::Error> {
        let bad = |reason: String| MetricsError::InvalidDocumentFrequencies { reason };
        let mut out = CiderDf {
            images: file.images,
            vocab: HashMap::new(),
            tokens: Vec::new(),
            index: HashMap::with_capacity(file.ngrams.len()),
            counts: Vec::with_capacity(file.ngrams.len()),
        };
        for (text, count) in file.ngrams {
            if count == 0 || count as usize > file.images {
                return Err(bad(format!(
                    "n-gram {text:?} has frequency {count}, outside 1..={}",
                    file.images
                )));
            }
            let tokens: Vec<&str> = text.split(' ').collect();
            if tokens.len() > MAX_N
                || tokens
                    .iter()
                    .any(|t| t.is_empty() || split_py(t).count() != 1)
            {
                return Err(bad(format!(
                    "{text:?} is not 1 to {MAX_N} tokens separated by single spaces"
                )));
            }
            let ids: Vec<u32> = tokens.iter().map(|t| out.intern(t)).collect();
            let g = pack(&ids);
            if out.index.insert(g, out.counts.len() as u32).is_some() {
                return Err(bad(format!("n-gram {text:?} appears twice")));
            }
            out.counts.push(count);
        }
        Ok(out)
    }
}

/// CIDEr-D of every image and their mean, with document frequencies `df`.
pub fn cider_d(df: &CiderDf, images: &[ImageCaptions]) -> CiderScores {
    // np.log(float(len(self.crefs)))
    let ref_len = (df.images as f64).ln();
    let per_image: Vec<f64> = images
        .par_iter()
        .map_init(Scratch::<NGram>::default, |s, image| {
            // Tokens the frequencies never saw get ids of their own, local to this image: they
            // still match between candidate and references, and have document frequency 0.
            let mut interner = Interner::with_base(&df.vocab);
            let mut precooked = Precooked::<NGram>::default();
            precooked.push_caption(&interner.ids(image.candidate()), &mut s.counts);
            for r in image.references() {
                precooked.push_caption(&interner.ids(r), &mut s.counts);
            }
            s.log_df.clear();
            s.log_df.extend(
                precooked
                    .entries
                    .iter()
                    .map(|(g, _)| f64::from(df.df(g)).max(1.0).ln()),
            );
            image_score(&precooked, 0..precooked.bounds.len(), ref_len, s)
        })
        .collect();
    CiderScores {
        corpus: numpy_mean(&per_image),
        per_image,
    }
}

/// CIDEr-D with document frequencies over the references of `images` (pycocoevalcap's way).
/// Same scores as [`CiderDf::from_references`] then [`cider_d`], but faster.
pub fn cider_d_self(images: &[ImageCaptions]) -> CiderScores {
    cider_d_corpus(&Corpus::new(images))
}

/// How many partitions the document frequencies are counted in (a power of two). Each holds a
/// few thousand n-grams, so its table stays in the cache; partitions are counted in parallel.
const PARTITION_BITS: u32 = 8;

/// Marks an n-gram occurrence in a reference (which counts towards `df`).
const IN_REFERENCES: u32 = 1 << 31;

/// Images per chunk of the parallel passes.
const CHUNK: usize = 128;

fn partition<K: NGramKey>(g: K) -> usize {
    (g.mix() >> (64 - PARTITION_BITS)) as usize
}

/// pycocoevalcap's `precook` of captions, one after the other.
struct Precooked<K> {
    /// (n-gram, count) of each caption, caption after caption, each in `precook`'s order.
    entries: Vec<(K, u32)>,
    /// Caption c's n-grams of order n are `entries[bounds[c][n - 1]..bounds[c][n]]`.
    bounds: Vec<[u32; MAX_N + 1]>,
}

impl<K> Default for Precooked<K> {
    fn default() -> Self {
        Precooked {
            entries: Vec::new(),
            bounds: Vec::new(),
        }
    }
}

impl<K: NGramKey> Precooked<K> {
    fn push_caption(&mut self, ids: &[u32], counts: &mut NGramCounts<K>) {
        counts.fill(ids);
        let mut bounds = [self.entries.len() as u32; MAX_N + 1];
        for (n, bound) in bounds.iter_mut().enumerate().skip(1) {
            self.entries.extend_from_slice(counts.order(n));
            *bound = self.entries.len() as u32;
        }
        self.bounds.push(bounds);
    }

    /// Caption c's n-grams of order n (1..=4), and where they start in `entries`.
    fn order(&self, c: usize, n: usize) -> (usize, &[(K, u32)]) {
        let b = &self.bounds[c];
        let first = b[n - 1] as usize;
        (first, &self.entries[first..b[n] as usize])
    }
}

/// The captions of a chunk of images, precooked, and their n-gram occurrences sorted into
/// partitions.
struct Chunk<K> {
    precooked: Precooked<K>,
    /// Image k of the chunk has captions `captions[k]..captions[k + 1]` (candidate first).
    captions: Vec<usize>,
    /// (n-gram, index in `precooked.entries` | [`IN_REFERENCES`], image number in the chunk),
    /// partition after partition, in image order within each.
    pairs: Vec<(K, u32, u32)>,
    /// Partition p is `pairs[starts[p]..starts[p + 1]]`.
    starts: Vec<usize>,
}

/// [`cider_d_self`] on captions already turned into token ids.
///
/// pycocoevalcap's document frequency of an n-gram is the number of images whose references
/// contain it, and every occurrence needs it. Instead of one big table (whose reads are cache
/// misses), the occurrences are sorted into partitions by a hash of the n-gram, and each
/// partition is counted on its own, in parallel, in a table that stays in the cache.
pub(crate) fn cider_d_corpus(corpus: &Corpus) -> CiderScores {
    if (corpus.vocabulary() as u64) < <u64 as NGramKey>::ID_LIMIT {
        cider_d_keyed::<u64>(corpus)
    } else {
        cider_d_keyed::<NGram>(corpus)
    }
}

/// [`cider_d_corpus`] with n-grams held as `K`.
fn cider_d_keyed<K: NGramKey>(corpus: &Corpus) -> CiderScores {
    let images = corpus.len();
    let parts = 1usize << PARTITION_BITS;
    // 1. Precook every caption; sort the occurrences of each chunk into partitions.
    let chunks: Vec<Chunk<K>> = (0..images.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(NGramCounts::<K>::default, |counts, c| {
            let range = c * CHUNK..images.min((c + 1) * CHUNK);
            let mut precooked = Precooked::default();
            let mut captions = vec![0];
            for i in range.clone() {
                precooked.push_caption(corpus.candidate(i), counts);
                for r in corpus.references(i) {
                    precooked.push_caption(r, counts);
                }
                captions.push(precooked.bounds.len());
            }
            let mut starts = vec![0usize; parts + 1];
            for &(g, _) in &precooked.entries {
                starts[partition(g) + 1] += 1;
            }
            for p in 0..parts {
                starts[p + 1] += starts[p];
            }
            let mut fill = starts.clone();
            let mut pairs = vec![(K::default(), 0u32, 0u32); precooked.entries.len()];
            for k in 0..range.len() {
                for caption in captions[k]..captions[k + 1] {
                    let flag = if caption > captions[k] {
                        IN_REFERENCES
                    } else {
                        0
                    };
                    let b = precooked.bounds[caption];
                    for e in b[0]..b[MAX_N] {
                        let g = precooked.entries[e as usize].0;
                        let p = partition(g);
                        // Entry indices fit in 31 bits: a chunk of 128 images with 2 billion
                        // n-grams would not fit in memory.
                        pairs[fill[p]] = (g, e | flag, k as u32);
                        fill[p] += 1;
                    }
                }
            }
            Chunk {
                precooked,
                captions,
                pairs,
                starts,
            }
        })
        .collect();
    let mut bases = Vec::with_capacity(chunks.len() + 1);
    bases.push(0usize);
    for c in &chunks {
        bases.push(bases[bases.len() - 1] + c.precooked.entries.len());
    }
    // 2. Count each partition (an image counts once per n-gram), then give every occurrence its
    //    n-gram's frequency.
    let df: Vec<AtomicU32> = (0..bases[chunks.len()])
        .map(|_| AtomicU32::new(0))
        .collect();
    (0..parts)
        .into_par_iter()
        .for_each_init(HashMap::<K, (u32, usize)>::new, |counts, p| {
            counts.clear();
            for (c, chunk) in chunks.iter().enumerate() {
                for &(g, e, k) in &chunk.pairs[chunk.starts[p]..chunk.starts[p + 1]] {
                    if e & IN_REFERENCES != 0 {
                        // Images come in increasing order: remember the last one counted.
                        let image = c * CHUNK + k as usize + 1;
                        let (n, last) = counts.entry(g).or_insert((0, 0));
                        if *last != image {
                            *n += 1;
                            *last = image;
                        }
                    }
                }
            }
            for (c, chunk) in chunks.iter().enumerate() {
                for &(g, e, _) in &chunk.pairs[chunk.starts[p]..chunk.starts[p + 1]] {
                    let n = counts.get(&g).map_or(0, |&(n, _)| n);
                    df[bases[c] + (e & !IN_REFERENCES) as usize].store(n, Ordering::Relaxed);
                }
            }
        });
    // 3. Score each image. np.log(max(1.0, df)) for every possible df, once.
    let log_df: Vec<f64> = (0..=images).map(|d| (d as f64).max(1.0).ln()).collect();
    let ref_len = (images as f64).ln();
    let per_chunk: Vec<Vec<f64>> = chunks
        .par_iter()
        .enumerate()
        .map_init(Scratch::<K>::default, |s, (c, chunk)| {
            let dfs = &df[bases[c]..bases[c + 1]];
            s.log_df.clear();
            s.log_df.extend(
                dfs.iter()
                    .map(|d| log_df[d.load(Ordering::Relaxed) as usize]),
            );
            chunk
                .captions
                .windows(2)
                .map(|w| image_score(&chunk.precooked, w[0]..w[1], ref_len, s))
                .collect()
        })
        .collect();
    let scores: Vec<f64> = per_chunk.into_iter().flatten().collect();
    CiderScores {
        corpus: numpy_mean(&scores),
        per_image: scores,
    }
}

/// Buffers one thread reuses from image to image.
struct Scratch<K> {
    counts: NGramCounts<K>,
    /// log(max(1, df)) of each entry of the precooked captions being scored.
    log_df: Vec<f64>,
    candidate: TfIdf<K>,
    reference: TfIdf<K>,
}

impl<K> Default for Scratch<K> {
    fn default() -> Self {
        Scratch {
            counts: NGramCounts::default(),
            log_df: Vec::new(),
            candidate: TfIdf::default(),
            reference: TfIdf::default(),
        }
    }
}

/// One image's CIDEr-D: its captions are `captions` of `precooked` (candidate first), `s.log_df`
/// holds log(max(1, df)) of each precooked entry, `ref_len` is log(N).
fn image_score<K: NGramKey>(
    precooked: &Precooked<K>,
    captions: std::ops::Range<usize>,
    ref_len: f64,
    s: &mut Scratch<K>,
) -> f64 {
    let n_refs = captions.len() - 1;
    s.candidate
        .fill(precooked, captions.start, &s.log_df, ref_len);
    let mut score = [0.0f64; MAX_N];
    for c in captions.start + 1..captions.end {
        s.reference.fill(precooked, c, &s.log_df, ref_len);
        s.reference.index();
        let sim = similarity(&s.candidate, &s.reference);
        for (total, v) in score.iter_mut().zip(sim) {
            *total += v;
        }
    }
    let mut avg = numpy_mean(&score);
    avg /= n_refs as f64;
    avg * 10.0
}

/// A caption's TF-IDF vectors (pycocoevalcap's `counts2vec`).
struct TfIdf<K> {
    /// Weights in `precook`'s order (sums run in this order), which is by n-gram order first:
    /// order n + 1 is `weights[start[n]..start[n + 1]]`.
    weights: Vec<(K, f64)>,
    start: [usize; MAX_N + 1],
    norm: [f64; MAX_N],
    /// Number of bigrams (see the module doc).
    length: usize,
    /// N-gram -> weight, for long captions only, where a scan of `weights` would be slow.
    long: Option<HashMap<K, f64>>,
}

impl<K> Default for TfIdf<K> {
    fn default() -> Self {
        TfIdf {
            weights: Vec::new(),
            start: [0; MAX_N + 1],
            norm: [0.0; MAX_N],
            length: 0,
            long: None,
        }
    }
}

/// Above this many n-grams of one order, a caption's weights are looked up by hash.
const SCAN_LIMIT: usize = 48;

impl<K: NGramKey> TfIdf<K> {
    /// The vectors of caption `c` of `precooked`.
    fn fill(&mut self, precooked: &Precooked<K>, c: usize, log_df: &[f64], ref_len: f64) {
        self.weights.clear();
        let mut norm = [0.0f64; MAX_N];
        self.length = 0;
        for (n, norm) in norm.iter_mut().enumerate() {
            self.start[n] = self.weights.len();
            let (first, entries) = precooked.order(c, n + 1);
            for (k, &(g, tf)) in entries.iter().enumerate() {
                let w = f64::from(tf) * (ref_len - log_df[first + k]);
                *norm += w * w;
                self.weights.push((g, w));
                if n == 1 {
                    self.length += tf as usize;
                }
            }
        }
        self.start[MAX_N] = self.weights.len();
        self.norm = norm.map(f64::sqrt);
    }

    /// Builds the hash index if some order has too many n-grams to scan.
    fn index(&mut self) {
        let long = (0..MAX_N).any(|n| self.start[n + 1] - self.start[n] > SCAN_LIMIT);
        match (&mut self.long, long) {
            (_, false) => self.long = None,
            (Some(index), true) => {
                index.clear();
                index.extend(self.weights.iter().copied());
            }
            (None, true) => self.long = Some(self.weights.iter().copied().collect()),
        }
    }

    fn order(&self, n: usize) -> &[(K, f64)] {
        &self.weights[self.start[n]..self.start[n + 1]]
    }

    /// The weight of an n-gram of order n + 1 (0 if the caption does not have it).
    fn weight(&self, n: usize, g: &K) -> f64 {
        match &self.long {
            Some(index) => index.get(g).copied().unwrap_or(0.0),
            None => self
                .order(n)
                .iter()
                .find(|(h, _)| h == g)
                .map_or(0.0, |&(_, w)| w),
        }
    }
}

/// Clipped cosine similarity per n-gram order with the length penalty (pycocoevalcap's `sim`).
fn similarity<K: NGramKey>(hyp: &TfIdf<K>, reference: &TfIdf<K>) -> [f64; MAX_N] {
    let delta = hyp.length as f64 - reference.length as f64;
    let penalty = std::f64::consts::E.powf(-(delta * delta) / (2.0 * SIGMA * SIGMA));
    std::array::from_fn(|n| {
        let mut val = 0.0f64;
        for (g, h) in hyp.order(n) {
            let r = reference.weight(n, g);
            val += h.min(r) * r;
        }
        if hyp.norm[n] != 0.0 && reference.norm[n] != 0.0 {
            val /= hyp.norm[n] * reference.norm[n];
        }
        val * penalty
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(candidate: &str, refs: &[&str]) -> ImageCaptions {
        ImageCaptions::new(candidate, refs.iter().map(|r| r.to_string()).collect())
            .expect("test captions have references")
    }

    /// Three images, one reference each, no n-gram shared between images except "a".
    fn toy() -> Vec<ImageCaptions> {
        vec![
            image("a dog", &["a dog"]),
            image("a cat", &["a bird"]),
            image("a cow", &["a horse"]),
        ]
    }

    #[test]
    fn document_frequencies_count_images_not_occurrences() {
        let df = CiderDf::from_references([vec!["a dog", "a dog runs"], vec!["a cat"]]);
        assert_eq!(df.images(), 2);
        assert_eq!(df.get(&["a"]), 2); // in both images, though three times
        assert_eq!(df.get(&["a", "dog"]), 1); // twice in image 1: still one image
        assert_eq!(df.get(&["a", "dog", "runs"]), 1);
        assert_eq!(df.get(&["zebra"]), 0);
        // a dog runs cat | a dog, dog runs, a cat | a dog runs
        assert_eq!(df.len(), 4 + 3 + 1);
    }

    #[test]
    fn three_image_toy_corpus() {
        let s = cider_d_self(&toy());
        // Image 1: "a dog" vs "a dog". N = 3. "a" is in every image: idf log 3 - log 3 = 0, so
        // it weighs nothing. "dog", "a dog" are in one image: idf log 3. The candidate's vectors
        // equal the reference's for n = 1, 2, so the cosine is 1 for those orders; n = 3, 4 have
        // no n-grams (norm 0, value 0). Mean over n: (1 + 1 + 0 + 0) / 4 = 0.5, times 10 = 5.
        assert!((s.per_image[0] - 5.0).abs() < 1e-12);
        // Image 2: "a cat" vs "a bird": the only shared n-gram, "a", weighs 0: score 0.
        assert_eq!(s.per_image[1], 0.0);
        assert_eq!(s.per_image[2], 0.0);
        assert!((s.corpus - 5.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn clipping_caps_repeated_ngrams() {
        // Candidate "dog dog" vs reference "dog" (+ a second image so that idf is not 0).
        // N = 2, idf(dog) = log 2. Unigram weights: candidate 2 log 2, reference log 2.
        // Clipped dot product: min(2l, l) * l = l^2; norms 2l and l: cosine 1/2.
        // Bigrams: candidate has "dog dog" (weight log 2, df 0 -> log(max(1, 0)) = 0),
        // reference has none: norm 0, value 0. Length penalty: bigram counts 1 vs 0,
        // delta = 1, exp(-1/72). Score = 10 * (1/2 * exp(-1/72)) / 4.
        let images = [image("dog dog", &["dog"]), image("cat", &["cat"])];
        let s = cider_d_self(&images);
        let want = 10.0 * (0.5 * (-1.0f64 / 72.0).exp()) / 4.0;
        assert!(
            (s.per_image[0] - want).abs() < 1e-12,
            "{} vs {want}",
            s.per_image[0]
        );
    }

    #[test]
    fn both_n_gram_widths_give_the_same_scores() {
        // Large vocabularies (65,535 tokens or more) use 128-bit n-grams; the rest 64-bit ones.
        let mut images = toy();
        images.push(image("a dog a dog runs", &["a dog runs fast", "dog dog"]));
        let corpus = Corpus::new(&images);
        assert_eq!(
            cider_d_keyed::<u64>(&corpus),
            cider_d_keyed::<NGram>(&corpus)
        );
        assert_eq!(cider_d_corpus(&corpus), cider_d_keyed::<NGram>(&corpus));
    }

    #[test]
    fn precomputed_frequencies_give_the_same_scores() {
        let images = toy();
        let df = CiderDf::from_references(images.iter().map(|i| i.references()));
        assert_eq!(cider_d(&df, &images), cider_d_self(&images));
    }

    #[test]
    fn frequencies_survive_a_serde_round_trip() {
        let df = CiderDf::from_references([vec!["a dog runs"], vec!["a cat"]]);
        let json = serde_json::to_string(&df).expect("serializes");
        assert!(json.starts_with(r#"{"images":2,"ngrams":{"a":2,"a cat":1,"a dog":1,"#));
        let back: CiderDf = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
        let images = toy();
        assert_eq!(cider_d(&back, &images), cider_d(&df, &images));
    }

    #[test]
    fn malformed_frequencies_are_rejected_with_the_reason() {
        let too_many = r#"{"images": 1, "ngrams": {"a": 2}}"#;
        let err = serde_json::from_str::<CiderDf>(too_many).expect_err("2 > 1 image");
        assert!(err.to_string().contains(r#""a" has frequency 2"#), "{err}");
        let five = r#"{"images": 1, "ngrams": {"a b c d e": 1}}"#;
        assert!(serde_json::from_str::<CiderDf>(five).is_err());
        let spaces = r#"{"images": 1, "ngrams": {"a  b": 1}}"#;
        assert!(serde_json::from_str::<CiderDf>(spaces).is_err());
    }
}
