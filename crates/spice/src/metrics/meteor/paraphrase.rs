//! METEOR 1.5's English paraphrase table (`paraphrase-en.gz`, 5.3 million phrase pairs) in a
//! compact form that loads in milliseconds, and the lookups its `ParaphraseTransducer` answers.
//!
//! The gzip file holds triples of lines: a probability (unused by METEOR), a phrase, one of its
//! paraphrases. The jar builds a word trie of the phrases; for a sentence and a start position it
//! returns, for each phrase that the words from there begin with (shortest first), that phrase's
//! paraphrases in file order. A trie walk stops at the first word no phrase continues with.
//!
//! The compact form (`paraphrase-en.bin`, written beside the other derived data on first use)
//! keeps the same answers: the vocabulary sorted by bytes (a word's id is its rank), the distinct
//! phrases sorted by their word ids (a trie level is then a binary search in a range), and for
//! each phrase its paraphrases in file order; plus two indexes, the trie's first level (each
//! word's first phrase) and each phrase's paraphrases ordered by their first word (only those
//! whose first word occurs in the other caption can match). Everything is little-endian `u32`,
//! read in place from the mapped file.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use super::MeteorError;

const MAGIC: &[u8; 8] = b"MTRPARA3";

/// The bytes of the compact form: mapped from the cache file, or built in memory.
enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.len())
    }
}

/// Maps a file read-only.
fn map(path: &Path) -> std::io::Result<memmap2::Mmap> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the map is only read. The one hazard, another process truncating the file
    // meanwhile, cannot come from us: the cache is only ever replaced by a rename, which leaves
    // a mapped file intact.
    #[allow(unsafe_code)]
    unsafe {
        memmap2::Mmap::map(&file)
    }
}

/// The paraphrase table, read-only, in its compact form.
#[derive(Debug)]
pub(super) struct Paraphrases {
    bytes: Bytes,
    /// Byte offsets of the sections (see `build`, which writes them).
    vocab_offsets: usize,
    vocab_blob: usize,
    n_vocab: usize,
    phrase_offsets: usize,
    phrase_words: usize,
    phrase_entries: usize,
    n_phrases: usize,
    entry_offsets: usize,
    entry_words: usize,
    /// Each phrase's entries again, ordered by their paraphrase's first word (then file order),
    /// as (first word, entry) pairs.
    by_first: usize,
    /// For each word id, the first phrase starting with it (the trie's first level).
    first_level: usize,
}

/// A phrase found at a start position: its length, and its paraphrases (entries
/// `entries.0..entries.1`, in file order).
#[derive(Debug, Clone, Copy)]
pub(super) struct Found {
    pub len: usize,
    pub entries: (u32, u32),
}

