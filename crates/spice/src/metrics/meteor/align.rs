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
//!
//! The jar's own search makes every successor of every path before keeping 40, and lists every
//! proposal one by one: on long repetitive lines (a word repeated hundreds of times on both
//! sides) that is hundreds of copies of each path at each position, minutes and gigabytes (issue
//! 35). Here the one-to-one proposals of a word are one set of bits shared by all its places,
//! and only the successors that can be among the 40 kept are made (`resolve`); the choice is
//! the jar's, ties included (`tests::the_search_chooses_what_the_jar_chooses` holds the jar's
//! search as written as the oracle).

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
    let stage = propose(test_line, reference_line, table);
    let matches = search(&stage);

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

/// Stage 1: every module's proposals.
fn propose(test_line: &Line, reference_line: &Line, table: Option<&Paraphrases>) -> Stage {
    let (test, reference) = (&test_line.words[..], &reference_line.words[..]);
    let mut stage = Stage::new(test.len(), reference.len());
    // Identical lines need only exact matches ("prevents beam search errors").
    let identical =
        test.len() == reference.len() && test.iter().zip(reference).all(|(a, b)| a.key == b.key);
    stage.one_to_one(0, reference, |r| stage_set(test, |t| t.key == r.key));
    if !identical {
        stage.one_to_one(1, reference, |r| {
            stage_set(test, |t| t.stem_key == r.stem_key && t.key != r.key)
        });
        stage.one_to_one(2, reference, |r| synonym(test_line, r));
    }
    stage.count_one_to_one();
    if !identical {
        if let Some(table) = table {
            paraphrase(&mut stage, test_line, reference_line, table);
        }
    }
    stage
}

/// Stages 2 and 3: the proposals alone at their place are fixed, the beam search picks among
/// the rest. The chosen matches by reference start position.
fn search(stage: &Stage) -> Vec<Option<Match>> {
    let (n1, n2) = (stage.coverage1.len(), stage.coverage2.len());
    let mut fixed: Vec<Option<Match>> = vec![None; n2];
    let mut used1 = vec![false; n1];
    let mut used2 = vec![false; n2];
    for (i, slot) in fixed.iter_mut().enumerate() {
        let Some(m) = stage.only_proposal(i) else {
            continue;
        };
        let overlap = (0..m.length).any(|j| stage.coverage2[i + j] != 1)
            || (0..m.match_length).any(|j| stage.coverage1[m.match_start + j] != 1);
        if !overlap {
            *slot = Some(m);
            used2[i..i + m.length].iter_mut().for_each(|u| *u = true);
            used1[m.match_start..m.match_start + m.match_length]
                .iter_mut()
                .for_each(|u| *u = true);
        }
    }
    if n1 <= 128 && n2 <= 128 {
        resolve::<u128>(
            stage,
            &fixed,
            Bits::from_flags(&used1),
            Bits::from_flags(&used2),
        )
    } else {
        resolve::<Vec<u64>>(
            stage,
            &fixed,
            Bits::from_flags(&used1),
            Bits::from_flags(&used2),
        )
    }
}

/// The proposals of every module, by reference start position, and how many proposals cover
/// each position of either line.
///
/// The one-to-one modules (exact, stem, synonym) propose, for a reference word, every candidate
/// word that matches it, in the candidate's order: a set of candidate positions that depends on
/// the reference word alone. Each set is kept once, as bits, and shared by every position of the
/// word; a long repetitive pair of lines would otherwise list its n1 x n2 proposals one by one.
struct Stage {
    /// `u64`s per set: one bit per candidate position.
    width: usize,
    /// The sets, `width` words each.
    sets: Vec<u64>,
    /// At each reference position, the set of each one-to-one module (`NONE`: no proposal).
    one_to_one: Vec<[u32; 3]>,
    /// Paraphrase proposals by reference start position.
    phrases: Vec<Vec<Match>>,
    coverage1: Vec<u32>,
    coverage2: Vec<u32>,
}

impl Stage {
    fn new(n1: usize, n2: usize) -> Stage {
        Stage {
            width: n1.div_ceil(64),
            sets: Vec::new(),
            one_to_one: vec![[NONE; 3]; n2],
            phrases: vec![Vec::new(); n2],
            coverage1: vec![0; n1],
            coverage2: vec![0; n2],
        }
    }

    fn set(&self, s: u32) -> &[u64] {
        let start = s as usize * self.width;
        &self.sets[start..start + self.width]
    }

