//! The averaged perceptron shared by the POS tagger (`tag`) and the dependency parser (`parse`):
//! feature hashing, training-time weights, and the compact model file both ship as.
//!
//! In: features as 64-bit hashes (built without allocation from precomputed word/tag hashes, see
//! `feat`), class indices. Out: per-class scores.
//!
//! Why this shape: the tagger and the parser each score a few dozen features per decision, a few
//! hundred thousand decisions per second. A feature is a 64-bit hash of its template and values;
//! its weights are a short sparse row of `(class, weight)` pairs (a perceptron only ever touches
//! the classes it predicted or should have predicted), all rows live in one flat array, and an
//! open-addressing table maps the hash to its row. No strings and no allocation at run time.
//!
//! The model file (ours, version 1) is a magic header followed by a deflate-compressed payload:
//! class names, a model-specific "extra" blob (the tagger's tag dictionary, ...), then the weights
//! column by column (sorted keys delta-coded as varints, row lengths, classes, weights quantized to
//! `i16` with one scale per model). Near-zero averaged weights are pruned when the file is written.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{Read, Write};

/// Errors reading a model file. They say which model and what is wrong with it.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ModelError {
    #[error("{what}: not a spiceboard model file (bad magic bytes)")]
    BadMagic { what: String },
    #[error("{what}: model format version {found}, this build reads version {expected}")]
    Version {
        what: String,
        found: u32,
        expected: u32,
    },
    #[error("{what}: model kind is {found:?}, expected {expected:?}")]
    Kind {
        what: String,
        found: String,
        expected: String,
    },
    #[error("{what}: cannot decompress model payload: {detail}")]
    Inflate { what: String, detail: String },
    #[error("{what}: model payload is truncated or corrupt ({detail})")]
    Corrupt { what: String, detail: String },
    #[error("{what}: cannot read model file: {detail}")]
    Io { what: String, detail: String },
}

// ---------------------------------------------------------------------------------------------
// Hashing. Stable across platforms and releases (the model file depends on it), so we do not use
// std's `DefaultHasher`.

const SEED: u64 = 0x243F_6A88_85A3_08D3;

