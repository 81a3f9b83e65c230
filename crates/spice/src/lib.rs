//! SPICE (Anderson et al., ECCV 2016) rebuilt in Rust.
//!
//! The modules follow one caption from text to F-score, in order:
//! `depgraph` (the shared dependency-graph type), then the semantic back end.

pub mod cleanup;
pub mod depgraph;
pub mod graph;
mod javaorder;
pub mod score;
pub mod wordnet;

pub use depgraph::{DepGraph, Edge, Token};
