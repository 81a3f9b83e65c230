//! The `spice` command as users drive it, in one test binary: the jar's interface (`score`), the
//! golden files, `eval`, `meteor`, `meta-eval`, `tokenize` and the streamed `-out` (`stream`).
//! Every test runs the built binary in its own temporary directory (`helpers`).

#[path = "../common/mod.rs"]
mod common;
mod eval;
mod golden;
mod helpers;
mod metaeval;
mod meteor;
mod score;
mod stream;
mod tokenize;
mod trees;
