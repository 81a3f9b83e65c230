//! The iteration order of Java's `HashSet<String>` / `HashMap<String, _>`.
//!
//! The reference prints merged concepts ("grey/gray") and writes JSON object keys in the order
//! its Java hash containers iterate them. Reproducing that order keeps our output byte-comparable
//! with the jar's. Java iterates buckets in index order, and within a bucket in insertion order;
//! a table starts with 16 buckets and doubles whenever it holds more than 3/4 of its capacity.

/// Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, wrapping.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

/// Bucket count of a Java hash table created empty that has received `len` entries.
fn capacity(len: usize) -> usize {
    let mut cap = 16usize;
    while len * 4 > cap * 3 {
        cap *= 2;
    }
    cap
}

/// The bucket index Java's HashMap gives a string key in a table of `cap` buckets.
fn bucket(s: &str, cap: usize) -> usize {
    let h = string_hash(s) as u32;
    ((h ^ (h >> 16)) as usize) & (cap - 1)
}

/// `items` (in insertion order) in the order Java's hash containers iterate them.
pub fn hash_set_order<S: AsRef<str>>(items: &[S]) -> Vec<&str> {
    let cap = capacity(items.len());
    let mut v: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    v.sort_by_key(|s| bucket(s, cap));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_java() {
        // Values printed by Java's "...".hashCode().
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("gray"), 3_181_155);
        assert_eq!(string_hash("Object"), 2_355_466_079u32 as i32);
        assert_eq!(string_hash("All"), 65_921);
    }

    #[test]
    fn order_is_by_bucket_then_insertion() {
        // A merged concept prints as "gray/grey" whichever word came first: "gray" falls in
        // bucket 3 of 16 and "grey" in bucket 15.
        assert_eq!(hash_set_order(&["grey", "gray"]), ["gray", "grey"]);
        // The jar's per-category score keys come out in this order.
        let keys = [
            "All",
            "Object",
            "Attribute",
            "Relation",
            "Cardinality",
            "Color",
            "Size",
        ];
        assert_eq!(
            hash_set_order(&keys),
            [
                "All",
                "Relation",
                "Cardinality",
                "Attribute",
                "Size",
                "Color",
                "Object"
            ]
        );
    }
}
