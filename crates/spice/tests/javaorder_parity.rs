//! `javaorder::hash_map_order` against Java's own `HashMap`: keys crowded into a few buckets of a
//! presized table, so that buckets become red-black trees (the case CoreNLP's unary grammar
//! meets), in many insertion orders. Java 17 is part of the test machine.

mod common;

/// A small deterministic generator (SplitMix64).
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn tree_bins_iterate_as_javas_hash_map() {
    let mut state = 2014u64;
    let mut cases: Vec<(usize, Vec<i32>)> = Vec::new();
    for case in 0..300 {
        let cap = [64usize, 256, 1024][case % 3];
        // Fewer keys than three quarters of the table: Java does not resize it.
        let keys = (10 + (next(&mut state) % 120) as usize).min(cap * 3 / 4 - 1);
        let buckets = 1 + (next(&mut state) % 6) as usize;
        let mut hashes: Vec<i32> = Vec::new();
        while hashes.len() < keys {
            // Distinct hash codes that fall in a few buckets (high bits vary, low bits do not),
            // like (parent << 16) ^ child.
            let bucket = (next(&mut state) % buckets as u64) as i32;
            let high = (next(&mut state) % 5000) as i32;
            let h = (high << 16) ^ (bucket * 7) ^ (high & 0x3f);
            if !hashes.contains(&h) {
                hashes.push(h);
            }
        }
        cases.push((cap, hashes));
    }
    let input: String = cases
        .iter()
        .map(|(cap, hs)| {
            let hs: Vec<String> = hs.iter().map(i32::to_string).collect();
            format!("{cap} {}\n", hs.join(" "))
        })
        .collect();
    let jar = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = common::java_oracle(&jar, "HashMapOrder.java", &[], input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), cases.len());
    let mut treeified = 0;
    for ((cap, hashes), line) in cases.iter().zip(lines) {
        let java: Vec<usize> = line
            .split(' ')
            .map(|i| i.parse().expect("an index"))
            .collect();
        let ours = spice::javaorder::hash_map_order(hashes, *cap);
        assert_eq!(ours, java, "table {cap}, hashes {hashes:?}");
        if hashes.len() > 9 * 6 {
            treeified += 1;
        }
    }
    assert!(
        treeified > 50,
        "enough cases with crowded buckets ({treeified})"
    );
}
