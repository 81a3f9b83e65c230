//! Loads a CoreNLP English PCFG and prints what was decoded: `corenlp_model englishPCFG.ser.gz`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: corenlp_model MODEL");
    let t = std::time::Instant::now();
    let m = spice::corenlp::model::Model::from_ser_gz(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
    println!("loaded in {:?}", t.elapsed());
    println!("{} states, {} tags, {} words, {} binary, {} unary rules", m.states.len(), m.tags.len(), m.words.len(), m.binary.len(), m.unary.len());
    println!("seen {} unseen {} smooth {:?} level {} open {} flexi {}", m.lexicon.seen.len(), m.lexicon.unseen.len(), m.lexicon.smooth, m.lexicon.unknown_level, m.lexicon.open_class_types_threshold, m.lexicon.flexi_tag);
    println!("americanize {} splitBaseNP {} splitPoss {}", m.americanize, m.split_base_np, m.split_poss);
    println!("first states {:?}", &m.states[..12]);
    println!("tags {:?}", &m.tags[..40]);
    println!("unary first {:?}", &m.unary[..3]);
}