    /// Proposes module `module`'s matches: `matching(r)` gives the candidate positions (bits)
    /// matching reference word `r`, asked once per distinct word.
    fn one_to_one(
        &mut self,
        module: usize,
        reference: &[&Word],
        mut matching: impl FnMut(&Word) -> Vec<u64>,
    ) {
        let mut known: foldhash::HashMap<*const Word, u32> = foldhash::HashMap::default();
        for (j, r) in reference.iter().enumerate() {
            let s = *known.entry(*r as *const Word).or_insert_with(|| {
                let bits = matching(r);
                if bits.iter().all(|&w| w == 0) {
                    return NONE;
                }
                self.sets.extend_from_slice(&bits);
                (self.sets.len() / self.width.max(1) - 1) as u32
            });
            self.one_to_one[j][module] = s;
        }
    }

    /// Counts the one-to-one proposals into the coverage of both lines.
    fn count_one_to_one(&mut self) {
        let mut uses = vec![0u32; self.sets.len() / self.width.max(1)];
        for (j, slots) in self.one_to_one.iter().enumerate() {
            for &s in slots.iter().filter(|&&s| s != NONE) {
                uses[s as usize] += 1;
                self.coverage2[j] += self.set(s).iter().map(|w| w.count_ones()).sum::<u32>();
            }
        }
        let width = self.width;
        for (s, &n) in uses.iter().enumerate() {
            let set = &self.sets[s * width..(s + 1) * width];
            for (k, &word) in set.iter().enumerate() {
                for_each_bit(word, |b| self.coverage1[64 * k + b] += n);
            }
        }
    }

    fn add_phrase(&mut self, m: Match) {
        for k in 0..m.match_length {
            self.coverage1[m.match_start + k] += 1;
        }
        for k in 0..m.length {
            self.coverage2[m.start + k] += 1;
        }
        self.phrases[m.start].push(m);
    }

    /// The proposal at reference position `j` if it is the only one there.
    fn only_proposal(&self, j: usize) -> Option<Match> {
        let mut only = None;
        let mut count = self.phrases[j].len();
        for (module, &s) in self.one_to_one[j].iter().enumerate() {
            if s == NONE {
                continue;
            }
            for (k, &word) in self.set(s).iter().enumerate() {
                count += word.count_ones() as usize;
                if word != 0 && only.is_none() {
                    only = Some(one_to_one(
                        module,
                        j,
                        64 * k + word.trailing_zeros() as usize,
                    ));
                }
            }
        }
        match count {
            1 => only.or_else(|| self.phrases[j].first().copied()),
            _ => None,
        }
    }
}

/// Calls `f` with the position of each bit set in `word`, in ascending order.
fn for_each_bit(mut word: u64, mut f: impl FnMut(usize)) {
    while word != 0 {
        f(word.trailing_zeros() as usize);
        word &= word - 1;
    }
}

