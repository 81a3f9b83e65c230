//! What the parser computes once for a word and reuses: a map shared by the parsing threads, up
//! to a budget of bytes. Past the budget, values are computed each time and not remembered, so a
//! stream of new words cannot grow it. A copy starts empty.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::RwLock;

pub struct Memo<K, V> {
    map: RwLock<HashMap<K, V>>,
    bytes: AtomicUsize,
    budget: usize,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    /// An empty memo that keeps up to `budget` bytes, as its callers count them.
    pub fn new(budget: usize) -> Memo<K, V> {
        Memo {
            map: RwLock::new(HashMap::new()),
            bytes: AtomicUsize::new(0),
            budget,
        }
    }

    /// The value kept for `key`, if any (none either when a thread panicked holding the map).
    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.map.read().ok().and_then(|m| m.get(key).cloned())
    }

    /// Keeps `value` for `key`, counted as `size` bytes, unless that would pass the budget.
    pub fn keep(&self, key: K, value: V, size: usize) {
        if self.bytes.load(Relaxed) + size > self.budget {
            return;
        }
        if let Ok(mut m) = self.map.write() {
            if m.insert(key, value).is_none() {
                self.bytes.fetch_add(size, Relaxed);
            }
        }
    }
}

impl<K, V> Clone for Memo<K, V> {
    fn clone(&self) -> Memo<K, V> {
        Memo {
            map: RwLock::new(HashMap::new()),
            bytes: AtomicUsize::new(0),
            budget: self.budget,
        }
    }
}

impl<K, V> std::fmt::Debug for Memo<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("bytes", &self.bytes.load(Relaxed))
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;

    #[test]
    fn values_are_kept_until_the_budget_is_spent_and_a_copy_starts_empty() {
        let memo: Memo<String, u32> = Memo::new(10);
        memo.keep("a".into(), 1, 6);
        memo.keep("b".into(), 2, 6);
        memo.keep("c".into(), 3, 4);
        assert_eq!(memo.get("a"), Some(1));
        assert_eq!(memo.get("b"), None, "past the budget");
        assert_eq!(memo.get("c"), Some(3));
        assert_eq!(memo.clone().get("a"), None);
    }
}
