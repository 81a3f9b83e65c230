//! Makes one input of the `engine` target again and prints its captions as METEOR and the
//! classic metrics see them (tokenized as pycocoevalcap does), in `metrics_json`'s input form:
//!
//! ```text
//! cargo run --release -p spiceboard-fuzz --example engine_case -- SEED INDEX > case.json
//! ```
//! `{"images": [{"image_id": INDEX, "candidate": "tok tok", "references": ["tok tok", ..],
//! "raw": {"candidate": .., "references": [..]}, "mode": "Coco"}]}`

use spice::tokenize::tokenize_coco_batch;
use spiceboard_fuzz::gen::Gen;
use spiceboard_fuzz::targets::EngineCase;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap_or_else(|_| panic!("not a number: {a}")))
        .collect();
    let [seed, index] = args[..] else {
        eprintln!("usage: engine_case SEED INDEX");
        std::process::exit(2);
    };
    let case = EngineCase::new(&mut Gen::new(seed, index));
    let candidate = tokenize_coco_batch(&[case.candidate.as_str()]).remove(0);
    let references = tokenize_coco_batch(&case.references);
    let image = serde_json::json!({
        "image_id": index,
        "candidate": candidate,
        "references": references,
        "raw": {"candidate": case.candidate, "references": case.references},
        "mode": format!("{:?}", case.mode),
    });
    println!("{}", serde_json::json!({ "images": [image] }));
}