/// splitmix64's finaliser: a cheap, well-mixing bijection on u64 (also the bootstrap's
/// `metaeval::stats::SplitMix64`).
#[inline]
pub(crate) fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Fisher-Yates with a splitmix64 stream: deterministic for a seed on every platform (the
/// training order of the tagger, the parser and their corrections).
pub(crate) fn shuffle(v: &mut [usize], state: &mut u64) {
    for i in (1..v.len()).rev() {
        let j = (splitmix64(state) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

/// A uniform draw in [0, 1) from the same splitmix64 stream (the parser's error exploration).
pub(crate) fn coin(state: &mut u64) -> f64 {
    (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// The next value of the splitmix64 stream at `state`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*state)
}

/// Combines a running hash with one more value.
#[inline]
pub(crate) fn combine(h: u64, v: u64) -> u64 {
    mix64(h.rotate_left(23) ^ v.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Hash of a byte string (FNV-1a, then mixed).
#[inline]
pub(crate) fn hash_bytes(b: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &c in b {
        h ^= c as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    mix64(h ^ SEED)
}

/// Hash of a string.
#[inline]
pub(crate) fn hash_str(s: &str) -> u64 {
    hash_bytes(s.as_bytes())
}

/// Hash of the lowercase form of a string, without allocating (equals `hash_str(&s.to_lowercase())`
/// except for the few characters whose lowercase depends on context, such as final sigma).
pub(crate) fn hash_lower(s: &str) -> u64 {
    if s.bytes().all(|b| !b.is_ascii_uppercase() && b.is_ascii()) {
        return hash_str(s);
    }
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    let mut buf = [0u8; 4];
    for c in s.chars().flat_map(char::to_lowercase) {
        for &b in c.encode_utf8(&mut buf).as_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    mix64(h ^ SEED)
}

/// A feature: template number plus up to three value hashes. Never 0 (0 marks an empty slot).
/// One multiply per value and one final mix: this runs ~2,000 times per parsed caption.
#[inline]
pub(crate) fn feat(template: u32, a: u64, b: u64, c: u64) -> u64 {
    let x = (template as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ a.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ b.rotate_left(21).wrapping_mul(0x1656_67B1_9E37_79F9)
        ^ c.rotate_left(42).wrapping_mul(0x27D4_EB2F_1656_67C5);
    mix64(x).max(1)
}

// ---------------------------------------------------------------------------------------------
// Inference weights.

/// Read-only averaged weights: feature hash -> row of class weights.
///
/// Layout, chosen for memory latency and few instructions (a parse looks up ~2,000 features):
/// `slots` is an open-addressing table, indexed by the low bits of the 48-bit key, of `u64` =
/// 32-bit fingerprint (key bits 16..48) << 32 | where the row is. A sparse row is an offset into `entries`, which holds its length, then one `u32` per
/// entry = class << 16 | quantised weight (`i16`). Frequent features (tags, the bias) have
/// weights for most classes: their rows are dense ([`DENSE`] | row number), one `i16` per class in
/// `dense`, padded to a multiple of 16 classes and added with SIMD. The slot alone says where the
/// row is, so both can be prefetched before either is read. Scores are sums of quantised weights in `i32` (one scale per model, so the
/// argmax is unchanged). [`Weights::score`] first prefetches every slot, then every row, so that
/// cache misses overlap instead of following one another.
#[derive(Debug, Clone)]
pub(crate) struct Weights {
    n_classes: usize,
    /// `n_classes` rounded up to a multiple of 16: the length of a dense row and of `scores`.
    stride: usize,
    mask: usize,
    slots: Vec<u64>,
    entries: Vec<u32>,
    dense: Vec<i16>,
    /// The features' keys, in the order they were added (for [`Weights::plus`]).
    keys: Vec<u64>,
}

/// Slot bit of a dense row.
const DENSE: u32 = 1 << 31;

/// Features scored per prefetch batch.
const BATCH: usize = 64;

#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(p as *const i8, core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl Weights {
    /// Weights with no features (every score 0).
    pub(crate) fn empty(n_classes: usize) -> Weights {
        Weights::with_capacity(n_classes, 0, 0)
    }

    /// The length `scores` must have in [`Weights::score`] (classes past `n_classes` stay 0).
    pub(crate) fn score_len(&self) -> usize {
        self.stride
    }

    /// Number of features with weights.
    pub(crate) fn n_features(&self) -> usize {
        self.keys.len()
    }

    fn with_capacity(n_classes: usize, n_features: usize, n_entries: usize) -> Weights {
        let cap = (n_features * 2).next_power_of_two().max(2);
        // Offset 0 is a row of length 0, so an empty slot (0) reads as "no weights".
        let mut entries = Vec::with_capacity(n_features + n_entries + 1);
        entries.push(0);
        Weights {
            n_classes,
            stride: n_classes.next_multiple_of(16).max(16),
            mask: cap - 1,
            slots: vec![0; cap],
            entries,
            dense: Vec::new(),
            keys: Vec::with_capacity(n_features),
        }
    }

    /// Adds a feature and its row (class, quantised weight). Keys must be distinct, non-zero
    /// 48-bit keys ([`key48`]).
    fn insert(&mut self, key: u64, row: impl ExactSizeIterator<Item = (u8, i16)>) {
        let at = if row.len() * 4 >= self.n_classes {
            let start = self.dense.len();
            self.dense.resize(start + self.stride, 0);
            for (c, w) in row {
                if let Some(x) = self.dense.get_mut(start + c as usize) {
                    *x = w;
                }
            }
            (DENSE | (start / self.stride) as u32) as u64
        } else {
            let at = self.entries.len() as u64;
            self.entries.push(row.len() as u32);
            self.entries
                .extend(row.map(|(c, w)| (c as u32) << 16 | w as u16 as u32));
            at
        };
        let mut i = key as usize & self.mask;
        while self.slots[i] != 0 {
            i = (i + 1) & self.mask;
        }
        self.slots[i] = fingerprint(key) << 32 | at;
        self.keys.push(key);
    }

    /// Adds the weights of every feature in `feats` to `scores`, whose length must be
    /// [`Weights::score_len`] (a shorter slice gets only the sparse rows' weights).
    #[inline]
    pub(crate) fn score(&self, feats: &[u64], scores: &mut [i32]) {
        self.score_signed::<false>(feats, scores)
    }

    #[inline]
    fn score_signed<const SUB: bool>(&self, feats: &[u64], scores: &mut [i32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.score_avx2::<SUB>(feats, scores) };
        }
        self.score_impl::<SUB>(feats, scores)
    }

    /// [`Weights::score`] compiled for AVX2, which adds a dense row in a few instructions.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn score_avx2<const SUB: bool>(&self, feats: &[u64], scores: &mut [i32]) {
        self.score_impl::<SUB>(feats, scores)
    }

    #[inline(always)]
    fn score_impl<const SUB: bool>(&self, feats: &[u64], scores: &mut [i32]) {
        let mut rows = [0u32; BATCH];
        for chunk in feats.chunks(BATCH) {
            for &f in chunk {
                prefetch(
                    self.slots
                        .as_ptr()
                        .wrapping_add(key48(f) as usize & self.mask),
                );
            }
            for (r, &f) in rows.iter_mut().zip(chunk) {
                *r = self.find(key48(f));
                if *r & DENSE != 0 {
                    let at = (*r & !DENSE) as usize * self.stride;
                    prefetch(self.dense.as_ptr().wrapping_add(at));
                    prefetch(self.dense.as_ptr().wrapping_add(at + 32));
                    prefetch(self.dense.as_ptr().wrapping_add(at + 64));
                } else {
                    prefetch(self.entries.as_ptr().wrapping_add(*r as usize));
                }
            }
            for &r in &rows[..chunk.len()] {
                if r & DENSE != 0 {
                    let at = (r & !DENSE) as usize * self.stride;
                    if let Some(row) = self.dense.get(at..at + self.stride) {
                        for (acc, w) in scores.chunks_exact_mut(16).zip(row.chunks_exact(16)) {
                            for i in 0..16 {
                                if SUB {
                                    acc[i] -= w[i] as i32;
                                } else {
                                    acc[i] += w[i] as i32;
                                }
                            }
                        }
                    }
                    continue;
                }
                let r = r as usize;
                let len = self.entries.get(r).copied().unwrap_or(0) as usize;
                if let Some(row) = self.entries.get(r + 1..r + 1 + len) {
                    for &e in row {
                        if let Some(x) = scores.get_mut((e >> 16) as usize) {
                            if SUB {
                                *x -= e as u16 as i16 as i32;
                            } else {
                                *x += e as u16 as i16 as i32;
                            }
                        }
                    }
                }
            }
        }
    }

    /// The row of `key`: [`DENSE`] | dense row number, or its offset in `entries` (0, an empty
    /// row, if absent).
    #[inline(always)]
    fn find(&self, key: u64) -> u32 {
        let fp = fingerprint(key);
        let mut i = key as usize & self.mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return 0;
            }
            if s >> 32 == fp {
                return s as u32;
            }
            i = (i + 1) & self.mask;
        }
    }
}

/// Bits 16..48 of the (48-bit) key, never 0 (0 marks an empty slot).
#[inline]
fn fingerprint(key: u64) -> u64 {
    ((key >> 16) & 0xFFFF_FFFF).max(1)
}

// ---------------------------------------------------------------------------------------------
// Training weights.

/// Hasher for keys that are already good hashes.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(crate) type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

#[derive(Clone, Copy, Debug)]
struct TrainEntry {
    w: f32,
    class: u8,
    stamp: u32,
    total: f64,
}

/// Weights being trained, with lazy averaging (each entry remembers when it last changed).
pub(crate) struct Trainer {
    rows: IdMap<Vec<TrainEntry>>,
    step: u32,
    /// While counting (the first epoch): how often each feature occurred.
    counts: IdMap<u32>,
    /// After [`Trainer::freeze`]: only these features may get weights.
    frozen: bool,
}

impl Trainer {
    pub(crate) fn new(n_classes: usize) -> Trainer {
        assert!(n_classes <= 256, "at most 256 classes fit the model format");
        Trainer {
            rows: IdMap::default(),
            step: 0,
            counts: IdMap::default(),
            frozen: false,
        }
    }

    /// Scores with the current (not averaged) weights.
    pub(crate) fn score(&self, feats: &[u64], scores: &mut [f32]) {
        for f in feats {
            if let Some(row) = self.rows.get(f) {
                for e in row {
                    scores[e.class as usize] += e.w;
                }
            }
        }
    }

    /// Counts the occurrences of features (call once per decision during the first epoch).
    pub(crate) fn observe(&mut self, feats: &[u64]) {
        for f in feats {
            *self.counts.entry(*f).or_default() += 1;
        }
    }

    /// Drops the features seen fewer than `min_count` times by [`Trainer::observe`] and allows no
    /// new ones: rare features cost model size and lookups and mostly learn noise.
    pub(crate) fn freeze(&mut self, min_count: u32) {
        let counts = std::mem::take(&mut self.counts);
        self.rows
            .retain(|k, _| counts.get(k).is_some_and(|&c| c >= min_count));
        for (k, c) in counts {
            if c >= min_count {
                self.rows.entry(k).or_default();
            }
        }
        self.frozen = true;
    }

    /// Counts one decision (the averaging clock).
    pub(crate) fn tick(&mut self) {
        self.step += 1;
    }

    /// Perceptron update: +1 for `truth`, -1 for `guess`.
    pub(crate) fn update(&mut self, feats: &[u64], truth: usize, guess: usize) {
        if truth != guess {
            self.change(feats, &[(truth, 1.0), (guess, -1.0)]);
        }
    }

    /// Adds each `(class, delta)` to the weights of `feats` (none to features a frozen model
    /// has no row for), settling the averages of the entries it changes.
    fn change(&mut self, feats: &[u64], deltas: &[(usize, f32)]) {
        let step = self.step;
        for f in feats {
            let row = if self.frozen {
                match self.rows.get_mut(f) {
                    Some(r) => r,
                    None => continue,
                }
            } else {
                self.rows.entry(*f).or_default()
            };
            for &(class, delta) in deltas {
                match row.iter_mut().find(|e| e.class as usize == class) {
                    Some(e) => {
                        e.total += (step - e.stamp) as f64 * e.w as f64;
                        e.stamp = step;
                        e.w += delta;
                    }
                    None => row.push(TrainEntry {
                        w: delta,
                        class: class as u8,
                        stamp: step,
                        total: 0.0,
                    }),
                }
            }
        }
    }

    /// Averaged weights, sorted by key, entries with |w| < `prune` dropped, and at most
    /// `max_features` features: those with the largest rows (sum of |w|) when there are more.
    pub(crate) fn averaged(&self, prune: f32, max_features: usize) -> Vec<(u64, Vec<(u8, f32)>)> {
        select_heaviest(self.averaged_all(prune), max_features)
    }

    fn averaged_all(&self, prune: f32) -> Vec<(u64, Vec<(u8, f32)>)> {
        let t = self.step.max(1) as f64;
        let mut out: Vec<(u64, Vec<(u8, f32)>)> = self
            .rows
            .iter()
            .filter_map(|(k, row)| {
                let mut r: Vec<(u8, f32)> = row
                    .iter()
                    .map(|e| {
                        (
                            e.class,
                            ((e.total + (self.step - e.stamp) as f64 * e.w as f64) / t) as f32,
                        )
                    })
                    .filter(|(_, w)| w.abs() >= prune)
                    .collect();
                r.sort_by_key(|e| e.0);
                (!r.is_empty()).then_some((*k, r))
            })
            .collect();
        out.sort_by_key(|r| r.0);
        out
    }

    pub(crate) fn n_features(&self) -> usize {
        self.rows.len()
    }
}

// ---------------------------------------------------------------------------------------------
// Model file.

const MAGIC: &[u8; 8] = b"SPBPCPT\x01";
const VERSION: u32 = 2;

/// Features are looked up by the low 48 bits of their hash: with a few million features, an
/// unseen feature matches a stored one with probability ~1e-8, and 48-bit keys delta-code in
/// about 4 bytes each, which is most of the model file.
const KEY_MASK: u64 = (1 << 48) - 1;

#[inline(always)]
fn key48(f: u64) -> u64 {
    (f & KEY_MASK).max(1)
}

/// A model as stored: class names, an extra blob, and weights.
pub(crate) struct ModelFile {
    pub classes: Vec<String>,
    pub extra: Vec<u8>,
    pub weights: Weights,
}

/// Serialises a model. `rows` must be sorted by key (as [`Trainer::averaged`] returns them).
pub(crate) fn write_model(
    kind: &str,
    classes: &[String],
    extra: &[u8],
    rows: &[(u64, Vec<(u8, f32)>)],
) -> Vec<u8> {
    // Keys are stored as 48 bits (see KEY_MASK); should two features share them, the heavier
    // keeps the key.
    let mass = |r: &[(u8, f32)]| r.iter().map(|e| e.1.abs()).sum::<f32>();
    let mut rows: Vec<(u64, &Vec<(u8, f32)>)> = rows.iter().map(|(k, r)| (key48(*k), r)).collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(mass(b.1).total_cmp(&mass(a.1))));
    rows.dedup_by_key(|r| r.0);
    let mut p = Vec::new();
    put_str(&mut p, kind);
    put_varint(&mut p, classes.len() as u64);
    for c in classes {
        put_str(&mut p, c);
    }
    put_varint(&mut p, extra.len() as u64);
    p.extend_from_slice(extra);
    // One scale for all weights: the largest magnitude maps to i16::MAX.
    let max = rows
        .iter()
        .flat_map(|r| r.1.iter().map(|e| e.1.abs()))
        .fold(0f32, f32::max);
    let scale = if max > 0.0 { max / 32767.0 } else { 1.0 };
    p.extend_from_slice(&scale.to_le_bytes());
    put_varint(&mut p, rows.len() as u64);
    let mut prev = 0u64;
    for &(k, _) in &rows {
        put_varint(&mut p, k.wrapping_sub(prev));
        prev = k;
    }
    for (_, r) in &rows {
        put_varint(&mut p, r.len() as u64);
    }
    for (_, r) in &rows {
        p.extend(r.iter().map(|e| e.0));
    }
    for (_, r) in &rows {
        for e in r.iter() {
            let q = (e.1 / scale).round().clamp(-32767.0, 32767.0) as i16;
            p.extend_from_slice(&q.to_le_bytes());
        }
    }
    let mut out = Vec::with_capacity(p.len() / 2);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let mut enc = flate2::write::DeflateEncoder::new(out, flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(&p);
    enc.finish().unwrap_or_default()
}

/// Reads a model written by [`write_model`]. `what` names it in errors (a path or "embedded tagger").
pub(crate) fn read_model(
    bytes: &[u8],
    what: &str,
    expected_kind: &str,
) -> Result<ModelFile, ModelError> {
    let d = decode(bytes, what, expected_kind)?;
    let mut weights = Weights::with_capacity(d.classes.len(), d.keys.len(), d.cls.len());
    let mut at = 0usize;
    for (&k, &l) in d.keys.iter().zip(&d.lens) {
        weights.insert(k, (at..at + l).map(|i| (d.cls[i], d.ws[i])));
        at += l;
    }
    Ok(ModelFile {
        classes: d.classes,
        extra: d.extra,
        weights,
    })
}

/// Rewrites a model file keeping only its `max_features` heaviest features (sum of |w| over the
/// row): trades a little accuracy for size, load time and speed without retraining.
pub fn shrink_model(
    bytes: &[u8],
    what: &str,
    kind: &str,
    max_features: usize,
) -> Result<Vec<u8>, ModelError> {
    let d = decode(bytes, what, kind)?;
    let mut rows = Vec::with_capacity(d.keys.len());
    let mut at = 0usize;
    for (&k, &l) in d.keys.iter().zip(&d.lens) {
        let row = (at..at + l)
            .map(|i| (d.cls[i], d.ws[i] as f32 * d.scale))
            .collect();
        rows.push((k, row));
        at += l;
    }
    Ok(write_model(
        kind,
        &d.classes,
        &d.extra,
        &select_heaviest(rows, max_features),
    ))
}

/// Keeps the `max` rows with the largest sum of |w| (ties: smaller key), sorted by key.
pub(crate) fn select_heaviest(
    mut rows: Vec<(u64, Vec<(u8, f32)>)>,
    max: usize,
) -> Vec<(u64, Vec<(u8, f32)>)> {
    if rows.len() > max {
        let mass = |r: &[(u8, f32)]| r.iter().map(|e| e.1.abs()).sum::<f32>();
        rows.sort_by(|a, b| mass(&b.1).total_cmp(&mass(&a.1)).then(a.0.cmp(&b.0)));
        rows.truncate(max);
        rows.sort_by_key(|r| r.0);
    }
    rows
}

/// A model file's contents, decoded and checked.
struct Decoded {
    classes: Vec<String>,
    extra: Vec<u8>,
    scale: f32,
    keys: Vec<u64>,
    lens: Vec<usize>,
    cls: Vec<u8>,
    ws: Vec<i16>,
}

fn decode(bytes: &[u8], what: &str, expected_kind: &str) -> Result<Decoded, ModelError> {
    let w = || what.to_string();
    let corrupt = |detail: String| ModelError::Corrupt { what: w(), detail };
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(ModelError::BadMagic { what: w() });
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    // Version 1 stored full 64-bit keys: still readable, its keys are cut to 48 bits here.
    if version != VERSION && version != 1 {
        return Err(ModelError::Version {
            what: w(),
            found: version,
            expected: VERSION,
        });
    }
    let mut payload = Vec::with_capacity(bytes.len() * 3);
    flate2::read::DeflateDecoder::new(&bytes[12..])
        .read_to_end(&mut payload)
        .map_err(|e| ModelError::Inflate {
            what: w(),
            detail: e.to_string(),
        })?;
    let mut r = Reader {
        b: &payload,
        pos: 0,
        what,
    };
    let kind = r.str()?;
    if kind != expected_kind {
        return Err(ModelError::Kind {
            what: w(),
            found: kind,
            expected: expected_kind.to_string(),
        });
    }
    let n_classes = r.len("class count", 256)?;
    let classes = (0..n_classes)
        .map(|_| r.str())
        .collect::<Result<Vec<_>, _>>()?;
    let n_extra = r.len("extra size", payload.len())?;
    let extra = r.take(n_extra, "extra")?.to_vec();
    let scale_b = r.take(4, "scale")?;
    let scale = f32::from_le_bytes([scale_b[0], scale_b[1], scale_b[2], scale_b[3]]);
    let n = r.len("feature count", payload.len())?;
    let mut keys = Vec::with_capacity(n);
    let mut prev = 0u64;
    for i in 0..n {
        let delta = r.varint()?;
        if delta == 0 && i > 0 && version > 1 {
            return Err(corrupt(format!("feature key {i} repeats the previous one")));
        }
        prev = prev.wrapping_add(delta);
        if version == 1 {
            keys.push(key48(prev));
            continue;
        }
        if prev == 0 || prev > KEY_MASK {
            return Err(corrupt(format!("feature key {i} out of range")));
        }
        keys.push(prev);
    }
    let mut lens = Vec::with_capacity(n);
    let mut total = 0usize;
    for _ in 0..n {
        let l = r.len("row length", n_classes)?;
        total += l;
        lens.push(l);
    }
    let cls = r.take(total, "classes")?.to_vec();
    if let Some(c) = cls.iter().find(|&&c| c as usize >= n_classes) {
        return Err(corrupt(format!("class {c} out of range")));
    }
    let ws = r
        .take(total * 2, "weights")?
        .chunks_exact(2)
        .map(|p| i16::from_le_bytes([p[0], p[1]]))
        .collect();
    if !r.at_end() {
        return Err(corrupt("trailing bytes after weights".into()));
    }
    Ok(Decoded {
        classes,
        extra,
        scale,
        keys,
        lens,
        cls,
        ws,
    })
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// A cursor over a model payload whose every read is bounds-checked.
pub(crate) struct Reader<'a> {
    pub b: &'a [u8],
    pub pos: usize,
    pub what: &'a str,
}

impl<'a> Reader<'a> {
    fn corrupt(&self, detail: String) -> ModelError {
        ModelError::Corrupt {
            what: self.what.to_string(),
            detail,
        }
    }

    pub fn varint(&mut self) -> Result<u64, ModelError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.b.get(self.pos) else {
                return Err(self.corrupt(format!("truncated varint at byte {}", self.pos)));
            };
            self.pos += 1;
            v |= ((b & 0x7F) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.corrupt(format!("overlong varint at byte {}", self.pos)))
    }

    /// A length that must not exceed `max`.
    pub fn len(&mut self, name: &str, max: usize) -> Result<usize, ModelError> {
        let v = self.varint()?;
        if v > max as u64 {
            return Err(self.corrupt(format!("{name} {v} exceeds {max}")));
        }
        Ok(v as usize)
    }

    pub fn take(&mut self, n: usize, name: &str) -> Result<&'a [u8], ModelError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len());
        match end {
            Some(e) => {
                let s = &self.b[self.pos..e];
                self.pos = e;
                Ok(s)
            }
            None => Err(self.corrupt(format!(
                "{name}: {n} bytes past the end at byte {}",
                self.pos
            ))),
        }
    }

    pub fn str(&mut self) -> Result<String, ModelError> {
        let n = self.len("string length", self.b.len())?;
        let s = self.take(n, "string")?;
        String::from_utf8(s.to_vec()).map_err(|_| self.corrupt("string is not UTF-8".into()))
    }

    pub fn at_end(&self) -> bool {
        self.pos == self.b.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_hash_matches_hash_of_lowercased_string() {
        for s in ["Dog", "dog", "ÉCOLE", "Straße", "a", "", "🐶Dog"] {
            assert_eq!(hash_lower(s), hash_str(&s.to_lowercase()), "{s}");
        }
        assert_ne!(hash_str("dog"), hash_str("cat"));
    }

    #[test]
    fn trainer_learns_and_model_round_trips() {
        let mut t = Trainer::new(3);
        let a = [feat(1, 10, 0, 0), feat(2, 20, 0, 0)];
        let b = [feat(1, 11, 0, 0), feat(2, 20, 0, 0)];
        for _ in 0..10 {
            for (fs, gold) in [(&a, 0usize), (&b, 2usize)] {
                let mut s = [0f32; 3];
                t.score(fs, &mut s);
                let guess = (0..3)
                    .max_by(|&x, &y| s[x].total_cmp(&s[y]).then(y.cmp(&x)))
                    .unwrap_or(0);
                t.update(fs, gold, guess);
                t.tick();
            }
        }
        let rows = t.averaged(0.0, usize::MAX);
        let bytes = write_model(
            "test",
            &["x".into(), "y".into(), "z".into()],
            b"extra",
            &rows,
        );
        let m = read_model(&bytes, "test model", "test").expect("round trip");
        assert_eq!(m.classes, ["x", "y", "z"]);
        assert_eq!(m.extra, b"extra");
        for (fs, gold) in [(&a, 0usize), (&b, 2usize)] {
            let mut s = vec![0i32; m.weights.score_len()];
            m.weights.score(fs, &mut s);
            let best = (0..3).max_by_key(|&x| s[x]).unwrap_or(9);
            assert_eq!(best, gold);
        }
        // Shrinking to one feature keeps the heavier one; the other's weights are gone.
        let small = shrink_model(&bytes, "m", "test", 1).expect("shrink");
        let m1 = read_model(&small, "small", "test").expect("read shrunk");
        assert_eq!(m1.weights.n_features(), 1);
        assert!(small.len() < bytes.len());
        assert!(matches!(
            read_model(&bytes, "m", "parser"),
            Err(ModelError::Kind { .. })
        ));
        assert!(matches!(
            read_model(b"garbage!", "m", "test"),
            Err(ModelError::BadMagic { .. })
        ));
        let mut cut = bytes.clone();
        cut.truncate(cut.len() - 5);
        assert!(read_model(&cut, "m", "test").is_err());
    }
}
