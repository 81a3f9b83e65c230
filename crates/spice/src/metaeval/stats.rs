//! The statistics of a meta-evaluation, written out by hand: Kendall's tau-b and tau-c, Spearman's
//! rho and Pearson's r as scipy computes them, percentiles as numpy computes them, and the
//! seeded generator the bootstrap draws from. Checked against scipy on fixed data by
//! `tests/metaeval_parity.rs`.
//!
//! Also the bootstrap of the leaderboard (issue 14, part 4): `bootstrap_means` resamples items
//! (images) and gives each resample's mean of every column, and `paired_p_value` turns the
//! differences of two entries' means on the same resamples into a two-sided p-value. Checked on
//! fixed data against values computed independently with numpy (`scripts/uncertainty-oracle`).

use std::cmp::Ordering;

/// Kendall's tau-b and tau-c of two paired samples (scipy's `kendalltau`, variants "b" and
/// "c"): NaN when either sample is constant or the samples are shorter than 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kendall {
    pub tau_b: f64,
    pub tau_c: f64,
}

/// Knight's O(n log n) algorithm, as scipy implements it: sort by (x, y), count the discordant
/// pairs by merge sort, and the ties in x, in y and in both from the sorted runs.
pub fn kendall(x: &[f64], y: &[f64]) -> Kendall {
    let nan = Kendall {
        tau_b: f64::NAN,
        tau_c: f64::NAN,
    };
    let n = x.len().min(y.len());
    if n < 2 {
        return nan;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| x[a].total_cmp(&x[b]).then(y[a].total_cmp(&y[b])));
    let xs: Vec<f64> = order.iter().map(|&k| x[k]).collect();
    let mut ys: Vec<f64> = order.iter().map(|&k| y[k]).collect();
    let pairs = |run: i64| run * (run - 1) / 2;
    // Ties in x, and in both, from runs of the (x, y)-sorted sequence.
    let (mut x_ties, mut joint_ties, mut x_classes) = (0i64, 0i64, 0usize);
    let (mut x_run, mut joint_run) = (1i64, 1i64);
    for k in 1..=n {
        let same_x = k < n && xs[k] == xs[k - 1];
        let same_both = same_x && ys[k] == ys[k - 1];
        if same_both {
            joint_run += 1;
        } else {
            joint_ties += pairs(joint_run);
            joint_run = 1;
        }
        if same_x {
            x_run += 1;
        } else {
            x_ties += pairs(x_run);
            x_classes += 1;
            x_run = 1;
        }
    }
    let discordant = count_inversions(&mut ys);
    // ys is now sorted: ties in y from its runs.
    let (mut y_ties, mut y_classes, mut y_run) = (0i64, 0usize, 1i64);
    for k in 1..=n {
        if k < n && ys[k] == ys[k - 1] {
            y_run += 1;
        } else {
            y_ties += pairs(y_run);
            y_classes += 1;
            y_run = 1;
        }
    }
    let total = pairs(n as i64);
    if x_ties == total || y_ties == total {
        return nan;
    }
    let con_minus_dis = total - x_ties - y_ties + joint_ties - 2 * discordant;
    let tau_b =
        con_minus_dis as f64 / ((total - x_ties) as f64).sqrt() / ((total - y_ties) as f64).sqrt();
    let m = x_classes.min(y_classes) as i64;
    let size = n as i64;
    let tau_c = (2 * con_minus_dis) as f64 / ((size * size * (m - 1)) as f64 / m as f64);
    Kendall {
        tau_b: tau_b.clamp(-1.0, 1.0),
        tau_c: tau_c.clamp(-1.0, 1.0),
    }
}

/// Pairs i < j with v[i] > v[j] (strictly), sorting `v` on the way (merge sort).
fn count_inversions(v: &mut [f64]) -> i64 {
    let mut buffer = v.to_vec();
    sort_counting(v, &mut buffer)
}

fn sort_counting(v: &mut [f64], buffer: &mut [f64]) -> i64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut count = {
        let (left, right) = v.split_at_mut(mid);
        let (bl, br) = buffer.split_at_mut(mid);
        sort_counting(left, bl) + sort_counting(right, br)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[j] < v[i] {
            // v[j] is smaller than every remaining element of the left half.
            count += (mid - i) as i64;
            buffer[k] = v[j];
            j += 1;
        } else {
            buffer[k] = v[i];
            i += 1;
        }
        k += 1;
    }
    buffer[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buffer[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buffer[..n]);
    count
}

