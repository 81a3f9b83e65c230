//! METEOR 1.5's aligner (`edu.cmu.meteor.aligner.Aligner`): which words of a candidate and a
//! reference match, and how they line up.
//!
//! In: the two captions' words, each with what the matchers compare (see [`Word`]). Out: the
//! [`Alignment`]'s counts per module (exact, stem, synonym, paraphrase) for content and function
//! words on each side, and its number of chunks. The stages, in the jar's order:
//! 1. every module proposes matches, listed under the reference position they start at (exact:
//!    equal words; stem: equal Snowball stems of different words; synonym: different words
//!    sharing a WordNet synset, base forms included; paraphrase: phrase pairs of the table, in
//!    both directions). Words are compared by Java's `String.hashCode`, as the jar does.
//! 2. a reference position with exactly one proposal whose words no other proposal touches
//!    takes it for good;
//! 3. a beam search (width 40) from left to right over the reference picks among the rest,
//!    preferring more matched words (weighted 1 for exact and 0.5 for the others, truncated to
//!    an integer as the jar's `int` fields do), then fewer chunks, then less distance. The jar's
//!    quirks are kept: the distance of a new match is added to the path it branched from (the
//!    "skip" branch and the later siblings inherit it), and ties keep their order (stable sort).

use super::paraphrase::{Found, Paraphrases};
use crate::graph::sorted_intersect;

/// Number of modules: exact, stem, synonym, paraphrase.
pub(super) const MODULES: usize = 4;

/// The aligner's module weights (`MeteorScorer` sets 1.0 / 0.5 / 0.5 / 0.5 for the search; the
/// scoring weights are separate).
const SEARCH_WEIGHTS: [f64; MODULES] = [1.0, 0.5, 0.5, 0.5];

const BEAM: usize = 40;

/// What the matchers know of one word.
#[derive(Debug, Clone)]
pub(super) struct Word {
    /// Java's `hashCode` of the word (exact matching compares these).
    pub key: i32,
    /// Java's `hashCode` of its Snowball stem.
    pub stem_key: i32,
    /// Its synsets and those of its base forms, sorted.
    pub synsets: Vec<u32>,
    /// Its id in the paraphrase table.
    pub paraphrase_id: Option<u32>,
    /// In `function/english.words`.
    pub function: bool,
}

/// A match of `length` reference words at `start` with `match_length` candidate words at
/// `match_start`, proposed by module `module`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Match {
    module: usize,
    start: usize,
    length: usize,
    match_start: usize,
    match_length: usize,
}

/// Counts of one alignment, as `MeteorScorer` copies them into its statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Alignment {
    pub test_content: [u32; MODULES],
    pub test_function: [u32; MODULES],
    pub reference_content: [u32; MODULES],
    pub reference_function: [u32; MODULES],
    pub chunks: u32,
}

/// One side of an alignment: its words, and the paraphrase table's phrases found at each of its
/// positions (looked up once per caption, however many lines it is aligned with).
pub(super) struct Line<'a> {
    words: Vec<&'a Word>,
    paraphrase_ids: Vec<Option<u32>>,
    /// The known words, sorted, without repeats.
    firsts: Vec<u32>,
    /// The phrases found at position i are `paths[starts[i]..starts[i + 1]]`.
    paths: Vec<Found>,
    starts: Vec<usize>,
    /// Synset -> the positions (bits) of the words that have it, made when first needed (for
    /// the candidate, which meets every reference); lines of at most 128 words only.
    synset_positions: std::cell::OnceCell<Option<foldhash::HashMap<u32, u128>>>,
}

