//! The captions of an evaluation as token ids, computed once and shared by BLEU and CIDEr-D.
//!
//! Every caption is split as Python's `str.split()` splits it and each distinct token gets one
//! id for the whole evaluation, so that n-grams of different images compare as integers. Ids are
//! assigned in parallel (each chunk of images interns its own tokens, then the chunk vocabularies
//! are merged); their values depend on nothing but the captions, and no score depends on them.

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use super::ngrams::split_py;
use super::ImageCaptions;

/// Images per chunk of the parallel interning.
const CHUNK: usize = 256;

/// Token ids of every caption of an evaluation.
pub(crate) struct Corpus {
    /// Token ids of every caption, back to back: per image its candidate, then its references.
    tokens: Vec<u32>,
    /// Caption `k` is `tokens[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    /// Image `i`'s candidate is caption `first[i]`, its references are the captions up to
    /// `first[i + 1]`.
    first: Vec<usize>,
    /// Number of distinct tokens (ids are below it).
    vocabulary: usize,
}

/// One chunk's captions with ids local to the chunk.
struct LocalChunk<'a> {
    vocab: Vec<&'a str>,
    tokens: Vec<u32>,
    /// Number of tokens of each caption.
    lens: Vec<usize>,
    /// Number of captions of each image.
    captions: Vec<usize>,
}

impl Corpus {
    pub(crate) fn new(images: &[ImageCaptions]) -> Corpus {
        let mut chunks: Vec<LocalChunk<'_>> = images
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut ids: HashMap<&str, u32> = HashMap::with_capacity(1024);
                let mut local = LocalChunk {
                    vocab: Vec::new(),
                    tokens: Vec::new(),
                    lens: Vec::new(),
                    captions: Vec::with_capacity(chunk.len()),
                };
                for image in chunk {
                    let captions = std::iter::once(image.candidate())
                        .chain(image.references().iter().map(String::as_str));
                    let mut n = 0;
                    for caption in captions {
                        let before = local.tokens.len();
                        for_each_token(caption, |t| {
                            let vocab = &mut local.vocab;
                            let id = *ids.entry(t).or_insert_with(|| {
                                vocab.push(t);
                                (vocab.len() - 1) as u32
                            });
                            local.tokens.push(id);
                        });
                        local.lens.push(local.tokens.len() - before);
                        n += 1;
                    }
                    local.captions.push(n);
                }
                local
            })
            .collect();
        // Merge the chunk vocabularies (a few thousand tokens each), then renumber in parallel.
        let mut global: HashMap<&str, u32> = HashMap::new();
        let remaps: Vec<Vec<u32>> = chunks
            .iter()
            .map(|c| {
                c.vocab
                    .iter()
                    .map(|t| {
                        let next = global.len() as u32;
                        *global.entry(t).or_insert(next)
                    })
                    .collect()
            })
            .collect();
        chunks.par_iter_mut().zip(&remaps).for_each(|(c, remap)| {
            for t in &mut c.tokens {
                *t = remap[*t as usize];
            }
        });
        let total_tokens = chunks.iter().map(|c| c.tokens.len()).sum();
        let total_captions: usize = chunks.iter().map(|c| c.lens.len()).sum();
        let mut corpus = Corpus {
            tokens: Vec::with_capacity(total_tokens),
            starts: Vec::with_capacity(total_captions + 1),
            first: Vec::with_capacity(images.len() + 1),
            vocabulary: global.len(),
        };
        corpus.starts.push(0);
        corpus.first.push(0);
        for c in &chunks {
            corpus.tokens.extend_from_slice(&c.tokens);
            let mut at = *corpus.starts.last().unwrap_or(&0);
            for &len in &c.lens {
                at += len;
                corpus.starts.push(at);
            }
            let mut caption = *corpus.first.last().unwrap_or(&0);
            for &n in &c.captions {
                caption += n;
                corpus.first.push(caption);
            }
        }
        corpus
    }

    /// Number of distinct tokens; every token id is below it.
    pub(crate) fn vocabulary(&self) -> usize {
        self.vocabulary
    }

    /// Number of images.
    pub(crate) fn len(&self) -> usize {
        self.first.len() - 1
    }

    fn caption(&self, k: usize) -> &[u32] {
        &self.tokens[self.starts[k]..self.starts[k + 1]]
    }

    /// Token ids of image `i`'s candidate.
    pub(crate) fn candidate(&self, i: usize) -> &[u32] {
        self.caption(self.first[i])
    }

    /// Token ids of image `i`'s references, in order.
    pub(crate) fn references(&self, i: usize) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (self.first[i] + 1..self.first[i + 1]).map(move |k| self.caption(k))
    }
}

/// Calls `f` on each token of `caption` as Python's `str.split()` finds them ([`split_py`]),
/// with a fast path for ASCII text (where Python's white space is the six usual characters and
/// the separators U+001C..U+001F).
fn for_each_token<'a>(caption: &'a str, mut f: impl FnMut(&'a str)) {
    if !caption.is_ascii() {
        split_py(caption).for_each(f);
        return;
    }
    let bytes = caption.as_bytes();
    let mut start = None;
    for (i, &b) in bytes.iter().enumerate() {
        let space = matches!(b, b' ' | b'\t'..=b'\r' | 0x1c..=0x1f);
        match (space, start) {
            (true, Some(s)) => {
                f(&caption[s..i]);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        f(&caption[s..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_fast_path_splits_as_python_does() {
        for s in [
            "a man  rides\ta\x0bhorse\x1c!",
            "",
            "   ",
            " lead and trail ",
            "x\r\ny\x0cz\x1fw",
        ] {
            let mut fast = Vec::new();
            for_each_token(s, |t| fast.push(t));
            let slow: Vec<&str> = split_py(s).collect();
            assert_eq!(fast, slow, "{s:?}");
        }
    }

    #[test]
    fn equal_tokens_get_equal_ids_across_images_and_chunks() {
        let images: Vec<ImageCaptions> = (0..CHUNK * 2 + 3)
            .map(|i| {
                let refs = vec![format!("a dog {}", i % 7), "the dog".to_string()];
                ImageCaptions::new(format!("dog {}", i % 5), refs).expect("has refs")
            })
            .collect();
        let corpus = Corpus::new(&images);
        assert_eq!(corpus.len(), images.len());
        let dog = corpus.candidate(0)[0];
        for i in [0, 1, CHUNK, 2 * CHUNK + 2] {
            let refs: Vec<&[u32]> = corpus.references(i).collect();
            assert_eq!(refs.len(), 2);
            assert_eq!(refs[0][1], dog);
            assert_eq!(refs[1][1], dog);
            assert_eq!(corpus.candidate(i)[0], dog);
        }
        // "a dog 3" in image 3 and image 3 + 7 * 40 (another chunk): same ids.
        let far = 3 + 7 * 40;
        assert_eq!(corpus.references(3).next(), corpus.references(far).next());
        assert_ne!(corpus.candidate(1), corpus.candidate(2));
    }
}