/// Ranks 1..n, ties given the mean of their ranks (scipy's `rankdata`, method "average").
pub fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_unstable_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && v[order[end]].total_cmp(&v[order[start]]) == Ordering::Equal {
            end += 1;
        }
        // Ranks start + 1 ..= end share their mean.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &k in &order[start..end] {
            out[k] = rank;
        }
        start = end;
    }
    out
}

/// Spearman's rho: Pearson's r of the average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    pearson(&ranks(x), &ranks(y))
}

/// Pearson's r; NaN when either sample is constant or shorter than 2.
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    if n < 2 {
        return f64::NAN;
    }
    let mean = |v: &[f64]| v[..n].iter().sum::<f64>() / n as f64;
    let (mx, my) = (mean(x), mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for k in 0..n {
        let (dx, dy) = (x[k] - mx, y[k] - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    (sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0)
}

/// The q-th percentile (0..=100) of `sorted` (ascending, no NaN), interpolating linearly
/// between the two nearest values as numpy's default does.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q / 100.0 * (sorted.len() - 1) as f64;
    let lo = position.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = position - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// The 95 % percentile interval of bootstrap estimates, NaN estimates left out.
pub fn interval95(estimates: &[f64]) -> [f64; 2] {
    let mut v: Vec<f64> = estimates.iter().copied().filter(|e| !e.is_nan()).collect();
    v.sort_unstable_by(f64::total_cmp);
    [percentile(&v, 2.5), percentile(&v, 97.5)]
}

/// SplitMix64 (Steele et al. 2014): a small, fast, seedable generator, so that a bootstrap with
/// the same seed draws the same resamples on every machine.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

/// SplitMix64's increment: its state after `k` draws is the seed plus `k` times this.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The generator as it is after `draws` draws: the state only grows by a constant.
    pub fn skipped(seed: u64, draws: u64) -> Self {
        SplitMix64(seed.wrapping_add(draws.wrapping_mul(GOLDEN_GAMMA)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        crate::perceptron::mix64(self.0)
    }

    /// Uniform in 0..n (Lemire's multiply-shift; the bias is below 2^-32 for our n).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// The bootstrap distribution of column means. `values` holds `n` items of `width` columns, row
/// by row (`values[i * width + c]` is item i's value in column c); NaN marks a value that is not
/// defined (SPICE's macro average leaves such images out). `resamples` times, `n` items are drawn
/// with replacement from `SplitMix64::new(seed)` (`below(n)`, one draw per item, resample after
/// resample), and each column's mean over the drawn items whose value is defined is recorded (NaN
/// when none is). Returns `means[c][b]`, column c's mean in resample b.
///
/// The draws depend only on `seed` and `n`: two entries scored on the same images, in the same
/// order, are resampled identically, so the differences of their means resample by resample are
/// a paired bootstrap of the difference of their scores. Each column's means are computed alike
/// whatever the other columns are, so a column bootstrapped beside others has the same means as
/// alone.
///
/// Resamples are computed in parallel (rayon): resample b starts from the generator as it is
/// after b times n draws ([`SplitMix64::skipped`]), so the results are those of drawing them one
/// after the other, bit for bit.
pub fn bootstrap_means(values: &[f64], width: usize, resamples: usize, seed: u64) -> Vec<Vec<f64>> {
    use rayon::prelude::*;
    let mut means = vec![Vec::with_capacity(resamples); width];
    if width == 0 {
        return means;
    }
    let n = values.len() / width;
    let resample = |b: usize| -> Vec<f64> {
        let mut rng = SplitMix64::skipped(seed, (b as u64).wrapping_mul(n as u64));
        let mut sums = vec![0.0f64; width];
        let mut counts = vec![0u32; width];
        for _ in 0..n {
            let row = &values[rng.below(n) * width..][..width];
            for (c, &v) in row.iter().enumerate() {
                if !v.is_nan() {
                    sums[c] += v;
                    counts[c] += 1;
                }
            }
        }
        sums.iter()
            .zip(&counts)
            .map(|(&sum, &count)| {
                if count == 0 {
                    f64::NAN
                } else {
                    sum / f64::from(count)
                }
            })
            .collect()
    };
    // Small bootstraps are not worth the threads.
    let by_resample: Vec<Vec<f64>> = if n * resamples < 1 << 16 {
        (0..resamples).map(resample).collect()
    } else {
        (0..resamples).into_par_iter().map(resample).collect()
    };
    for row in by_resample {
        for (column, mean) in means.iter_mut().zip(row) {
            column.push(mean);
        }
    }
    means
}

/// The two-sided p-value of a paired bootstrap test of "no difference": `differences` are the
/// resampled differences of two statistics (the same resamples for both). p is twice the smaller
/// share of differences on either side of zero (zero counting on both sides), capped at 1, the
/// percentile-bootstrap p-value: p < 0.05 when zero lies outside the central 95 % of the
/// resampled differences. A difference within 1e-12 of zero counts as zero: means of the same
/// numbers summed in another order differ by rounding alone. NaN differences are left out; NaN
/// when none is left.
pub fn paired_p_value(differences: &[f64]) -> f64 {
    let (mut below, mut above, mut n) = (0usize, 0usize, 0usize);
    for &d in differences {
        if d.is_nan() {
            continue;
        }
        let d = if d.abs() < 1e-12 { 0.0 } else { d };
        n += 1;
        if d <= 0.0 {
            below += 1;
        }
        if d >= 0.0 {
            above += 1;
        }
    }
    if n == 0 {
        return f64::NAN;
    }
    (2.0 * below.min(above) as f64 / n as f64).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kendall_without_ties_counts_concordant_minus_discordant() {
        // Pairs: (1,2) (1,3) (2,3): x order 1,2,3; y 1,3,2 -> 2 concordant, 1 discordant.
        let k = kendall(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]);
        assert!((k.tau_b - 1.0 / 3.0).abs() < 1e-15);
        // tau-c = 2 (C - D) / (n^2 (m - 1) / m) = 2 / (9 * 2 / 3) = 1/3.
        assert!((k.tau_c - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn kendall_with_ties_corrects_the_denominator() {
        // x = [1, 1, 2], y = [1, 2, 2]: pairs (0,1) tied in x, (1,2) tied in y, (0,2) concordant.
        // tau-b = 1 / sqrt(3 - 1) / sqrt(3 - 1) = 0.5; tau-c: m = 2, 2 / (9 / 2) = 4/9.
        let k = kendall(&[1.0, 1.0, 2.0], &[1.0, 2.0, 2.0]);
        assert!((k.tau_b - 0.5).abs() < 1e-15);
        assert!((k.tau_c - 4.0 / 9.0).abs() < 1e-15);
        assert!(kendall(&[1.0, 1.0], &[1.0, 2.0]).tau_b.is_nan());
    }

    #[test]
    fn inversions_are_strict() {
        let mut v = [3.0, 1.0, 2.0, 2.0, 1.0];
        // 3>1, 3>2, 3>2, 3>1, 2>1, 2>1 = 6
        assert_eq!(count_inversions(&mut v), 6);
        assert_eq!(v, [1.0, 1.0, 2.0, 2.0, 3.0]);
    }

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[10.0, 20.0, 10.0, 5.0]), [2.5, 4.0, 2.5, 1.0]);
    }

    #[test]
    fn spearman_and_pearson_by_hand() {
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-15);
        assert!((spearman(&[1.0, 2.0, 3.0], &[1.0, 8.0, 27.0]) - 1.0).abs() < 1e-15);
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&v, 50.0), 3.0);
        assert!((percentile(&v, 2.5) - 1.1).abs() < 1e-12);
        let [lo, hi] = interval95(&[f64::NAN, 1.0, 2.0]);
        assert!((lo - 1.025).abs() < 1e-12 && (hi - 1.975).abs() < 1e-12);
    }

    #[test]
    fn the_generator_is_seeded_and_in_range() {
        let draw = |seed| {
            let mut g = SplitMix64::new(seed);
            (0..5).map(|_| g.below(10)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        assert!(draw(7).iter().all(|&k| k < 10));
    }

    #[test]
    fn a_skipped_generator_continues_the_sequence() {
        let mut g = SplitMix64::new(2014);
        for _ in 0..37 {
            g.next_u64();
        }
        assert_eq!(
            SplitMix64::skipped(2014, 37).next_u64(),
            g.next_u64(),
            "draw 38"
        );
    }

    #[test]
    fn parallel_resamples_are_those_drawn_one_after_the_other() {
        // Large enough for the parallel path; a column without values, a column with holes.
        let (n, width) = (500, 3);
        let values: Vec<f64> = (0..n * width)
            .map(|k: usize| match k % width {
                0 => (k * 7919 % 1000) as f64 / 1000.0,
                1 if k.is_multiple_of(7) => f64::NAN,
                1 => (k * 104_729 % 977) as f64 / 977.0,
                _ => f64::NAN,
            })
            .collect();
        let mut rng = SplitMix64::new(2014);
        let mut expected = vec![Vec::new(); width];
        for _ in 0..1000 {
            let (mut sums, mut counts) = (vec![0.0f64; width], vec![0u32; width]);
            for _ in 0..n {
                let row = &values[rng.below(n) * width..][..width];
                for (c, &v) in row.iter().enumerate() {
                    if !v.is_nan() {
                        sums[c] += v;
                        counts[c] += 1;
                    }
                }
            }
            for c in 0..width {
                expected[c].push(if counts[c] == 0 {
                    f64::NAN
                } else {
                    sums[c] / f64::from(counts[c])
                });
            }
        }
        let bits = |m: &[Vec<f64>]| -> Vec<Vec<u64>> {
            m.iter()
                .map(|c| c.iter().map(|x| x.to_bits()).collect())
                .collect()
        };
        assert_eq!(
            bits(&bootstrap_means(&values, width, 1000, 2014)),
            bits(&expected)
        );
        // A column bootstrapped alone has the same means as beside the others.
        let first: Vec<f64> = values.iter().step_by(width).copied().collect();
        assert_eq!(
            bits(&bootstrap_means(&first, 1, 1000, 2014)),
            bits(&expected[..1])
        );
    }

    /// Expected values from `scripts/uncertainty-oracle` (numpy on the same draws).
    #[test]
    fn the_bootstrap_matches_numpy() {
        const N: f64 = f64::NAN;
        let a = [
            0.21, 0.35, 0.18, N, 0.40, 0.27, 0.33, 0.12, 0.29, 0.31, 0.25, 0.22,
        ];
        let b = [
            0.19, 0.30, 0.20, 0.10, 0.36, 0.22, 0.30, 0.15, 0.24, N, 0.21, 0.20,
        ];
        let shift = [
            0.02, -0.03, 0.01, 0.0, -0.02, 0.03, -0.01, 0.02, -0.02, 0.01, -0.01, 0.01,
        ];
        let rows: Vec<f64> = (0..a.len())
            .flat_map(|i| [a[i], b[i], a[i] + shift[i]])
            .collect();
        let means = bootstrap_means(&rows, 3, 1000, 7);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(means[0][0], 0.29363636363636364));
        assert!(close(means[1][0], 0.24666666666666667));
        let [lo, hi] = interval95(&means[0]);
        assert!(
            close(lo, 0.22453598484848483) && close(hi, 0.3125),
            "{lo} {hi}"
        );
        let [lo, hi] = interval95(&means[1]);
        assert!(close(lo, 0.185) && close(hi, 0.266675), "{lo} {hi}");
        let diff = |x: usize, y: usize| -> Vec<f64> {
            means[x].iter().zip(&means[y]).map(|(p, q)| p - q).collect()
        };
        let [lo, hi] = interval95(&diff(0, 1));
        assert!(close(lo, 0.015833333333333338) && close(hi, 0.08062215909090904));
        assert!(close(paired_p_value(&diff(0, 1)), 0.002));
        let [lo, hi] = interval95(&diff(0, 2));
        assert!(close(lo, -0.011818181818181839) && close(hi, 0.01166666666666666));
        assert!(close(paired_p_value(&diff(0, 2)), 0.924));
    }

    #[test]
    fn paired_p_values_by_hand() {
        // Identical entries differ by zero on every resample: no evidence at all, p = 1.
        assert_eq!(paired_p_value(&[0.0; 10]), 1.0);
        // Always better: p = 0. One resample in ten on the other side: p = 2 / 10.
        assert_eq!(paired_p_value(&[0.1; 10]), 0.0);
        let mut d = [0.1; 10];
        d[3] = -0.05;
        assert!((paired_p_value(&d) - 0.2).abs() < 1e-15);
        assert!(paired_p_value(&[f64::NAN]).is_nan());
    }

    #[test]
    fn a_single_item_or_an_undefined_column_resamples_to_itself() {
        let means = bootstrap_means(&[0.5, f64::NAN], 2, 20, 1);
        assert!(means[0].iter().all(|&m| m == 0.5));
        assert!(means[1].iter().all(|m| m.is_nan()));
        assert_eq!(interval95(&means[0]), [0.5, 0.5]);
    }
}