impl<'a> Line<'a> {
    pub(super) fn new(words: Vec<&'a Word>, table: Option<&Paraphrases>) -> Line<'a> {
        let paraphrase_ids: Vec<Option<u32>> = words.iter().map(|w| w.paraphrase_id).collect();
        let mut firsts: Vec<u32> = paraphrase_ids.iter().flatten().copied().collect();
        firsts.sort_unstable();
        firsts.dedup();
        let mut paths = Vec::new();
        let mut starts = vec![0];
        for i in 0..words.len() {
            if let Some(t) = table {
                t.paths(&paraphrase_ids, i, &mut paths);
            }
            starts.push(paths.len());
        }
        Line {
            words,
            paraphrase_ids,
            firsts,
            paths,
            starts,
            synset_positions: std::cell::OnceCell::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.words.len()
    }

    fn synset_positions(&self) -> Option<&foldhash::HashMap<u32, u128>> {
        self.synset_positions
            .get_or_init(|| {
                (self.words.len() <= 128).then(|| {
                    let mut index = foldhash::HashMap::<u32, u128>::default();
                    for (i, w) in self.words.iter().enumerate() {
                        for &s in &w.synsets {
                            *index.entry(s).or_default() |= 1 << i;
                        }
                    }
                    index
                })
            })
            .as_ref()
    }

    fn paths_at(&self, i: usize) -> &[Found] {
        &self.paths[self.starts[i]..self.starts[i + 1]]
    }

    pub(super) fn function_words(&self) -> usize {
        self.words.iter().filter(|w| w.function).count()
    }
}

/// Aligns `test` (the candidate, the jar's line 1) with `reference` (line 2).
pub(super) fn align(
    test_line: &Line,
    reference_line: &Line,
    table: Option<&Paraphrases>,
) -> Alignment {
    let (test, reference) = (&test_line.words[..], &reference_line.words[..]);
    let (n1, n2) = (test.len(), reference.len());
    let mut stage = Stage {
        matches: vec![Vec::new(); n2],
        coverage1: vec![0; n1],
        coverage2: vec![0; n2],
    };
    // Identical lines need only exact matches ("prevents beam search errors").
    let identical = n1 == n2 && test.iter().zip(reference).all(|(a, b)| a.key == b.key);
    exact(&mut stage, test, reference);
    if !identical {
        stem(&mut stage, test, reference);
        synonym(&mut stage, test_line, reference);
        if let Some(table) = table {
            paraphrase(&mut stage, test_line, reference_line, table);
        }
    }

    // One-to-one matches that nothing else touches are fixed.
    let mut fixed: Vec<Option<Match>> = vec![None; n2];
    let mut used1 = vec![false; n1];
    let mut used2 = vec![false; n2];
    for (i, list) in stage.matches.iter().enumerate() {
        if let [m] = list.as_slice() {
            let overlap = (0..m.length).any(|j| stage.coverage2[i + j] != 1)
                || (0..m.match_length).any(|j| stage.coverage1[m.match_start + j] != 1);
            if !overlap {
                fixed[i] = Some(*m);
                used2[i..i + m.length].iter_mut().for_each(|u| *u = true);
                used1[m.match_start..m.match_start + m.match_length]
                    .iter_mut()
                    .for_each(|u| *u = true);
            }
        }
    }
    let matches = if n1 <= 128 && n2 <= 128 {
        resolve::<u128>(
            &stage,
            &fixed,
            Bits::from_flags(&used1),
            Bits::from_flags(&used2),
        )
    } else {
        resolve::<Vec<bool>>(&stage, &fixed, used1, used2)
    };

    let mut a = Alignment::default();
    for m in matches.iter().flatten() {
        for j in 0..m.match_length {
            let w = &test[m.match_start + j];
            if w.function {
                a.test_function[m.module] += 1;
            } else {
                a.test_content[m.module] += 1;
            }
        }
        for j in 0..m.length {
            if reference[m.start + j].function {
                a.reference_function[m.module] += 1;
            } else {
                a.reference_content[m.module] += 1;
            }
        }
    }
    a.chunks = count_chunks(&matches);
    a
}

/// The proposals of every module, by reference start position, and how many proposals cover
/// each position of either line.
struct Stage {
    matches: Vec<Vec<Match>>,
    coverage1: Vec<u32>,
    coverage2: Vec<u32>,
}

impl Stage {
    fn add(&mut self, m: Match) {
        for k in 0..m.match_length {
            self.coverage1[m.match_start + k] += 1;
        }
        for k in 0..m.length {
            self.coverage2[m.start + k] += 1;
        }
        self.matches[m.start].push(m);
    }
}

fn one_to_one(module: usize, j: usize, i: usize) -> Match {
    Match {
        module,
        start: j,
        length: 1,
        match_start: i,
        match_length: 1,
    }
}

fn exact(stage: &mut Stage, test: &[&Word], reference: &[&Word]) {
    for (j, r) in reference.iter().enumerate() {
        for (i, t) in test.iter().enumerate() {
            if t.key == r.key {
                stage.add(one_to_one(0, j, i));
            }
        }
    }
}

fn stem(stage: &mut Stage, test: &[&Word], reference: &[&Word]) {
    for (j, r) in reference.iter().enumerate() {
        for (i, t) in test.iter().enumerate() {
            if t.stem_key == r.stem_key && t.key != r.key {
                stage.add(one_to_one(1, j, i));
            }
        }
    }
}

fn synonym(stage: &mut Stage, test_line: &Line, reference: &[&Word]) {
    let test = &test_line.words;
    if let Some(index) = test_line.synset_positions() {
        // The candidate words sharing a synset with r, in ascending order.
        for (j, r) in reference.iter().enumerate() {
            let mut sharing = r
                .synsets
                .iter()
                .filter_map(|s| index.get(s))
                .fold(0u128, |acc, m| acc | m);
            while sharing != 0 {
                let i = sharing.trailing_zeros() as usize;
                sharing &= sharing - 1;
                if test[i].key != r.key {
                    stage.add(one_to_one(2, j, i));
                }
            }
        }
        return;
    }
    for (j, r) in reference.iter().enumerate() {
        for (i, t) in test.iter().enumerate() {
            if t.key != r.key && sorted_intersect(&t.synsets, &r.synsets) {
                stage.add(one_to_one(2, j, i));
            }
        }
    }
}

fn paraphrase(stage: &mut Stage, test: &Line, reference: &Line, table: &Paraphrases) {
    let mut found = Vec::new();
    // First paraphrases in the candidate of reference phrases, then the other way round.
    for (from, to, reference_first) in [(reference, test, true), (test, reference, false)] {
        for p in 0..from.len() {
            table.matches(from.paths_at(p), &to.paraphrase_ids, &to.firsts, &mut found);
            for &(phrase_length, paraphrase_length, q) in &found {
                let (start, length, match_start, match_length) = if reference_first {
                    (p, phrase_length, q, paraphrase_length)
                } else {
                    (q, paraphrase_length, p, phrase_length)
                };
                stage.add(Match {
                    module: 3,
                    start,
                    length,
                    match_start,
                    match_length,
                });
            }
        }
    }
}

/// The words already used on one line of a partial alignment.
trait Bits: Clone {
    fn from_flags(flags: &[bool]) -> Self;
    fn get(&self, i: usize) -> bool;
    fn set(&mut self, i: usize);
}

impl Bits for u128 {
    fn from_flags(flags: &[bool]) -> Self {
        flags
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &f)| acc | (u128::from(f) << i))
    }
    fn get(&self, i: usize) -> bool {
        self >> i & 1 == 1
    }
    fn set(&mut self, i: usize) {
        *self |= 1 << i;
    }
}

