//! Honest uncertainty on the leaderboard (issue 14, part 4), from the per-image scores a
//! submission already has.
//!
//! - **Intervals.** Each column whose score is a mean over images (SPICE and its six categories,
//!   ROUGE-L, CIDEr-D) gets a 95 % bootstrap percentile interval: the submission's images, in
//!   image-id order, are resampled with replacement `RESAMPLES` times from the fixed `SEED`, and
//!   the column's score (the mean over the resampled images whose score is defined, SPICE's macro
//!   average) is recomputed on each resample. BLEU-4 and METEOR are corpus statistics, not means
//!   of the stored per-image values, and get no interval.
//! - **Ties.** Two entries on the same images are resampled alike (the draws depend on the seed
//!   and the image count only), so the differences of their resampled scores are a paired
//!   bootstrap of the difference of their scores; the entry is tied with the one above when the
//!   two-sided p-value (`spice::metaeval::stats::paired_p_value`) is at least 0.05.
//! - **Comparison.** Two entries compared on the images both scored: per column, the difference
//!   of their scores with its paired-bootstrap interval and p-value, and the images where their
//!   SPICE differs most.
//!
//! The statistics themselves are `spice::metaeval::stats` (shared with `spice meta-eval`).

use spice::metaeval::stats;

use super::leaderboard::SortKey;

/// Bootstrap resamples per interval and test.
pub const RESAMPLES: usize = 1000;
/// The bootstrap's seed: the same draws on every machine and every run.
pub const SEED: u64 = 2014;
/// Significance level of the tie mark: tied when p >= ALPHA.
pub const ALPHA: f64 = 0.05;

/// The columns with per-image values, in the order of `ImageValues::values`.
pub const COLUMNS: [SortKey; 9] = [
    SortKey::Spice,
    SortKey::Object,
    SortKey::Relation,
    SortKey::Attribute,
    SortKey::Color,
    SortKey::Count,
    SortKey::Size,
    SortKey::RougeL,
    SortKey::CiderD,
];

/// One image's scores in the `COLUMNS`, `None` where undefined (or not computed).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageValues {
    pub image_id: i64,
    pub values: [Option<f64>; 9],
}

/// The bootstrap of one column of one submission.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    pub metric: SortKey,
    /// The column's score: the mean over the images whose value is defined.
    pub estimate: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub images: i32,
    /// `image_set(ids)` of the resampled images.
    pub image_set: i64,
    pub seed: u64,
    /// The score in each resample (NaN where no resampled image has a defined value).
    pub replicates: Vec<f64>,
}

/// A fingerprint of image ids in order (FNV-1a, 64 bits): submissions with equal fingerprints,
/// seeds and replicate counts were resampled on the same images in the same way.
pub fn image_set(ids: impl IntoIterator<Item = i64>) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for id in ids {
        for byte in id.to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h as i64
}

fn row_major(images: &[&ImageValues], columns: &[usize]) -> Vec<f64> {
    images
        .iter()
        .flat_map(|i| columns.iter().map(|&c| i.values[c].unwrap_or(f64::NAN)))
        .collect()
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u32);
    for v in values.flatten() {
        sum += v;
        n += 1;
    }
    (n > 0).then(|| sum / f64::from(n))
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The intervals of every column of a submission whose per-image values are `images` (any
/// order; they are resampled in image-id order).
pub fn intervals(images: &[ImageValues]) -> Vec<Interval> {
    let mut sorted: Vec<&ImageValues> = images.iter().collect();
    sorted.sort_by_key(|i| i.image_id);
    let all: Vec<usize> = (0..COLUMNS.len()).collect();
    let means = stats::bootstrap_means(&row_major(&sorted, &all), all.len(), RESAMPLES, SEED);
    let set = image_set(sorted.iter().map(|i| i.image_id));
    COLUMNS
        .iter()
        .zip(means)
        .enumerate()
        .map(|(c, (&metric, replicates))| {
            let estimate = mean(sorted.iter().map(|i| i.values[c]));
            let [low, high] = stats::interval95(&replicates);
            Interval {
                metric,
                estimate,
                low: estimate.and(finite(low)),
                high: estimate.and(finite(high)),
                images: sorted.len() as i32,
                image_set: set,
                seed: SEED,
                replicates,
            }
        })
        .collect()
}

/// The paired-bootstrap p-value of the difference between two submissions' scores in one
/// column, from their stored replicates; `None` when they were not resampled alike (different
/// images, seed or count) or either has no score.
pub fn paired_p(a: &Interval, b: &Interval) -> Option<f64> {
    let alike = a.image_set == b.image_set
        && a.images == b.images
        && a.seed == b.seed
        && a.replicates.len() == b.replicates.len();
    if !alike || a.estimate.is_none() || b.estimate.is_none() {
        return None;
    }
    let d: Vec<f64> = a
        .replicates
        .iter()
        .zip(&b.replicates)
        .map(|(x, y)| x - y)
        .collect();
    finite(stats::paired_p_value(&d))
}

/// Is the difference between two entries not significant (p >= `ALPHA`)? `None`: not tested.
pub fn tied(a: &Interval, b: &Interval) -> Option<(bool, f64)> {
    paired_p(a, b).map(|p| (p >= ALPHA, p))
}

/// One column of a comparison: A's and B's scores on the common images and A - B with its
/// paired-bootstrap interval and p-value.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub metric: SortKey,
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub difference: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub p: Option<f64>,
}

