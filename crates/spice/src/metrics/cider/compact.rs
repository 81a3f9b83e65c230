//! The compact stored form of [`CiderDf`]: bytes that read back several times faster than the
//! JSON form (which parses a string per n-gram and splits it) and than counting again.
//!
//! Layout (integers are LEB128 varints):
//! `CIDErDF1`, the number of images, the number of tokens, each token (byte length, UTF-8
//! bytes), the number of n-grams, and each n-gram (its order n, its n token indices, its
//! document frequency). Tokens are sorted by their bytes and n-grams by their token indices (an
//! n-gram after the longer ones it begins), so equal frequencies give equal bytes whatever order
//! they were counted in.

use foldhash::{HashMap, HashMapExt};

use super::super::ngrams::{order as order_of, pack, split_py, unpack, NGram, MAX_N};
use super::super::MetricsError;
use super::CiderDf;

const MAGIC: &[u8; 8] = b"CIDErDF1";

impl CiderDf {
    /// The compact form (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Token ids in sorted token order.
        let mut order: Vec<u32> = (0..self.tokens.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.tokens[a as usize].cmp(&self.tokens[b as usize]));
        let mut rank = vec![0u32; self.tokens.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        // N-grams as packed sorted-order indices: sorting the integers sorts the n-grams.
        let mut grams: Vec<(NGram, u32)> = self
            .index
            .iter()
            .map(|(g, &slot)| {
                let ids: Vec<u32> = unpack(*g).map(|id| rank[id as usize]).collect();
                (pack(&ids), self.counts[slot as usize])
            })
            .collect();
        grams.sort_unstable();

        let mut out = Vec::with_capacity(16 + self.tokens.len() * 8 + grams.len() * 8);
        out.extend_from_slice(MAGIC);
        put(&mut out, self.images as u64);
        put(&mut out, order.len() as u64);
        for &id in &order {
            let token = self.tokens[id as usize].as_bytes();
            put(&mut out, token.len() as u64);
            out.extend_from_slice(token);
        }
        put(&mut out, grams.len() as u64);
        for &(g, count) in &grams {
            put(&mut out, order_of(&g) as u64);
            for id in unpack(g) {
                put(&mut out, u64::from(id));
            }
            put(&mut out, u64::from(count));
        }
        out
    }

    /// Reads the compact form, checking it as [`CiderDf`]'s JSON form is checked: every n-gram
    /// 1 to 4 known tokens, no n-gram twice, frequencies in `1..=images`.
    pub fn from_bytes(bytes: &[u8]) -> Result<CiderDf, MetricsError> {
        let bad = |reason: &str| MetricsError::InvalidDocumentFrequencies {
            reason: format!("compact form: {reason}"),
        };
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or_else(|| bad("does not start with CIDErDF1"))?;
        let mut r = Reader { bytes: rest, at: 0 };
        let truncated = || bad("truncated");
        let images = usize::try_from(r.varint().ok_or_else(truncated)?)
            .map_err(|_| bad("too many images"))?;
        let n_tokens = r.len().ok_or_else(truncated)?;
        let mut out = CiderDf {
            images,
            vocab: HashMap::with_capacity(n_tokens),
            tokens: Vec::with_capacity(n_tokens),
            index: HashMap::new(),
            counts: Vec::new(),
        };
        for _ in 0..n_tokens {
            let len = r.len().ok_or_else(truncated)?;
            let raw = r.take(len).ok_or_else(truncated)?;
            let token = std::str::from_utf8(raw).map_err(|_| bad("a token is not UTF-8"))?;
            if split_py(token).count() != 1 || split_py(token).next() != Some(token) {
                return Err(bad(&format!("{token:?} is not one token")));
            }
            if out.tokens.last().is_some_and(|last| **last >= *token) {
                return Err(bad("tokens are not sorted and distinct"));
            }
            out.vocab.insert(token.into(), out.tokens.len() as u32);
            out.tokens.push(token.into());
        }
        let n_grams = r.len().ok_or_else(truncated)?;
        out.index.reserve(n_grams);
        out.counts.reserve(n_grams);
        let mut ids = [0u32; MAX_N];
        for _ in 0..n_grams {
            let n = r.len().ok_or_else(truncated)?;
            if !(1..=MAX_N).contains(&n) {
                return Err(bad(&format!("an n-gram of order {n}")));
            }
            for slot in &mut ids[..n] {
                let id = r.varint().ok_or_else(truncated)?;
                if id >= n_tokens as u64 {
                    return Err(bad("an n-gram names an unknown token"));
                }
                *slot = id as u32;
            }
            let count = r.varint().ok_or_else(truncated)?;
            if count == 0 || count > images as u64 {
                return Err(bad(&format!(
                    "a frequency of {count}, outside 1..={images}"
                )));
            }
            let g: NGram = pack(&ids[..n]);
            if out.index.insert(g, out.counts.len() as u32).is_some() {
                return Err(bad("an n-gram appears twice"));
            }
            out.counts.push(count as u32);
        }
        if r.at != r.bytes.len() {
            return Err(bad("bytes after the last n-gram"));
        }
        Ok(out)
    }
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            v |= u64::from(b & 0x7F) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    /// A count or a length: at most what the remaining bytes could hold.
    fn len(&mut self) -> Option<usize> {
        let v = usize::try_from(self.varint()?).ok()?;
        (v <= self.bytes.len() - self.at).then_some(v)
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at + len)?;
        self.at += len;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{cider_d, cider_d_self};
    use super::*;
    use crate::metrics::ImageCaptions;