impl Bits for Vec<bool> {
    fn from_flags(flags: &[bool]) -> Self {
        flags.to_vec()
    }
    fn get(&self, i: usize) -> bool {
        self[i]
    }
    fn set(&mut self, i: usize) {
        self[i] = true;
    }
}

/// The scalar part of the jar's `PartialAlignment`; the matches it chose live in a shared list
/// (`chosen`), linked from the last one.
#[derive(Clone, Copy)]
struct Head {
    last_chosen: u32,
    matches1: i32,
    matches2: i32,
    chunks: i32,
    idx: usize,
    last_match_end: i64,
    distance: i32,
}

/// A path of the beam: its head and the words it has used on each line.
#[derive(Clone)]
struct Path<B> {
    head: Head,
    used1: B,
    used2: B,
}

const NONE: u32 = u32::MAX;

impl<B: Bits> Path<B> {
    fn is_used(&self, m: &Match) -> bool {
        (0..m.length).any(|j| self.used2.get(m.start + j))
            || (0..m.match_length).any(|j| self.used1.get(m.match_start + j))
    }
}

impl Head {
    /// Takes `m`: counts, chunk break, position (the jar's two copies of this code agree).
    fn take(&mut self, m: &Match) {
        let w = SEARCH_WEIGHTS[m.module];
        // `int += double` in Java: the sum is truncated back to an int.
        self.matches1 = (f64::from(self.matches1) + m.match_length as f64 * w) as i32;
        self.matches2 = (f64::from(self.matches2) + m.length as f64 * w) as i32;
        if self.last_match_end != -1 && m.match_start as i64 != self.last_match_end {
            self.chunks += 1;
        }
        self.idx = m.start + m.length;
        self.last_match_end = (m.match_start + m.match_length) as i64;
    }
}