impl Paraphrases {
    /// The compact form at `cache`, made from `source` (the gzip file) first if it is missing or
    /// was made from a file of another size. Where the cache cannot be written (a read-only data
    /// directory), the table is built in memory, every time.
    ///
    /// The cache is trusted once its header and section sizes check out: it is this module's own
    /// output, replaced only by an atomic rename.
    pub(super) fn load(source: &Path, cache: &Path) -> Result<Paraphrases, MeteorError> {
        let source_len = std::fs::metadata(source)
            .map_err(|e| MeteorError::Missing {
                path: source.display().to_string(),
                reason: e.to_string(),
            })?
            .len();
        if let Ok(bytes) = map(cache) {
            if let Ok(table) = Paraphrases::from_bytes(Bytes::Mapped(bytes), source_len) {
                return Ok(table);
            }
        }
        let file = std::fs::File::open(source).map_err(|e| MeteorError::Missing {
            path: source.display().to_string(),
            reason: e.to_string(),
        })?;
        let bytes = build(MultiGzDecoder::new(file), source_len).map_err(|e| MeteorError::Bad {
            path: source.display().to_string(),
            reason: e.to_string(),
        })?;
        // Written to a temporary name and renamed, so a reader never sees half a file.
        let tmp = cache.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &bytes).is_ok() {
            let _ = std::fs::rename(&tmp, cache);
        }
        let _ = std::fs::remove_file(&tmp);
        Paraphrases::from_bytes(Bytes::Owned(bytes), source_len).map_err(|reason| {
            MeteorError::Bad {
                path: cache.display().to_string(),
                reason,
            }
        })
    }

    fn from_bytes(bytes: Bytes, source_len: u64) -> Result<Paraphrases, String> {
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            return Err("not a paraphrase table".into());
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        if u64_at(8) != source_len {
            return Err("made from another paraphrase file".into());
        }
        let mut t = Paraphrases {
            bytes,
            vocab_offsets: 0,
            vocab_blob: 0,
            n_vocab: 0,
            phrase_offsets: 0,
            phrase_words: 0,
            phrase_entries: 0,
            n_phrases: 0,
            entry_offsets: 0,
            entry_words: 0,
            by_first: 0,
            first_level: 0,
        };
        // Walks the sections, checking each fits in the file.
        let len = t.bytes.len();
        let mut at = 16usize;
        let take_u32 = |t: &Paraphrases, at: &mut usize| -> Result<usize, String> {
            if *at + 4 > len {
                return Err("truncated".into());
            }
            let v = t.u32_at(*at) as usize;
            *at += 4;
            Ok(v)
        };
        let skip = |at: &mut usize, n: usize| -> Result<usize, String> {
            let start = *at;
            *at = at
                .checked_add(n.checked_mul(4).ok_or("too large")?)
                .ok_or("too large")?;
            if *at > len {
                return Err("truncated".into());
            }
            Ok(start)
        };
        t.n_vocab = take_u32(&t, &mut at)?;
        t.vocab_offsets = skip(&mut at, t.n_vocab + 1)?;
        let blob_words = take_u32(&t, &mut at)?;
        t.vocab_blob = skip(&mut at, blob_words)?;
        t.n_phrases = take_u32(&t, &mut at)?;
        t.phrase_offsets = skip(&mut at, t.n_phrases + 1)?;
        let n_phrase_words = take_u32(&t, &mut at)?;
        t.phrase_words = skip(&mut at, n_phrase_words)?;
        t.phrase_entries = skip(&mut at, t.n_phrases + 1)?;
        let n_entries = take_u32(&t, &mut at)?;
        t.entry_offsets = skip(&mut at, n_entries + 1)?;
        let n_entry_words = take_u32(&t, &mut at)?;
        t.entry_words = skip(&mut at, n_entry_words)?;
        t.by_first = skip(&mut at, 2 * n_entries)?;
        t.first_level = skip(&mut at, t.n_vocab + 1)?;
        if at != len {
            return Err("bytes after the last section".into());
        }
        // The offsets tables must stay inside their sections (so lookups cannot panic).
        let last = |start: usize, n: usize| t.u32_at(start + 4 * n) as usize;
        if last(t.vocab_offsets, t.n_vocab) > blob_words * 4
            || last(t.phrase_offsets, t.n_phrases) > n_phrase_words
            || last(t.phrase_entries, t.n_phrases) > n_entries
            || last(t.entry_offsets, n_entries) > n_entry_words
            || last(t.first_level, t.n_vocab) > t.n_phrases
        {
            return Err("an offset points past its section".into());
        }
        Ok(t)
    }

    fn u32_at(&self, at: usize) -> u32 {
        let mut b = [0u8; 4];
        b.copy_from_slice(&self.bytes[at..at + 4]);
        u32::from_le_bytes(b)
    }

    fn table(&self, start: usize, i: usize) -> usize {
        self.u32_at(start + 4 * i) as usize
    }

    fn vocab_word(&self, id: usize) -> &[u8] {
        let (a, b) = (
            self.table(self.vocab_offsets, id),
            self.table(self.vocab_offsets, id + 1),
        );
        &self.bytes[self.vocab_blob + a..self.vocab_blob + b.max(a)]
    }

    /// The word's id, if the table knows it (the jar's `translate`, -1 there for unknown words).
    pub(super) fn word_id(&self, word: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.n_vocab);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.vocab_word(mid).cmp(word.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u32),
            }
        }
        None
    }

    fn phrase(&self, p: usize) -> (usize, usize) {
        (
            self.table(self.phrase_offsets, p),
            self.table(self.phrase_offsets, p + 1),
        )
    }

    fn phrase_word(&self, p: usize, k: usize) -> Option<u32> {
        let (a, b) = self.phrase(p);
        (a + k < b).then(|| self.table(self.phrase_words, a + k) as u32)
    }

    /// The jar's `getReferencePaths(words, start)`: each phrase that `words[start..]` begins
    /// with, shortest first, with its paraphrases, appended to `out`.
    pub(super) fn paths(&self, words: &[Option<u32>], start: usize, out: &mut Vec<Found>) {
        let (mut lo, mut hi) = (0usize, self.n_phrases);
        for (k, word) in words[start..].iter().enumerate() {
            let Some(w) = *word else { break };
            let (first, end) = if k == 0 {
                let w = w as usize;
                (
                    self.table(self.first_level, w),
                    self.table(self.first_level, w + 1),
                )
            } else {
                // Phrases in lo..hi share the first k words; one of exactly k words sorts first.
                if lo < hi && self.phrase(lo).1 - self.phrase(lo).0 == k {
                    lo += 1;
                }
                // The phrases whose word k is w.
                let key = |p: usize| self.phrase_word(p, k).unwrap_or(0);
                let first = lo + partition_point(hi - lo, |i| key(lo + i) < w);
                (
                    first,
                    first + partition_point(hi - first, |i| key(first + i) <= w),
                )
            };
            if first == end {
                break;
            }
            (lo, hi) = (first, end);
            let (a, b) = self.phrase(lo);
            if b - a == k + 1 {
                out.push(Found {
                    len: k + 1,
                    entries: (
                        self.table(self.phrase_entries, lo) as u32,
                        self.table(self.phrase_entries, lo + 1) as u32,
                    ),
                });
            }
        }
    }

    /// The words of a paraphrase (`getParaphrase`).
    pub(super) fn paraphrase(&self, entry: u32) -> impl Iterator<Item = u32> + '_ {
        let e = entry as usize;
        let (a, b) = (
            self.table(self.entry_offsets, e),
            self.table(self.entry_offsets, e + 1),
        );
        (a..b.max(a)).map(move |i| self.table(self.entry_words, i) as u32)
    }

    pub(super) fn paraphrase_len(&self, entry: u32) -> usize {
        let e = entry as usize;
        self.table(self.entry_offsets, e + 1)
            .saturating_sub(self.table(self.entry_offsets, e))
    }

    /// The jar's `ParaphraseMatcher` loop for one start position, given what [`Self::paths`]
    /// found there: for each phrase (shortest first), each of its paraphrases in file order, and
    /// each position of `other` (ascending) where that paraphrase's words stand, one
    /// `(phrase length, paraphrase length, position)`. `firsts` is `other`'s known words, sorted
    /// and without repeats.
    ///
    /// Common words have hundreds of paraphrases; only those whose first word occurs in `other`
    /// can match, so only those are tried (found through `by_first`, then put back in file
    /// order), which gives the same list.
    pub(super) fn matches(
        &self,
        found: &[Found],
        other: &[Option<u32>],
        firsts: &[u32],
        out: &mut Vec<(usize, usize, usize)>,
    ) {
        out.clear();
        if found.is_empty() || firsts.is_empty() {
            return;
        }
        let mut candidates: Vec<u32> = Vec::new();
        for f in found {
            let (len, a, b) = (f.len, f.entries.0 as usize, f.entries.1 as usize);
            candidates.clear();
            let first_of = |i: usize| self.table(self.by_first, 2 * i) as u32;
            let entry_at = |i: usize| self.table(self.by_first, 2 * i + 1) as u32;
            if b - a <= 4 * firsts.len() {
                candidates.extend(
                    (a..b)
                        .filter(|&i| firsts.binary_search(&first_of(i)).is_ok())
                        .map(entry_at),
                );
            } else {
                for &w in firsts {
                    let lo = a + partition_point(b - a, |i| first_of(a + i) < w);
                    let hi = lo + partition_point(b - lo, |i| first_of(lo + i) <= w);
                    candidates.extend((lo..hi).map(entry_at));
                }
            }
            candidates.sort_unstable();
            for &entry in &candidates {
                let n = self.paraphrase_len(entry);
                for pos in 0..other.len() {
                    if pos + n <= other.len()
                        && self
                            .paraphrase(entry)
                            .zip(&other[pos..])
                            .all(|(w, o)| *o == Some(w))
                    {
                        out.push((len, n, pos));
                    }
                }
            }
        }
    }
}

fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Reads the gzip table and writes the compact form.
fn build(reader: impl Read, source_len: u64) -> std::io::Result<Vec<u8>> {
    let mut reader = BufReader::with_capacity(1 << 20, reader);
    let mut vocab: foldhash::HashMap<Vec<u8>, u32> = foldhash::HashMap::default();
    let mut words: Vec<Vec<u8>> = Vec::new();
    // Phrase and paraphrase words, flat, with offsets, in file order.
    let (mut ref_words, mut ref_offsets) = (Vec::<u32>::new(), vec![0u32]);
    let (mut par_words, mut par_offsets) = (Vec::<u32>::new(), vec![0u32]);
    let mut line = Vec::new();
    let mut id_of = |w: &[u8], vocab: &mut foldhash::HashMap<Vec<u8>, u32>| -> u32 {
        if let Some(&id) = vocab.get(w) {
            return id;
        }
        let id = words.len() as u32;
        words.push(w.to_vec());
        vocab.insert(w.to_vec(), id);
        id
    };
    // Java's readLine ends a line at \n, \r or \r\n; the jar reads three lines per entry.
    let mut read_line = |line: &mut Vec<u8>| -> std::io::Result<bool> {
        line.clear();
        if reader.read_until(b'\n', line)? == 0 {
            return Ok(false);
        }
        while line.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
            line.pop();
        }
        Ok(true)
    };
    loop {
        if !read_line(&mut line)? {
            break; // the probability line
        }
        for (words_out, offsets) in [
            (&mut ref_words, &mut ref_offsets),
            (&mut par_words, &mut par_offsets),
        ] {
            if !read_line(&mut line)? {
                return Err(std::io::Error::other("a phrase pair is cut short"));
            }
            let text = String::from_utf8_lossy(&line);
            for w in text
                .split(super::normalize::is_tokenizer_space)
                .filter(|w| !w.is_empty())
            {
                words_out.push(id_of(w.as_bytes(), &mut vocab));
            }
            offsets.push(words_out.len() as u32);
        }
    }
    drop(vocab);
    // Ids by sorted vocabulary.
    let mut order: Vec<u32> = (0..words.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| words[a as usize].cmp(&words[b as usize]));
    let mut rank = vec![0u32; words.len()];
    for (r, &id) in order.iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    for w in ref_words.iter_mut().chain(par_words.iter_mut()) {
        *w = rank[*w as usize];
    }
    let n_entries = ref_offsets.len() - 1;
    let refs = |e: usize| &ref_words[ref_offsets[e] as usize..ref_offsets[e + 1] as usize];
    // Entries by phrase, file order kept among equal phrases (a stable sort). A phrase of no
    // words is never reached by the jar's trie walk: dropped. (The file has no paraphrase of no
    // words, which the jar would match everywhere; such an entry would be dropped too.)
    let mut entries: Vec<u32> = (0..n_entries as u32)
        .filter(|&e| {
            !refs(e as usize).is_empty() && par_offsets[e as usize + 1] > par_offsets[e as usize]
        })
        .collect();
    entries.sort_by(|&a, &b| refs(a as usize).cmp(refs(b as usize)));

    let mut out = Vec::with_capacity(64 << 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&source_len.to_le_bytes());
    let put = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as u32).to_le_bytes());
    // Vocabulary.
    put(&mut out, order.len());
    let mut offset = 0;
    put(&mut out, 0);
    for &id in &order {
        offset += words[id as usize].len();
        put(&mut out, offset);
    }
    let blob_words = offset.div_ceil(4);
    put(&mut out, blob_words);
    for &id in &order {
        out.extend_from_slice(&words[id as usize]);
    }
    out.resize(out.len() + blob_words * 4 - offset, 0);
    // Distinct phrases, their words, and their entries' ranges.
    let mut phrase_starts: Vec<usize> = Vec::new(); // index into `entries`
    for (i, &e) in entries.iter().enumerate() {
        if i == 0 || refs(e as usize) != refs(entries[i - 1] as usize) {
            phrase_starts.push(i);
        }
    }
    put(&mut out, phrase_starts.len());
    let mut offset = 0;
    put(&mut out, 0);
    for &i in &phrase_starts {
        offset += refs(entries[i] as usize).len();
        put(&mut out, offset);
    }
    put(&mut out, offset);
    for &i in &phrase_starts {
        for &w in refs(entries[i] as usize) {
            put(&mut out, w as usize);
        }
    }
    for &i in &phrase_starts {
        put(&mut out, i);
    }
    put(&mut out, entries.len());
    // Paraphrases in `entries` order.
    put(&mut out, entries.len());
    let mut offset = 0;
    put(&mut out, 0);
    for &e in &entries {
        let e = e as usize;
        offset += (par_offsets[e + 1] - par_offsets[e]) as usize;
        put(&mut out, offset);
    }
    put(&mut out, offset);
    for &e in &entries {
        let e = e as usize;
        for &w in &par_words[par_offsets[e] as usize..par_offsets[e + 1] as usize] {
            put(&mut out, w as usize);
        }
    }
    // Within each phrase, its entries (as positions in `entries`) by first paraphrase word.
    let first_word = |i: usize| {
        let e = entries[i] as usize;
        par_words
            .get(par_offsets[e] as usize)
            .copied()
            .unwrap_or(u32::MAX)
    };
    for (k, &a) in phrase_starts.iter().enumerate() {
        let b = phrase_starts.get(k + 1).copied().unwrap_or(entries.len());
        let mut within: Vec<usize> = (a..b).collect();
        within.sort_by_key(|&i| (first_word(i), i));
        for i in within {
            put(&mut out, first_word(i) as usize);
            put(&mut out, i);
        }
    }
    // The first phrase of each first word (phrases are sorted by their first word first).
    let mut first_level = vec![phrase_starts.len(); order.len() + 1];
    for (p, &i) in phrase_starts.iter().enumerate().rev() {
        first_level[refs(entries[i] as usize)[0] as usize] = p;
    }
    for w in (0..order.len()).rev() {
        first_level[w] = first_level[w].min(first_level[w + 1]);
    }
    for &p in &first_level {
        put(&mut out, p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Paraphrases {
        let bytes = build(text.as_bytes(), 7).expect("builds");
        Paraphrases::from_bytes(Bytes::Owned(bytes), 7).expect("reads back")
    }

    fn ids(t: &Paraphrases, s: &str) -> Vec<Option<u32>> {
        s.split(' ').map(|w| t.word_id(w)).collect()
    }

    fn found(t: &Paraphrases, s: &str, start: usize) -> Vec<(usize, Vec<u32>)> {
        let mut out = Vec::new();
        t.paths(&ids(t, s), start, &mut out);
        out.iter()
            .flat_map(|p| (p.entries.0..p.entries.1).map(move |e| (p.len, e)))
            .map(|(len, e)| (len, t.paraphrase(e).collect()))
            .collect()
    }

    #[test]
    fn lookups_answer_as_the_jar_trie_does() {
        let t = table(
            "0.1\na man\na person\n0.2\na\none\n0.3\na man\nsomeone\n0.4\nman on\nguy upon\n",
        );
        let w = |s: &str| t.word_id(s).expect("known");
        // "a" then "a man" (file order among the two paraphrases of "a man").
        assert_eq!(
            found(&t, "a man on", 0),
            vec![
                (1, vec![w("one")]),
                (2, vec![w("a"), w("person")]),
                (2, vec![w("someone")]),
            ]
        );
        assert_eq!(
            found(&t, "a man on", 1),
            vec![(2, vec![w("guy"), w("upon")])]
        );
        // An unknown word ends the walk.
        assert_eq!(found(&t, "xyz a", 0), vec![]);
        assert_eq!(t.word_id("xyz"), None);
        // A wrong source size means the cache is stale.
        assert!(Paraphrases::from_bytes(Bytes::Owned(t.bytes.to_vec()), 8).is_err());
    }
}
