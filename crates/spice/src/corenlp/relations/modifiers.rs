//! Relations of modifiers (`nmod` to `list` in CoreNLP's source).

use super::Definition;

pub fn definitions() -> Vec<Definition> {
    Vec::new()
}
