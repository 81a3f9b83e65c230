//! Loads CoreNLP's English PCFG (`englishPCFG.ser.gz`, the models jar, or a directory holding
//! either) and prints what was decoded and how long it took: `corenlp_model PATH`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: corenlp_model PATH");
    let path = std::path::Path::new(&path);
    let t = std::time::Instant::now();
    let m = spice::corenlp::model::Model::load(path).unwrap_or_else(|e| panic!("{e}"));
    let decoded = t.elapsed();
    println!(
        "{} states, {} tags, {} words, {} binary and {} unary rules; {} seen and {} unseen lexicon counts; smoothing {:?}; signatures level {}; americanize {}",
        m.states.len(), m.tags.len(), m.words.len(), m.binary.len(), m.unary.len(),
        m.lexicon.seen.len(), m.lexicon.unseen.len(), m.lexicon.smooth, m.lexicon.unknown_level, m.americanize
    );
    let t = std::time::Instant::now();
    spice::corenlp::PcfgParser::from_model(m).unwrap_or_else(|e| panic!("{e}"));
    println!("decoded in {decoded:?}, parser built in {:?}", t.elapsed());
}
