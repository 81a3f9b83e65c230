//! Relations of arguments: auxiliaries, coordination, punctuation, subjects, objects, complements
//! (`pred` to `expl` in CoreNLP's source).

use super::Definition;

pub fn definitions() -> Vec<Definition> {
    Vec::new()
}