/// The candidate positions whose word satisfies `matches`, as bits.
fn stage_set(test: &[&Word], matches: impl Fn(&Word) -> bool) -> Vec<u64> {
    let mut bits = vec![0u64; test.len().div_ceil(64)];
    for (i, t) in test.iter().enumerate() {
        if matches(t) {
            bits[i / 64] |= 1 << (i % 64);
        }
    }
    bits
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

/// The candidate words that share a synset with `r` but are not `r`.
fn synonym(test_line: &Line, r: &Word) -> Vec<u64> {
    let test = &test_line.words;
    if let Some(index) = test_line.synset_positions() {
        let mut sharing = r
            .synsets
            .iter()
            .filter_map(|s| index.get(s))
            .fold(0u128, |acc, m| acc | m);
        let mut bits = vec![0u64; test.len().div_ceil(64)];
        while sharing != 0 {
            let i = sharing.trailing_zeros() as usize;
            sharing &= sharing - 1;
            if test[i].key != r.key {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        return bits;
    }
    stage_set(test, |t| {
        t.key != r.key && sorted_intersect(&t.synsets, &r.synsets)
    })
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
                stage.add_phrase(Match {
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
    /// Positions `64 k .. 64 k + 64`, as bits.
    fn word(&self, k: usize) -> u64;
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
    fn word(&self, k: usize) -> u64 {
        (self >> (64 * k)) as u64
    }
}

impl Bits for Vec<u64> {
    fn from_flags(flags: &[bool]) -> Self {
        let mut bits = vec![0u64; flags.len().div_ceil(64)];
        for (i, _) in flags.iter().enumerate().filter(|(_, &f)| f) {
            bits[i / 64] |= 1 << (i % 64);
        }
        bits
    }
    fn get(&self, i: usize) -> bool {
        self[i / 64] >> (i % 64) & 1 == 1
    }
    fn set(&mut self, i: usize) {
        self[i / 64] |= 1 << (i % 64);
    }
    fn word(&self, k: usize) -> u64 {
        self[k]
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
/// comes from and the match it adds, if any.
#[derive(Clone, Copy)]
struct Successor {
    head: Head,
    /// Its place in the order the jar appends paths to `nextPaths`.
    order: u32,
    parent: u32,
    added: Option<Match>,
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
    /// Offers a successor; false if it cannot be among the best (the beam is full of better).
    fn offer(&mut self, head: Head, parent: usize, added: Option<Match>) -> bool {
        let s = Successor {
            head,
            order: self.offered,
            parent: parent as u32,
            added,
        };
        self.offered += 1;
        if self.heap.len() < BEAM {
            self.heap.push(s);
            return true;
        }
        match self.heap.peek_mut() {
            Some(mut worst) if s < *worst => {
                *worst = s;
                true
            }
            _ => false,
        }
    }

    /// Offers the branches of `path` (whose distance is `head`'s) by the one-to-one proposals
    /// of `module` at reference position `j`, the candidate positions of `set`, in their
    /// order, adding each one's distance to `head` as the jar does.
    ///
    /// The branches differ only in their distance, which grows along the set, and in their
    /// chunks (one fewer for the branch that continues the path's chunk). So once a branch is
    /// refused, every later one is refused too, but that continuing one: the rest of the set
    /// only adds its distances to the path's, counted a word of bits at a time.
    fn offer_one_to_one<B: Bits>(
        &mut self,
        head: &mut Head,
        used1: &B,
        rank: usize,
        (module, j): (usize, usize),
        set: &[u64],
    ) {
        let w = SEARCH_WEIGHTS[module];
        // As `Head::take` computes them for a match of one word on each side.
        let matches1 = (f64::from(head.matches1) + w) as i32;
        let matches2 = (f64::from(head.matches2) + w) as i32;
        let continuing = usize::try_from(head.last_match_end).ok();
        let (chunks, last_chosen) = (head.chunks, head.last_chosen);
        let broken = chunks + i32::from(continuing.is_some());
        let branch = |i: usize, distance: i32| Head {
            matches1,
            matches2,
            chunks: if Some(i) == continuing {
                chunks
            } else {
                broken
            },
            idx: j + 1,
            last_match_end: (i + 1) as i64,
            distance,
            last_chosen,
        };
        let mut open = true;
        for (k, &bits) in set.iter().enumerate() {
            let mut free = bits & !used1.word(k);
            while open && free != 0 {
                let i = 64 * k + free.trailing_zeros() as usize;
                free &= free - 1;
                let taken = self.offer(
                    branch(i, head.distance),
                    rank,
                    Some(one_to_one(module, j, i)),
                );
                open = taken || Some(i) == continuing;
                head.distance = head.distance.wrapping_add(distance_between(j, i));
            }
            if free == 0 {
                continue;
            }
            if let Some(c) = continuing.filter(|&c| c / 64 == k && free >> (c % 64) & 1 == 1) {
                let before = free & ((1u64 << (c % 64)) - 1);
                head.distance = head.distance.wrapping_add(sum_distances(before, k, j));
                self.offer(
                    branch(c, head.distance),
                    rank,
                    Some(one_to_one(module, j, c)),
                );
                free &= !before;
            }
            head.distance = head.distance.wrapping_add(sum_distances(free, k, j));
        }
    }
}

/// `|j - i|`, the jar's distance of a match of reference position `j` and candidate position `i`.
fn distance_between(j: usize, i: usize) -> i32 {
    (j as i32 - i as i32).abs()
}

/// The distances of reference position `j` to the candidate positions `64 k + b` of the bits
/// `b` of `word`, summed as the jar's `int` sums them (modulo 2^32).
fn sum_distances(word: u64, k: usize, j: usize) -> i32 {
    let base = 64 * k;
    let (below, above) = if j < base {
        (0, word)
    } else if j >= base + 64 {
        (word, 0)
    } else {
        let o = j - base;
        let upto = if o == 63 {
            u64::MAX
        } else {
            (1u64 << (o + 1)) - 1
        };
        (word & ((1u64 << o) - 1), word & !upto)
    };
    let j = j as i64;
    let sum = j * i64::from(below.count_ones()) - position_sum(below, base)
        + position_sum(above, base)
        - j * i64::from(above.count_ones());
    sum as i32
}

/// The sum of the positions `base + b` of the bits `b` of `word`.
fn position_sum(word: u64, base: usize) -> i64 {
    // Bit t of the positions: the bits whose position has it, counted.
    const HAS: [u64; 6] = [
        0xAAAA_AAAA_AAAA_AAAA,
        0xCCCC_CCCC_CCCC_CCCC,
        0xF0F0_F0F0_F0F0_F0F0,
        0xFF00_FF00_FF00_FF00,
        0xFFFF_0000_FFFF_0000,
        0xFFFF_FFFF_0000_0000,
    ];
    let within: i64 = HAS
        .iter()
        .enumerate()
        .map(|(t, m)| i64::from((word & m).count_ones()) << t)
        .sum();
    base as i64 * i64::from(word.count_ones()) + within
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
/// and only those are made into paths; a one-to-one module's proposals are offered one by one
/// only until one is refused ([`Best::offer_one_to_one`]). Same paths, same order, same result.
/// Distances are the jar's `int`s, summed modulo 2^32 as Java sums them (on lines of tens of
/// thousands of words they could wrap; the jar would take hours to get there).
fn resolve<B: Bits>(
    stage: &Stage,
    fixed: &[Option<Match>],
    used1: B,
    used2: B,
) -> Vec<Option<Match>> {
    let n2 = stage.one_to_one.len();
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
                best.offer(head, rank, None);
                continue;
            }
            if path.used2.get(current) {
                if current < head.idx {
                    best.offer(head, rank, None);
                } else if let Some(m) = fixed.get(head.idx).copied().flatten() {
                    head.take(&m);
                    head.distance = head.distance.wrapping_add(distance(&m));
                    best.offer(head, rank, None);
                }
                continue;
            }
            for (module, &s) in stage.one_to_one[current].iter().enumerate() {
                if s != NONE {
                    best.offer_one_to_one(
                        &mut head,
                        &path.used1,
                        rank,
                        (module, current),
                        stage.set(s),
                    );
                }
            }
            for m in &stage.phrases[current] {
                if path.is_used(m) {
                    continue;
                }
                let mut branch = head;
                branch.take(m);
                best.offer(branch, rank, Some(*m));
                // The jar adds the new match's distance to the path it branched from.
                head.distance = head.distance.wrapping_add(distance(m));
            }
            if head.last_match_end != -1 {
                head.chunks += 1;
                head.last_match_end = -1;
            }
            head.idx += 1;
            best.offer(head, rank, None);
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
                if let Some(m) = s.added {
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

    /// The jar's proposals at each reference position, in its order: exact, stem, synonym (each
    /// along the candidate), then paraphrases.
    fn proposals(stage: &Stage) -> Vec<Vec<Match>> {
        (0..stage.one_to_one.len())
            .map(|j| {
                let mut list = Vec::new();
                for (module, &s) in stage.one_to_one[j].iter().enumerate() {
                    if s != NONE {
                        for (k, &word) in stage.set(s).iter().enumerate() {
                            for_each_bit(word, |b| list.push(one_to_one(module, j, 64 * k + b)));
                        }
                    }
                }
                list.extend(&stage.phrases[j]);
                list
            })
            .collect()
    }

    /// The jar's `resolve` as it is written: every successor made, all sorted (stably), the
    /// best `BEAM` kept. The oracle of `resolve`, which must choose the same matches. Its loop
    /// over reference positions is the jar's, index and all.
    #[allow(clippy::needless_range_loop)]
    fn jar_resolve(stage: &Stage) -> Vec<Option<Match>> {
        #[derive(Clone)]
        struct Partial {
            matches: Vec<Option<Match>>,
            head: Head,
            used1: Vec<bool>,
            used2: Vec<bool>,
        }
        let lists = proposals(stage);
        let (n1, n2) = (stage.coverage1.len(), stage.coverage2.len());
        let mut start = Partial {
            matches: vec![None; n2],
            head: Head {
                last_chosen: NONE,
                matches1: 0,
                matches2: 0,
                chunks: 0,
                idx: 0,
                last_match_end: -1,
                distance: 0,
            },
            used1: vec![false; n1],
            used2: vec![false; n2],
        };
        for (i, list) in lists.iter().enumerate() {
            if let [m] = list.as_slice() {
                let overlap = (0..m.length).any(|j| stage.coverage2[i + j] != 1)
                    || (0..m.match_length).any(|j| stage.coverage1[m.match_start + j] != 1);
                if !overlap {
                    start.matches[i] = Some(*m);
                    (0..m.length).for_each(|j| start.used2[i + j] = true);
                    (0..m.match_length).for_each(|j| start.used1[m.match_start + j] = true);
                }
            }
        }
        let used = |p: &Partial, m: &Match| {
            (0..m.length).any(|j| p.used2[m.start + j])
                || (0..m.match_length).any(|j| p.used1[m.match_start + j])
        };
        let mut next = vec![start];
        for current in 0..=n2 {
            let mut paths = std::mem::take(&mut next);
            paths.sort_by_key(|p| {
                (
                    -(p.head.matches1 + p.head.matches2),
                    p.head.chunks,
                    p.head.distance,
                )
            });
            for mut path in paths.iter().take(BEAM).cloned() {
                if current == n2 {
                    if path.head.last_match_end != -1 {
                        path.head.chunks += 1;
                    }
                    next.push(path);
                    continue;
                }
                if path.used2[current] {
                    if current < path.head.idx {
                        next.push(path);
                    } else if let Some(m) = path.matches[path.head.idx] {
                        path.head.take(&m);
                        path.head.distance += distance(&m);
                        next.push(path);
                    }
                    continue;
                }
                for m in &lists[current] {
                    if used(&path, m) {
                        continue;
                    }
                    let mut branch = path.clone();
                    (0..m.length).for_each(|j| branch.used2[m.start + j] = true);
                    (0..m.match_length).for_each(|j| branch.used1[m.match_start + j] = true);
                    branch.matches[current] = Some(*m);
                    branch.head.take(m);
                    next.push(branch);
                    path.head.distance += distance(m);
                }
                if path.head.last_match_end != -1 {
                    path.head.chunks += 1;
                    path.head.last_match_end = -1;
                }
                path.head.idx += 1;
                next.push(path);
            }
            if next.is_empty() {
                next.push(paths[0].clone());
            }
        }
        next.sort_by_key(|p| {
            (
                -(p.head.matches1 + p.head.matches2),
                p.head.chunks,
                p.head.distance,
            )
        });
        next.swap_remove(0).matches
    }

    /// A small random source (xorshift), so the cases are the same on every run.
    struct Random(u64);
    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Random words of a small vocabulary (so lines repeat themselves), some sharing a stem,
    /// some a synset.
    fn random_words(r: &mut Random, vocabulary: usize, n: usize) -> Vec<Word> {
        (0..n)
            .map(|_| {
                let v = r.below(vocabulary);
                Word {
                    key: v as i32,
                    stem_key: (v / 2) as i32,
                    synsets: vec![(v / 3) as u32],
                    paraphrase_id: None,
                    function: v.is_multiple_of(4),
                }
            })
            .collect()
    }

    #[test]
    fn the_search_chooses_what_the_jar_chooses() {
        let mut r = Random(35);
        for case in 0..300 {
            // Short and long lines (past 128 words the search keeps its used words otherwise),
            // few or many words.
            let (n1, n2) = match case % 10 {
                0 => (129 + r.below(40), 1 + r.below(140)),
                1..=4 => (1 + r.below(12), 1 + r.below(12)),
                5..=7 => (1 + r.below(60), 1 + r.below(60)),
                _ => (1 + r.below(120), 1 + r.below(30)),
            };
            let vocabulary = 1 + r.below(8);
            let test = random_words(&mut r, vocabulary, n1);
            let reference = if case % 7 == 0 {
                test.clone()
            } else {
                random_words(&mut r, vocabulary, n2)
            };
            let mut stage = propose(&line(&test), &line(&reference), None);
            // Phrase proposals, as the paraphrase module makes them.
            for _ in 0..r.below(3 * reference.len()) {
                let (length, match_length) = (1 + r.below(3), 1 + r.below(3));
                if length > reference.len() || match_length > test.len() {
                    continue;
                }
                stage.add_phrase(Match {
                    module: 3,
                    start: r.below(reference.len() - length + 1),
                    length,
                    match_start: r.below(test.len() - match_length + 1),
                    match_length,
                });
            }
            assert_eq!(
                search(&stage),
                jar_resolve(&stage),
                "case {case}: {} x {} words",
                test.len(),
                reference.len()
            );
        }
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