    fn images() -> Vec<ImageCaptions> {
        [
            ("a dog runs", vec!["a dog runs on grass", "a brown dog"]),
            ("a cat", vec!["a cat sleeps", "the cat on a mat"]),
            (
                "two men ride bikes",
                vec!["two men riding bikes down a road"],
            ),
        ]
        .into_iter()
        .map(|(c, r)| {
            ImageCaptions::new(c.to_string(), r.into_iter().map(String::from).collect())
                .expect("has references")
        })
        .collect()
    }

    #[test]
    fn the_compact_form_reads_back_to_the_same_scores() {
        let images = images();
        let df = CiderDf::from_references(images.iter().map(|i| i.references()));
        let bytes = df.to_bytes();
        let back = CiderDf::from_bytes(&bytes).expect("reads back");
        assert_eq!(back.images(), df.images());
        assert_eq!(back.len(), df.len());
        assert_eq!((back.get(&["a"]), back.get(&["a", "dog"])), (3, 1));
        assert_eq!(cider_d(&back, &images), cider_d_self(&images));
        assert_eq!(back.to_bytes(), bytes);
        // The same frequencies counted in another order give the same bytes.
        let reversed = CiderDf::from_references(images.iter().rev().map(|i| i.references()));
        assert_eq!(reversed.to_bytes(), bytes);
        // Far smaller than the JSON form.
        let json = serde_json::to_string(&df).expect("serializes");
        assert!(
            bytes.len() * 2 < json.len(),
            "{} vs {}",
            bytes.len(),
            json.len()
        );
    }

    #[test]
    fn damaged_bytes_are_refused() {
        let df = CiderDf::from_references([vec!["a dog"], vec!["a cat"]]);
        let bytes = df.to_bytes();
        let err = |b: &[u8]| {
            CiderDf::from_bytes(b)
                .map(|_| ())
                .expect_err("refused")
                .to_string()
        };
        assert!(err(b"{\"images\": 2}").contains("CIDErDF1"));
        assert!(err(&bytes[..bytes.len() - 1]).contains("truncated"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(err(&longer).contains("after the last"));
        // Frequency 3 of 2 images: the last byte is the last n-gram's frequency.
        let mut high = bytes.clone();
        *high.last_mut().expect("bytes") = 3;
        assert!(err(&high).contains("outside 1..=2"), "{}", err(&high));
    }
}