/// One image's SPICE in both entries.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageDifference {
    pub image_id: i64,
    pub a: f64,
    pub b: f64,
}

/// Two entries compared on the images both scored.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub images: usize,
    pub columns: Vec<Difference>,
    /// Images whose SPICE differs, largest difference first (ties by image id), at most `top`.
    pub most_different: Vec<ImageDifference>,
    /// A's SPICE minus B's on every common image, in image-id order; NaN where either is
    /// undefined (the compare page's histogram).
    pub spice_differences: Vec<f64>,
}

/// Compares entry A (`a`) with entry B (`b`) on the images both have, resampled in image-id
/// order from `SEED` (the same resamples for both: a paired bootstrap).
pub fn compare(a: &[ImageValues], b: &[ImageValues], top: usize) -> Comparison {
    let by_id: std::collections::HashMap<i64, &ImageValues> =
        b.iter().map(|i| (i.image_id, i)).collect();
    let mut pairs: Vec<(&ImageValues, &ImageValues)> = a
        .iter()
        .filter_map(|x| by_id.get(&x.image_id).map(|y| (x, *y)))
        .collect();
    pairs.sort_by_key(|(x, _)| x.image_id);
    let width = COLUMNS.len();
    // Columns 0..width are A's, width..2 width B's.
    let values: Vec<f64> = pairs
        .iter()
        .flat_map(|(x, y)| {
            x.values
                .iter()
                .chain(y.values.iter())
                .map(|v| v.unwrap_or(f64::NAN))
        })
        .collect();
    let means = stats::bootstrap_means(&values, 2 * width, RESAMPLES, SEED);
    let columns = COLUMNS
        .iter()
        .enumerate()
        .map(|(c, &metric)| {
            let sa = mean(pairs.iter().map(|(x, _)| x.values[c]));
            let sb = mean(pairs.iter().map(|(_, y)| y.values[c]));
            let difference = sa.zip(sb).map(|(x, y)| x - y);
            let d: Vec<f64> = means[c]
                .iter()
                .zip(&means[width + c])
                .map(|(x, y)| x - y)
                .collect();
            let [low, high] = stats::interval95(&d);
            Difference {
                metric,
                a: sa,
                b: sb,
                difference,
                low: difference.and(finite(low)),
                high: difference.and(finite(high)),
                p: difference.and(finite(stats::paired_p_value(&d))),
            }
        })
        .collect();
    let most_different: Vec<ImageDifference> = pairs
        .iter()
        .filter_map(|(x, y)| {
            let (a, b) = (x.values[0]?, y.values[0]?);
            (a != b).then_some(ImageDifference {
                image_id: x.image_id,
                a,
                b,
            })
        })
        .collect();
    let spice_differences = pairs
        .iter()
        .map(|(x, y)| {
            x.values[0]
                .zip(y.values[0])
                .map_or(f64::NAN, |(a, b)| a - b)
        })
        .collect();
    Comparison {
        images: pairs.len(),
        columns,
        most_different: largest_differences(most_different, top),
        spice_differences,
    }
}

/// The `top` images whose SPICE differs most, largest difference first (ties by image id).
fn largest_differences(mut images: Vec<ImageDifference>, top: usize) -> Vec<ImageDifference> {
    images.sort_by(|p, q| {
        (q.a - q.b)
            .abs()
            .total_cmp(&(p.a - p.b).abs())
            .then(p.image_id.cmp(&q.image_id))
    });
    images.truncate(top);
    images
}