fn distance(m: &Match) -> i32 {
    (m.start as i32 - m.match_start as i32).abs()
}

/// One path of the next step before it is made: the head it will have, the path of the beam it
/// comes from and the match it adds (an index into the step's proposals), if any.
#[derive(Clone, Copy)]
struct Successor {
    head: Head,
    /// Its place in the order the jar appends paths to `nextPaths`.
    order: u32,
    parent: u32,
    added: u32,
}

impl Successor {
    /// The jar's comparator: more weighted matches, then fewer chunks, then less distance; its
    /// sort is stable, so the order of creation breaks ties.
    fn key(&self) -> (i32, i32, i32, u32) {
        let h = &self.head;
        (-(h.matches1 + h.matches2), h.chunks, h.distance, self.order)
    }
}

impl PartialEq for Successor {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Successor {}
impl PartialOrd for Successor {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Successor {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// The best `BEAM` successors of a step, in the jar's order, as they are offered.
struct Best {
    heap: std::collections::BinaryHeap<Successor>,
    offered: u32,
}

impl Best {
    fn offer(&mut self, head: Head, parent: usize, added: u32) {
        let s = Successor {
            head,
            order: self.offered,
            parent: parent as u32,
            added,
        };
        self.offered += 1;
        if self.heap.len() < BEAM {
            self.heap.push(s);
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if s < *worst {
                *worst = s;
            }
        }
    }
}

/// The jar's `resolve`: the beam search over reference positions. Returns the best path's
/// matches by reference start position.
///
/// The jar makes every successor of the beam's paths (a copy of the path per proposal it can
/// take, with both lines' used words and all its matches) and then sorts them all to keep the
/// best `BEAM`: on long repetitive lines, where each reference word has hundreds of proposals,
/// that is `BEAM` x hundreds of copies of hundreds of words per position. Here each successor
/// is first only its head, computed from its path and the match it adds; the best `BEAM` heads
/// are kept as they come (in the jar's order of creation, which breaks its stable sort's ties),
/// and only those are made into paths. Same paths, same order, same result.
fn resolve<B: Bits>(
    stage: &Stage,
    fixed: &[Option<Match>],
    used1: B,
    used2: B,
) -> Vec<Option<Match>> {
    let n2 = stage.matches.len();
    let mut chosen: Vec<(Match, u32)> = Vec::new();
    // Sorted as the jar's comparator sorts it, at most BEAM long.
    let mut beam: Vec<Path<B>> = vec![Path {
        head: Head {
            last_chosen: NONE,
            matches1: 0,
            matches2: 0,
            chunks: 0,
            idx: 0,
            last_match_end: -1,
            distance: 0,
        },
        used1,
        used2,
    }];
    for current in 0..=n2 {
        let mut best = Best {
            heap: std::collections::BinaryHeap::with_capacity(BEAM + 1),
            offered: 0,
        };
        for (rank, path) in beam.iter().enumerate() {
            let mut head = path.head;
            if current == n2 {
                if head.last_match_end != -1 {
                    head.chunks += 1;
                }
                best.offer(head, rank, NONE);
                continue;
            }
            if path.used2.get(current) {
                if current < head.idx {
                    best.offer(head, rank, NONE);
                } else if let Some(m) = fixed.get(head.idx).copied().flatten() {
                    head.take(&m);
                    head.distance += distance(&m);
                    best.offer(head, rank, NONE);
                }
                continue;
            }
            for (k, m) in stage.matches[current].iter().enumerate() {
                if path.is_used(m) {
                    continue;
                }
                let mut branch = head;
                branch.take(m);
                best.offer(branch, rank, k as u32);
                // The jar adds the new match's distance to the path it branched from.
                head.distance += distance(m);
            }
            if head.last_match_end != -1 {
                head.chunks += 1;
                head.last_match_end = -1;
            }
            head.idx += 1;
            best.offer(head, rank, NONE);
        }
        let successors = best.heap.into_sorted_vec();
        if successors.is_empty() {
            // "Warning: unexpected conditions - skipping matches until possible to continue":
            // the jar goes on with its best path as it was.
            beam.truncate(1);
            continue;
        }
        beam = successors
            .iter()
            .map(|s| {
                let parent = &beam[s.parent as usize];
                let mut path = Path {
                    head: s.head,
                    used1: parent.used1.clone(),
                    used2: parent.used2.clone(),
                };
                if s.added != NONE {
                    let m = stage.matches[current][s.added as usize];
                    (0..m.length).for_each(|j| path.used2.set(m.start + j));
                    (0..m.match_length).for_each(|j| path.used1.set(m.match_start + j));
                    chosen.push((m, path.head.last_chosen));
                    path.head.last_chosen = (chosen.len() - 1) as u32;
                }
                path
            })
            .collect();
    }
    let mut matches = fixed.to_vec();
    if let Some(best) = beam.first() {
        let mut link = best.head.last_chosen;
        while link != NONE {
            let (m, parent) = chosen[link as usize];
            matches[m.start] = Some(m);
            link = parent;
        }
    }
    matches
}

/// The jar's `getCountAndChunks`: runs of matches contiguous on both lines.
fn count_chunks(matches: &[Option<Match>]) -> u32 {
    let mut chunks = 0;
    let mut idx = 0;
    let mut last_match_end: Option<usize> = None;
    while idx < matches.len() {
        match matches[idx] {
            None => {
                if last_match_end.take().is_some() {
                    chunks += 1;
                }
                idx += 1;
            }
            Some(m) => {
                if last_match_end.is_some_and(|end| m.match_start != end) {
                    chunks += 1;
                }
                idx = m.start + m.length;
                last_match_end = Some(m.match_start + m.match_length);
            }
        }
    }
    if last_match_end.is_some() {
        chunks += 1;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split(' ')
            .map(|w| Word {
                key: crate::javaorder::string_hash(w),
                stem_key: crate::javaorder::string_hash(w.trim_end_matches('s')),
                synsets: Vec::new(),
                paraphrase_id: None,
                function: matches!(w, "a" | "the" | "on"),
            })
            .collect()
    }

    fn line(words: &[Word]) -> Line<'_> {
        Line::new(words.iter().collect(), None)
    }

    #[test]
    fn exact_and_stem_matches_count_by_module_and_word_kind() {
        let (test, reference) = (
            words("a dog runs on the grass"),
            words("the dogs run on grass"),
        );
        let a = align(&line(&test), &line(&reference), None);
        // Exact: the, on, grass (content: grass); stem (here: without a final "s"): dog/dogs,
        // runs/run. Every match is alone at its place, so all are fixed.
        assert_eq!(a.test_content, [1, 2, 0, 0]);
        assert_eq!(a.test_function, [2, 0, 0, 0]);
        assert_eq!(a.reference_content, [1, 2, 0, 0]);
        assert_eq!(a.reference_function, [2, 0, 0, 0]);
        // Chunks follow the reference: the | dogs run on | grass ("the" and "grass" are apart
        // from the rest in the candidate).
        assert_eq!(a.chunks, 3);
    }

    #[test]
    fn identical_lines_are_one_chunk() {
        let w = words("a man rides");
        let a = align(&line(&w), &line(&w), None);
        assert_eq!((a.test_content[0] + a.test_function[0], a.chunks), (3, 1));
    }
}