/// [`compare`] from what the leaderboard stores, without bootstrapping again: the intervals of
/// both entries (`a` and `b`, one per column of `COLUMNS`) and each image's SPICE (`spice_a`,
/// `spice_b`: image id and F, `None` where undefined, in image-id order). Two entries resampled
/// alike (the same images, seed and count) have, in each column, the replicates and the mean that
/// [`compare`] would compute (`stats::bootstrap_means` gives a column the same means whatever
/// columns are beside it), so the result is [`compare`]'s, bit for bit. `None` when they were
/// not resampled alike or an interval is missing: the caller then compares the per-image scores.
pub fn compare_stored(
    a: &[Interval],
    b: &[Interval],
    spice_a: &[(i64, Option<f64>)],
    spice_b: &[(i64, Option<f64>)],
    top: usize,
) -> Option<Comparison> {
    let same_images = spice_a.len() == spice_b.len()
        && spice_a.iter().zip(spice_b).all(|(x, y)| x.0 == y.0)
        && spice_a.windows(2).all(|w| w[0].0 < w[1].0);
    if !same_images {
        return None;
    }
    let column = |intervals: &[Interval], metric: SortKey| -> Option<Interval> {
        intervals.iter().find(|i| i.metric == metric).cloned()
    };
    let mut columns = Vec::with_capacity(COLUMNS.len());
    for metric in COLUMNS {
        let (x, y) = (column(a, metric)?, column(b, metric)?);
        let alike = x.image_set == y.image_set
            && x.images == y.images
            && x.images as usize == spice_a.len()
            && x.seed == SEED
            && y.seed == SEED
            && x.replicates.len() == RESAMPLES
            && y.replicates.len() == RESAMPLES;
        if !alike {
            return None;
        }
        let difference = x.estimate.zip(y.estimate).map(|(p, q)| p - q);
        let d: Vec<f64> = x
            .replicates
            .iter()
            .zip(&y.replicates)
            .map(|(p, q)| p - q)
            .collect();
        let [low, high] = stats::interval95(&d);
        columns.push(Difference {
            metric,
            a: x.estimate,
            b: y.estimate,
            difference,
            low: difference.and(finite(low)),
            high: difference.and(finite(high)),
            p: difference.and(finite(stats::paired_p_value(&d))),
        });
    }
    let differing = spice_a
        .iter()
        .zip(spice_b)
        .filter_map(|(&(image_id, x), &(_, y))| {
            let (a, b) = (x?, y?);
            (a != b).then_some(ImageDifference { image_id, a, b })
        })
        .collect();
    let spice_differences = spice_a
        .iter()
        .zip(spice_b)
        .map(|(x, y)| x.1.zip(y.1).map_or(f64::NAN, |(a, b)| a - b))
        .collect();
    Some(Comparison {
        images: spice_a.len(),
        columns,
        most_different: largest_differences(differing, top),
        spice_differences,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(spice: &[f64]) -> Vec<ImageValues> {
        spice
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let mut values = [None; 9];
                values[0] = Some(s);
                // Object defined on even images only.
                values[1] = (i % 2 == 0).then_some(s / 2.0);
                ImageValues {
                    image_id: 100 + i as i64,
                    values,
                }
            })
            .collect()
    }

    fn spread(n: usize, offset: f64) -> Vec<f64> {
        (0..n)
            .map(|i| (i * 37 % 100) as f64 / 100.0 + offset)
            .collect()
    }

    #[test]
    fn an_interval_surrounds_the_score_and_leaves_undefined_images_out() {
        let images = entry(&spread(200, 0.0));
        let iv = intervals(&images);
        let spice = &iv[0];
        let expected: f64 = spread(200, 0.0).iter().sum::<f64>() / 200.0;
        assert!((spice.estimate.expect("defined") - expected).abs() < 1e-12);
        let (lo, hi) = (spice.low.expect("defined"), spice.high.expect("defined"));
        assert!(lo < expected && expected < hi && hi - lo < 0.2, "{lo} {hi}");
        // Object: the mean over the 100 even images only.
        let even: f64 = spread(200, 0.0).iter().step_by(2).sum::<f64>() / 2.0 / 100.0;
        assert!((iv[1].estimate.expect("defined") - even).abs() < 1e-12);
        // Columns without values have no score and no interval.
        assert_eq!((iv[8].estimate, iv[8].low), (None, None));
        assert_eq!(spice.replicates.len(), RESAMPLES);
    }

    #[test]
    fn order_of_images_does_not_matter() {
        let images = entry(&spread(50, 0.0));
        let mut reversed = images.clone();
        reversed.reverse();
        // Compared as text: NaN (the columns without values) is not equal to itself.
        let text = |v: &[ImageValues]| format!("{:?}", intervals(v));
        assert_eq!(text(&images), text(&reversed));
    }

    #[test]
    fn near_identical_entries_tie_and_clearly_different_ones_do_not() {
        let base = spread(300, 0.0);
        // Better on half the images, worse on the other half: no significant difference.
        let near: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, s)| s + if i % 2 == 0 { 0.01 } else { -0.01 })
            .collect();
        let better = spread(300, 0.1);
        let a = &intervals(&entry(&base))[0];
        let b = &intervals(&entry(&near))[0];
        let c = &intervals(&entry(&better))[0];
        assert!(tied(a, b).expect("defined").0);
        // Better by 0.1 on every image: every resample says so, p = 0.
        assert_eq!(tied(c, a), Some((false, 0.0)));
        // Resampled on other images: no test.
        let mut other = entry(&base);
        other[0].image_id = 1;
        assert_eq!(tied(a, &intervals(&other)[0]), None);
    }

    #[test]
    fn a_comparison_from_the_stored_intervals_is_the_bootstrapped_one() {
        // Enough images for the bootstrap's parallel path; undefined values in some columns.
        let values = |shift: usize| -> Vec<ImageValues> {
            (0..400)
                .map(|i| {
                    let mut values = [None; 9];
                    for (c, v) in values.iter_mut().enumerate() {
                        let k = i * 31 + c * 17 + shift;
                        *v = (!k.is_multiple_of(11) && c != 8)
                            .then_some((k * 7919 % 1000) as f64 / 1000.0);
                    }
                    ImageValues {
                        image_id: 1000 + 3 * i as i64,
                        values,
                    }
                })
                .collect()
        };
        let (a, b) = (values(0), values(5));
        let spice = |v: &[ImageValues]| -> Vec<(i64, Option<f64>)> {
            v.iter().map(|i| (i.image_id, i.values[0])).collect()
        };
        let stored = compare_stored(&intervals(&a), &intervals(&b), &spice(&a), &spice(&b), 20);
        // Compared as printed: an image undefined in either entry differs by NaN, which is not
        // equal to itself (floats print exactly, so this is still bit for bit).
        assert_eq!(
            format!("{stored:?}"),
            format!("{:?}", Some(compare(&a, &b, 20)))
        );
        // Other images: no shortcut.
        let mut c = values(5);
        c[7].image_id += 1;
        assert_eq!(
            compare_stored(&intervals(&a), &intervals(&c), &spice(&a), &spice(&c), 20),
            None
        );
    }

    #[test]
    fn a_comparison_pairs_the_common_images() {
        let a = entry(&[0.5, 0.2, 0.3, 0.9]);
        let mut b = entry(&[0.4, 0.2, 0.6, 0.1]);
        b.pop();
        b.push(ImageValues {
            image_id: 7,
            values: [Some(1.0); 9],
        });
        let c = compare(&a, &b, 10);
        assert_eq!(c.images, 3);
        let spice = &c.columns[0];
        assert!((spice.difference.expect("defined") - (1.0 - 1.2) / 3.0).abs() < 1e-12);
        assert!(spice.low.expect("defined") <= spice.difference.expect("defined"));
        let ids: Vec<i64> = c.most_different.iter().map(|d| d.image_id).collect();
        // |0.3 - 0.6| > |0.5 - 0.4|; image 101 is equal in both and left out.
        assert_eq!(ids, vec![102, 100]);
        // Every common image's difference, the equal one too, for the histogram.
        let d: Vec<String> = c
            .spice_differences
            .iter()
            .map(|d| format!("{d:.1}"))
            .collect();
        assert_eq!(d, ["0.1", "0.0", "-0.3"]);
        // Comparing an entry with itself: no difference, p = 1.
        let same = compare(&a, &a, 10);
        assert_eq!(same.columns[0].difference, Some(0.0));
        assert_eq!(same.columns[0].p, Some(1.0));
        assert!(same.most_different.is_empty());
    }
}
