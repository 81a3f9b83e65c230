//! `spice`: a drop-in for the SPICE 1.0 jar, plus tools to see why a score is what it is.
//!
//! Exit codes: 0 ok, 1 bad input (the message names the item and the field), 2 bad usage.

use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use spice::batch::{self, OutputOptions};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use spice::{DepGraph, Engine, EngineOptions};

const ABOUT: &str =
    "SPICE caption evaluation (Anderson et al., ECCV 2016), compatible with the SPICE 1.0 jar";

const USAGE: &str = "\
Usage:
  spice INPUT.json [-out OUT.json] [-subset] [-detailed] [-noSynsets] [-threads N] [-silent] [-verbose]
                   [-cache DIR]
  spice score INPUT.json [same options]     the same, as a subcommand
  spice parse \"a caption\" [...]             print the dependency graph and the tuples of captions
  spice tuples --conllu FILE                print the tuples of each sentence of a CoNLL-U file
  spice tuples --captions FILE [--corenlp-models PATH]
                                            print the proposals of each caption (one a line)
  spice trees --corenlp-models PATH [FILE]  CoreNLP's PCFG tree of each caption's sentences, as the
                                            official SPICE makes them (the user's CoreNLP models)
  spice tokenize [--coco] [FILE]            print the PTB tokens of each line (stdin by default)
  spice eval --annotations A.json --results R.json [--metrics bleu,meteor,rouge,cider,spice] [--out OUT.json]
                                            COCO-format evaluation as pycocoevalcap's COCOEvalCap
  spice meteor INPUT.json [--coco] [--out OUT.json]
                                            METEOR 1.5 of each item, as pycocoevalcap's jar
  spice meta-eval --judgments J.jsonl [--metrics LIST] [--out OUT.json] [--resamples N] [--seed S]
                                            how well each metric agrees with human judgments
  spice help | --help                       this text; `spice COMMAND --help` for each command

INPUT.json is the jar's input: [{\"image_id\": ..., \"test\": \"candidate\", \"refs\": [\"ref\", ...]}, ...];
other fields of the items are ignored, as the jar ignores them (-verbose lists them).
Options are accepted with one dash (the jar's spelling) or two.
Exit codes: 0 ok, 1 bad input, 2 bad usage.";

#[derive(Parser, Debug)]
#[command(name = "spice", about = ABOUT, version)]
struct ScoreCli {
    #[command(flatten)]
    args: ScoreArgs,
}

/// Score a batch in the jar's format.
#[derive(Args, Debug)]
struct ScoreArgs {
    /// The jar's input JSON: an array of {"image_id", "test", "refs"}.
    input: String,
    /// Write per-image scores as JSON here.
    #[arg(long = "out", value_name = "OUT.json")]
    out: Option<String>,
    /// Also score the tuple categories (Object, Attribute, Relation, Cardinality, Color, Size).
    #[arg(long)]
    subset: bool,
    /// Include each image's candidate and reference tuples in the JSON output.
    #[arg(long)]
    detailed: bool,
    /// Disable WordNet synonym matching and merging.
    #[arg(long = "noSynsets", alias = "no-synsets")]
    no_synsets: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Do not print the summary.
    #[arg(long)]
    silent: bool,
    /// Say what was read and what was ignored (fields of the input items other than the jar's).
    #[arg(long)]
    verbose: bool,
    /// Keep each caption's proposals in DIR, as the jar's parse cache does: a later run parses
    /// only the captions it has not seen (one file per parser and build of spice).
    #[arg(long, value_name = "DIR")]
    cache: Option<String>,
    /// Parse with CoreNLP 3.6.0's own PCFG and converter, as the official SPICE does, from the
    /// user's CoreNLP models (englishPCFG.ser.gz, the stanford-corenlp-3.6.0-models.jar
    /// pycocoevalcap's SPICE downloads into spice/lib/, or a directory holding either); without
    /// it, the built-in parser.
    #[arg(
        long = "corenlp-models",
        env = "SPICE_CORENLP_MODELS",
        value_name = "PATH"
    )]
    corenlp_models: Option<String>,
}

#[derive(Parser, Debug)]
#[command(name = "spice", about = ABOUT, version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Score a batch in the jar's format (same as `spice INPUT.json ...`).
    Score(ScoreArgs),
    /// Print the dependency graph and the tuples of each caption.
    Parse {
        /// Captions to parse.
        #[arg(required = true)]
        captions: Vec<String>,
        /// Disable synonym merging in the printed scene graph.
        #[arg(long = "noSynsets", alias = "no-synsets")]
        no_synsets: bool,
        /// Parse with CoreNLP 3.6.0's own PCFG and converter on the user's CoreNLP models (as
        /// for scoring); without it, the built-in parser.
        #[arg(
            long = "corenlp-models",
            env = "SPICE_CORENLP_MODELS",
            value_name = "PATH"
        )]
        corenlp_models: Option<String>,
    },
    /// Print the parser's proposals of each caption, or the tuples of each sentence of a CoNLL-U
    /// file, as JSON lines.
    ///
    /// With --captions FILE (one caption a line): the proposals our parser makes before scene-graph
    /// merging, as the official jar's parse cache holds them, one line per caption:
    /// {"caption": "...", "tuples": [["girl"], ["girl","young"], ["girl","stand on","court"]]}
    /// (objects, attributes, then (subject, relation, object), lemmas as the official parser
    /// writes them, duplicates removed).
    ///
    /// With --conllu FILE: the DEPS column holds the collapsed, CC-processed relations
    /// (HEAD:DEPREL|HEAD:DEPREL), XPOS the Penn Treebank tag and LEMMA the lemma. Output: one line
    /// per sentence, the tuples of its scene graph, {"sentence": n, "tuples": [...]}.
    #[command(group(clap::ArgGroup::new("input").required(true).args(["captions", "conllu"])))]
    Tuples {
        /// Captions, one a line ("-" reads standard input).
        #[arg(long, value_name = "FILE")]
        captions: Option<String>,
        /// The CoNLL-U file ("-" reads standard input).
        #[arg(long, value_name = "FILE")]
        conllu: Option<String>,
        /// Disable synonym merging.
        #[arg(long = "noSynsets", alias = "no-synsets")]
        no_synsets: bool,
        /// HEAD/DEPREL hold basic UD as CoreNLP 3.6.0 gives it (DEPS empty): collapse and
        /// CC-process it first (nmod:on, in_front_of, conj:and, propagation), as `enhance` does.
        #[arg(long)]
        basic: bool,
        /// With --captions: parse with CoreNLP 3.6.0's own PCFG and converter on the user's
        /// CoreNLP models (as for scoring); without it, the built-in parser. (A CoNLL-U file
        /// brings its own parse.)
        #[arg(
            long = "corenlp-models",
            env = "SPICE_CORENLP_MODELS",
            value_name = "PATH"
        )]
        corenlp_models: Option<String>,
    },
    /// Print CoreNLP's English PCFG tree of each sentence of each caption, as the official SPICE's
    /// parse annotator makes it (CoreNLP 3.6.0's parser, run by spiceboard on the user's model).
    ///
    /// Captions are tokenized and split into sentences as CoreNLP does. Output: one JSON line per
    /// caption, {"caption": "...", "trees": ["(ROOT (S ...))", ...]}. The model is
    /// englishPCFG.ser.gz, the CoreNLP models jar that holds it (the
    /// stanford-corenlp-3.6.0-models.jar pycocoevalcap's SPICE downloads into spice/lib/), or a
    /// directory holding either.
    Trees {
        /// The CoreNLP models: englishPCFG.ser.gz, the models jar, or a directory holding one.
        #[arg(
            long = "corenlp-models",
            env = "SPICE_CORENLP_MODELS",
            value_name = "PATH"
        )]
        corenlp_models: String,
        /// Captions, one a line ("-" or nothing reads standard input).
        file: Option<String>,
    },
    /// Print the Penn Treebank tokens of each input line, space separated, one line per line.
    ///
    /// Tokens are Stanford PTBTokenizer's (`-preserveLines`): "don't" -> "do n't", "(" ->
    /// "-LRB-", `"` -> `` or ''. With --coco, the form pycocoevalcap's tokenizer yields:
    /// lowercased, its punctuation list removed.
    Tokenize {
        /// Lowercase and drop punctuation, as pycocoevalcap does before BLEU, METEOR, ROUGE-L,
        /// CIDEr and SPICE.
        #[arg(long)]
        coco: bool,
        /// Input file, one caption a line ("-" or nothing reads standard input).
        file: Option<String>,
    },
    /// Evaluate COCO-format results as pycocoevalcap's COCOEvalCap does.
    ///
    /// The images are those of the results; their references are all annotation captions of
    /// those images. References and candidates are tokenized as pycocoevalcap does (PTB tokens,
    /// lowercased, punctuation removed), then scored. Prints `Bleu_1: 0.xxx` lines; --out writes
    /// {"eval": {name: score}, "evalImgs": [{"image_id", name: score, ..., "SPICE": {category:
    /// {"pr", "re", "f", "tp", "fp", "fn", "numImages"}}}]} (NaN as null).
    Eval(EvalArgs),
    /// METEOR 1.5 of candidate/reference pairs, as pycocoevalcap's meteor-1.5.jar scores them.
    ///
    /// INPUT.json is the SPICE jar's input: [{"image_id", "test", "refs"}]. Captions are scored
    /// as given (the jar normalises them with -norm); pycocoevalcap gives them PTB-tokenized,
    /// lowercased and without punctuation, which --coco does first. Prints `METEOR: 0.xxx`, the
    /// corpus score (METEOR of the summed statistics, as the jar's EVAL line). --out writes
    /// [{"image_id", "METEOR", "stats": [the jar's 23 statistics]}]. The data comes from
    /// SPICEBOARD_DATA (default ~/.cache/spiceboard/data), made by scripts/fetch-data.
    Meteor {
        /// The jar's input JSON: an array of {"image_id", "test", "refs"}.
        input: String,
        /// Tokenize as pycocoevalcap does before scoring.
        #[arg(long)]
        coco: bool,
        /// Write per-item scores and statistics as JSON here.
        #[arg(long, value_name = "OUT.json")]
        out: Option<String>,
    },
    /// How well each metric agrees with human judgments of captions.
    ///
    /// J.jsonl has one judged candidate a line: {"candidate": "...", "references": ["...", ...],
    /// "ratings": [3, 4, ...]} and, for system-level correlation, "system": "name" on every line.
    /// Candidates are scored as pycocoevalcap scores them (its tokenization; SPICE included).
    /// Prints a Markdown table: per metric, caption-level Kendall tau-c and tau-b and Spearman rho
    /// over (candidate, rating) pairs (each score paired with each rating of its candidate), and
    /// system-level Pearson r when systems are given, each with a 95 % bootstrap interval
    /// (candidates resampled, fixed seed). --out writes {"metrics": {"Bleu_1": {"tau_c",
    /// "tau_c_ci": [lo, hi], "tau_b", "tau_b_ci", "spearman", "spearman_ci", "pearson_system",
    /// "pearson_system_ci", ...}, ...}, "bootstrap": {...}}.
    MetaEval(MetaEvalArgs),
}

/// `spice meta-eval`.
#[derive(Args, Debug)]
struct MetaEvalArgs {
    /// Judgments, one JSON object a line.
    #[arg(long, value_name = "FILE")]
    judgments: String,
    /// Comma-separated metrics (as for `spice eval`); default: every metric we have but the
    /// variant rouge_su4_stem (METEOR needs the data of scripts/fetch-data).
    #[arg(long, value_name = "LIST")]
    metrics: Option<String>,
    /// Write the correlations as JSON here.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    resamples: usize,
    /// Seed of the bootstrap's generator.
    #[arg(long, value_name = "S", default_value_t = 2014)]
    seed: u64,
}

/// `spice eval`.
#[derive(Args, Debug)]
struct EvalArgs {
    /// COCO caption annotations: {"images": [{"id"}], "annotations": [{"image_id", "caption"}]}.
    #[arg(long, value_name = "FILE")]
    annotations: String,
    /// Results: [{"image_id", "caption"}], one caption per image.
    #[arg(long, value_name = "FILE")]
    results: String,
    /// Comma-separated metrics among bleu, meteor, rouge, cider, spice, and the seed paper's
    /// rouge_su4, rouge_su4_stem, bleu_smoothed, bleu_unigram, ter. METEOR needs the data of scripts/fetch-data
    /// (SPICEBOARD_DATA, default ~/.cache/spiceboard/data).
    #[arg(
        long,
        value_name = "LIST",
        default_value = "bleu,meteor,rouge,cider,spice"
    )]
    metrics: String,
    /// Write {"eval", "evalImgs"} as JSON here.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Print the time each step took (reading, tokenizing, scoring, writing) to stderr.
    #[arg(long)]
    timings: bool,
    /// Parse with CoreNLP 3.6.0's own PCFG and converter, as the official SPICE does, from the
    /// user's CoreNLP models (englishPCFG.ser.gz, the stanford-corenlp-3.6.0-models.jar
    /// pycocoevalcap's SPICE downloads into spice/lib/, or a directory holding either); without
    /// it, the built-in parser.
    #[arg(
        long = "corenlp-models",
        env = "SPICE_CORENLP_MODELS",
        value_name = "PATH"
    )]
    corenlp_models: Option<String>,
}

/// Times the steps of a command, for `--timings`.
struct Steps {
    print: bool,
    last: Instant,
}

impl Steps {
    fn new(print: bool) -> Steps {
        Steps {
            print,
            last: Instant::now(),
        }
    }

    /// Ends the step `name`.
    fn done(&mut self, name: &str) {
        let now = Instant::now();
        if self.print {
            eprintln!(
                "{name:>24}: {:7.1} ms",
                (now - self.last).as_secs_f64() * 1000.0
            );
        }
        self.last = now;
    }
}

/// A failure with its exit code.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn input(message: impl std::fmt::Display) -> Failure {
        Failure {
            code: 1,
            message: message.to_string(),
        }
    }
}

/// The jar spells long options with one dash; clap wants two.
fn normalize(args: impl Iterator<Item = String>) -> Vec<String> {
    const LONG: [&str; 9] = [
        "-out",
        "-subset",
        "-detailed",
        "-noSynsets",
        "-threads",
        "-silent",
        "-verbose",
        "-cache",
        "-help",
    ];
    args.map(|a| {
        if LONG.contains(&a.as_str()) {
            format!("-{a}")
        } else {
            a
        }
    })
    .collect()
}

fn main() -> ExitCode {
    let args = normalize(std::env::args());
    let first = args.get(1).map(String::as_str);
    let result = match first {
        None | Some("help" | "--help" | "-h") => {
            println!("{ABOUT}\n\n{USAGE}");
            return if first.is_none() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
        Some("--version" | "-V") => {
            println!("spice {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Some(
            "score" | "parse" | "tuples" | "trees" | "tokenize" | "eval" | "meteor" | "meta-eval",
        ) => match Cli::try_parse_from(&args) {
            Ok(cli) => run(cli.command),
            Err(e) => return clap_exit(e),
        },
        Some(_) => match ScoreCli::try_parse_from(&args) {
            Ok(cli) => run(Command::Score(cli.args)),
            Err(e) => return clap_exit(e),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("spice: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn clap_exit(e: clap::Error) -> ExitCode {
    let _ = e.print();
    ExitCode::from(if e.use_stderr() { 2 } else { 0 })
}

fn run(cmd: Command) -> Result<(), Failure> {
    match cmd {
        Command::Score(a) => score(a),
        Command::Parse {
            captions,
            no_synsets,
            corenlp_models,
        } => parse(&captions, no_synsets, corenlp_models.as_deref()),
        Command::Tuples {
            captions: Some(path),
            corenlp_models,
            ..
        } => caption_tuples(&path, corenlp_models.as_deref()),
        Command::Tuples {
            conllu,
            no_synsets,
            basic,
            ..
        } => tuples(conllu.as_deref().unwrap_or("-"), no_synsets, basic),
        Command::Trees {
            corenlp_models,
            file,
        } => trees(&corenlp_models, file.as_deref().unwrap_or("-")),
        Command::Tokenize { coco, file } => tokenize(coco, file.as_deref().unwrap_or("-")),
        Command::Eval(a) => eval(a),
        Command::Meteor { input, coco, out } => meteor(&input, coco, out.as_deref()),
        Command::MetaEval(a) => meta_eval(a),
    }
}

/// `spice trees`: the PCFG tree of each sentence of each caption, one JSON line per caption.
fn trees(models: &str, path: &str) -> Result<(), Failure> {
    let parser = spice::corenlp::PcfgParser::load(std::path::Path::new(models))
        .map_err(|e| Failure::input(e.to_string()))?;
    use rayon::prelude::*;
    let text = read_text(path)?;
    let captions: Vec<&str> = text.lines().collect();
    let lines: Vec<String> = captions
        .par_iter()
        .with_max_len(1)
        .map(|caption| {
            let tokens = spice::tokenize::tokenize(caption);
            let trees: Vec<String> = spice::tokenize::split_sentences(&tokens)
                .into_iter()
                .map(|r| {
                    tokens[r]
                        .iter()
                        .map(|t| t.text.as_str())
                        .collect::<Vec<_>>()
                })
                .filter(|words| !words.is_empty())
                .map(|words| parser.parse(&words).penn())
                .collect();
            serde_json::json!({"caption": caption, "trees": trees}).to_string()
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in lines {
        writeln!(out, "{line}").map_err(|e| Failure::input(format!("cannot write output: {e}")))?;
    }
    out.flush()
        .map_err(|e| Failure::input(format!("cannot write output: {e}")))
}

/// ROUGE-1.5.5's exception lists if `rouge_su4_stem` is asked for, or the error naming the fix.
fn check_rouge_data(scorers: &[spice::cocoeval::Scorer]) -> Result<(), Failure> {
    use spice::metrics::{rouge_su::Exceptions, Metric};
    if scorers.contains(&spice::cocoeval::Scorer::Classic(Metric::RougeSu4Stem)) {
        Exceptions::shared().map_err(|e| {
            Failure::input(format!("{e}; or leave rouge_su4_stem out of --metrics"))
        })?;
    }
    Ok(())
}

/// METEOR's resources, or the error naming the fix.
fn load_meteor() -> Result<&'static spice::metrics::meteor::Meteor, Failure> {
    spice::metrics::meteor::Meteor::shared().map_err(|e| {
        Failure::input(format!(
            "{e}; or leave METEOR out (`spice eval --metrics bleu,rouge,cider,spice`)"
        ))
    })
}

fn meteor(path: &str, coco: bool, out: Option<&str>) -> Result<(), Failure> {
    use spice::metrics::{meteor, ImageCaptions};
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::input(format!("{path}: cannot open: {e}")))?;
    let items = batch::read_input(file, path).map_err(Failure::input)?.items;
    let resources = load_meteor()?;
    // With --coco, as pycocoevalcap tokenizes: all references in one batch, then the candidates.
    let (tests, mut refs): (Vec<String>, Vec<Vec<String>>) = items
        .iter()
        .map(|item| (item.test.clone(), item.refs.clone()))
        .unzip();
    let tests = if coco {
        let flat: Vec<&str> = refs.iter().flatten().map(String::as_str).collect();
        let mut tokens = spice::tokenize::tokenize_coco_batch(&flat).into_iter();
        for r in &mut refs {
            *r = tokens.by_ref().take(r.len()).collect();
        }
        let tests: Vec<&str> = tests.iter().map(String::as_str).collect();
        spice::tokenize::tokenize_coco_batch(&tests)
    } else {
        tests
    };
    let images = tests
        .into_iter()
        .zip(refs)
        .enumerate()
        .map(|(i, (test, refs))| {
            // No references: pycocoevalcap's line would hold one empty reference.
            let refs = if refs.is_empty() {
                vec![String::new()]
            } else {
                refs
            };
            ImageCaptions::new(test, refs)
                .map_err(|e| Failure::input(format!("{path}: item {i}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scores = meteor::meteor(resources, &images);
    println!("{}: {:.3}", meteor::SCORE_NAME, scores.corpus);
    if let Some(out) = out {
        let json: Vec<serde_json::Value> = items
            .iter()
            .zip(&scores.per_image)
            .zip(&scores.stats)
            .map(|((item, score), stats)| {
                serde_json::json!({
                    "image_id": item.image_id,
                    meteor::SCORE_NAME: score,
                    "stats": stats.to_jar_values(),
                })
            })
            .collect();
        let write = || -> std::io::Result<()> {
            let mut w = BufWriter::new(std::fs::File::create(out)?);
            serde_json::to_writer_pretty(&mut w, &json)?;
            w.flush()
        };
        write().map_err(|e| Failure::input(format!("{out}: cannot write: {e}")))?;
    }
    Ok(())
}

fn engine(no_synsets: bool) -> Engine {
    Engine::new(EngineOptions {
        use_synsets: !no_synsets,
        ..EngineOptions::default()
    })
}

/// The front end a scoring command asked for, said on standard error: CoreNLP's on the given
/// models (a model that cannot be read is an error), else the built-in parser with a one-line
/// notice of how to get the official parser's numbers.
fn front_end(models: Option<&str>) -> Result<spice::FrontEnd, Failure> {
    match models {
        Some(path) => {
            let f = spice::FrontEnd::corenlp(std::path::Path::new(path))
                .map_err(|e| Failure::input(e.to_string()))?;
            let model = f.model_fingerprint().unwrap_or_default();
            eprintln!("parser: {} ({path}, model {model})", f.name());
            Ok(f)
        }
        None => {
            eprintln!(
                "parser: built-in (close to, not exactly, the official SPICE; for its exact \
                 numbers pass --corenlp-models with the stanford-corenlp-3.6.0-models.jar \
                 pycocoevalcap's SPICE downloads into spice/lib/)"
            );
            Ok(spice::FrontEnd::BuiltIn)
        }
    }
}

fn score(a: ScoreArgs) -> Result<(), Failure> {
    let started = Instant::now();
    if a.threads == Some(0) {
        return Err(Failure {
            code: 2,
            message: "-threads must be at least 1".into(),
        });
    }
    let file = std::fs::File::open(&a.input)
        .map_err(|e| Failure::input(format!("{}: cannot open: {e}", a.input)))?;
    let input = batch::read_input(file, &a.input).map_err(Failure::input)?;
    if a.verbose {
        eprintln!("{}: {} items", a.input, input.items.len());
        for f in &input.ignored {
            eprintln!(
                "{}: ignored field {:?} (not the jar's) in {} item(s), first in item {}",
                a.input, f.name, f.items, f.first_item
            );
        }
    }
    let items = input.items;
    let engine = Engine::new(EngineOptions {
        use_synsets: !a.no_synsets,
        front_end: front_end(a.corenlp_models.as_deref())?,
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| Failure::input(format!("cannot start threads: {e}")))?;
    let cache = match &a.cache {
        Some(dir) => {
            let c = spice::cache::ParseCache::open(Path::new(dir), &engine)
                .map_err(|e| Failure::input(format!("-cache {dir}: {e}")))?;
            if a.verbose {
                eprintln!(
                    "cache: {} captions known in {}",
                    c.known(),
                    c.path().display()
                );
            }
            Some(c)
        }
        None => None,
    };
    // Each image's JSON is written as soon as its chunk is scored (batch::evaluate_streamed), so
    // memory does not grow with the output; an output file cut short by a failure is removed.
    let cannot_write =
        |out: &str, e: std::io::Error| Failure::input(format!("{out}: cannot write: {e}"));
    let mut writer = match &a.out {
        Some(out) => Some(batch::OutputWriter::new(
            BufWriter::new(std::fs::File::create(out).map_err(|e| cannot_write(out, e))?),
            OutputOptions {
                subset: a.subset,
                detailed: a.detailed,
                front_end: Some(engine.options().front_end.name()),
            },
        )),
        None => None,
    };
    let proposals_of = |c: &str| match &cache {
        Some(cache) => cache.proposals(&engine, c),
        None => engine.caption_proposals(c),
    };
    let scored = pool.install(|| {
        batch::evaluate_streamed_with(
            &engine,
            &items,
            a.detailed,
            batch::STREAM_CHUNK,
            &proposals_of,
            |r| writer.as_mut().map_or(Ok(()), |w| w.write(r)),
        )
    });
    let finished = scored.and_then(|result| match writer {
        Some(w) => w
            .finish()
            .map(|_| result)
            .map_err(batch::StreamError::Write),
        None => Ok(result),
    });
    let result = match finished {
        Ok(result) => result,
        Err(e) => {
            let out = a.out.as_deref().unwrap_or_default();
            // Only a file of ours: `-out /dev/stdout` or a pipe is left alone.
            if std::fs::metadata(out).is_ok_and(|m| m.is_file()) {
                let _ = std::fs::remove_file(out);
            }
            return Err(match e {
                batch::StreamError::Engine(e) => Failure::input(e),
                batch::StreamError::Write(e) => cannot_write(out, e),
            });
        }
    };
    if let Some(cache) = &cache {
        // The scores stand whether or not the cache could be written: say so, and go on.
        match cache.save() {
            Ok(added) if a.verbose => eprintln!(
                "cache: {added} captions parsed and added to {}",
                cache.path().display()
            ),
            Ok(_) => {}
            Err(e) => eprintln!("-cache: cannot write {}: {e}", cache.path().display()),
        }
    }
    if !a.silent {
        print!("{}", batch::summary(&result, a.subset));
    }
    eprintln!(
        "SPICE evaluation took: {:.3} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// An engine with the front end `models` asks for ([`front_end`], said on standard error).
fn engine_with(no_synsets: bool, models: Option<&str>) -> Result<Engine, Failure> {
    Ok(Engine::new(EngineOptions {
        use_synsets: !no_synsets,
        front_end: front_end(models)?,
    }))
}

fn parse(captions: &[String], no_synsets: bool, models: Option<&str>) -> Result<(), Failure> {
    let engine = engine_with(no_synsets, models)?;
    for caption in captions {
        let sentences = engine.parse(caption).map_err(Failure::input)?;
        println!("caption: {caption}");
        for (n, g) in sentences.iter().enumerate() {
            println!("sentence {}:\n{}", n + 1, indent(&g.to_relations_string()));
        }
        let graph =
            engine.scene_graph_from_proposals([engine.graph_proposals(&sentences).as_slice()]);
        println!("tuples:");
        for t in spice::score::tuples(&graph) {
            println!("  ({})", t.texts().join(", "));
        }
    }
    Ok(())
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads a whole input file as text ("-" is standard input).
fn read_text(path: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes))
    };
    read.map_err(|e| Failure::input(format!("{path}: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::input(format!(
            "{path}: not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// `spice tuples --captions FILE`: each caption's proposals, as the official parser cache holds
/// them, made by the front end `models` asks for (said on standard error). Captions are parsed
/// in parallel; lines come out in input order.
fn caption_tuples(path: &str, models: Option<&str>) -> Result<(), Failure> {
    use rayon::prelude::*;
    let text = read_text(path)?;
    let engine = engine_with(false, models)?;
    let captions: Vec<&str> = text.lines().collect();
    let lines = captions
        .par_iter()
        .with_max_len(1)
        .map(|caption| {
            let mut seen = std::collections::HashSet::new();
            let mut tuples: Vec<Vec<String>> = engine
                .caption_proposals(caption)
                .map_err(Failure::input)?
                .iter()
                .map(spice::fidelity::printed_proposal)
                .filter(|t| seen.insert(t.clone()))
                .collect();
            // Objects, then attributes, then relations; the rules' order within each.
            tuples.sort_by_key(Vec::len);
            Ok(serde_json::json!({ "caption": caption, "tuples": tuples }).to_string())
        })
        .collect::<Result<Vec<String>, Failure>>()?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in lines {
        writeln!(out, "{line}").map_err(|e| Failure::input(format!("cannot write output: {e}")))?;
    }
    out.flush()
        .map_err(|e| Failure::input(format!("cannot write output: {e}")))
}

fn tuples(path: &str, no_synsets: bool, basic: bool) -> Result<(), Failure> {
    let text = read_text(path)?;
    let mut graphs =
        DepGraph::from_conllu_str(&text).map_err(|e| Failure::input(format!("{path}: {e}")))?;
    if basic {
        graphs.iter_mut().for_each(spice::enhance::enhance);
    }
    let engine = engine(no_synsets);
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (n, g) in graphs.iter().enumerate() {
        let graph = engine.scene_graph_from_proposals([engine
            .graph_proposals(std::slice::from_ref(g))
            .as_slice()]);
        let tuples: Vec<Vec<String>> = spice::score::tuples(&graph)
            .iter()
            .map(|t| t.texts())
            .collect();
        let line = serde_json::json!({ "sentence": n + 1, "tuples": tuples });
        writeln!(out, "{line}").map_err(|e| Failure::input(format!("cannot write output: {e}")))?;
    }
    out.flush()
        .map_err(|e| Failure::input(format!("cannot write output: {e}")))
}

fn tokenize(coco: bool, path: &str) -> Result<(), Failure> {
    let text = read_text(path)?;
    // One caption a line; a final line break does not start another caption.
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let lines: Vec<&str> = if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').collect()
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let write = |out: &mut BufWriter<_>, line: &str| {
        writeln!(out, "{line}").map_err(|e| Failure::input(format!("cannot write output: {e}")))
    };
    if coco {
        for line in spice::tokenize::tokenize_coco_batch(&lines) {
            write(&mut out, &line)?;
        }
    } else {
        for toks in spice::tokenize::tokenize_batch(&lines) {
            let words: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
            write(&mut out, &words.join(" "))?;
        }
    }
    out.flush()
        .map_err(|e| Failure::input(format!("cannot write output: {e}")))
}

/// The bytes of a file, mapped into memory rather than copied (COCO's annotation file is 32 MB).
fn map(path: &str) -> Result<memmap2::Mmap, Failure> {
    let fail = |e: std::io::Error| Failure::input(format!("{path}: cannot read: {e}"));
    let file = std::fs::File::open(path).map_err(fail)?;
    // SAFETY: the map is only read, and only while this process runs; the one hazard, another
    // process truncating the file meanwhile, is the same one every reader of a mapped input file
    // (ripgrep, for one) accepts.
    #[allow(unsafe_code)]
    unsafe { memmap2::MmapOptions::new().populate().map(&file) }.map_err(fail)
}

fn eval(a: EvalArgs) -> Result<(), Failure> {
    use spice::cocoeval::{self, Annotations, CocoImages, ImageId, Scorer};
    let started = Instant::now();
    let scorers = Scorer::parse_list(&a.metrics).map_err(|e| Failure {
        code: 2,
        message: format!("--metrics: {e}"),
    })?;
    let read = |path: &str| {
        std::fs::read(path).map_err(|e| Failure::input(format!("{path}: cannot read: {e}")))
    };
    let mut steps = Steps::new(a.timings);
    // METEOR's data first, so that its absence is reported before any work.
    check_rouge_data(&scorers)?;
    let meteor = if scorers.contains(&Scorer::Classic(spice::metrics::Metric::Meteor)) {
        Some(load_meteor()?)
    } else {
        None
    };
    steps.done("load METEOR data");
    // The results first: of the 32 MB of COCO annotations, only their images' captions are kept.
    let entries = cocoeval::read_results(&read(&a.results)?, &a.results).map_err(Failure::input)?;
    steps.done("read results");
    let wanted: foldhash::HashSet<&ImageId> = entries.image_ids().collect();
    let bytes = map(&a.annotations)?;
    steps.done("map annotation file");
    let annotations =
        Annotations::from_json_slice_keeping(&bytes, &a.annotations, |id| wanted.contains(id))
            .map_err(Failure::input)?;
    drop(bytes);
    drop(wanted);
    steps.done("parse annotations");
    let (results, ignored) =
        cocoeval::check_results(entries, &annotations, &a.results).map_err(Failure::input)?;
    if !ignored.is_empty() {
        eprintln!("{}: {ignored}", a.results);
    }
    let images = CocoImages::new(&annotations, &results, &a.results).map_err(Failure::input)?;
    drop(annotations);
    steps.done("pair results, references");
    let tokenized = images.tokenize().map_err(Failure::input)?;
    steps.done("tokenize");
    // Engine::new is cheap: the lexicon and models load when SPICE first needs them.
    let front = if scorers.contains(&spice::cocoeval::Scorer::Spice) {
        front_end(a.corenlp_models.as_deref())?
    } else {
        spice::FrontEnd::BuiltIn
    };
    let engine = Engine::new(EngineOptions {
        front_end: front,
        ..EngineOptions::default()
    });
    let evaluation =
        cocoeval::evaluate(&tokenized, &scorers, &engine, None, meteor).map_err(Failure::input)?;
    steps.done("score");
    if let Some(out) = &a.out {
        let write = || -> std::io::Result<()> {
            let mut w = BufWriter::new(std::fs::File::create(out)?);
            serde_json::to_writer(&mut w, &evaluation.to_json())?;
            w.flush()
        };
        write().map_err(|e| Failure::input(format!("{out}: cannot write: {e}")))?;
        steps.done("write");
    }
    print!("{}", evaluation.summary());
    eprintln!(
        "evaluated {} images in {:.3} s",
        evaluation.ids().len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn meta_eval(a: MetaEvalArgs) -> Result<(), Failure> {
    use spice::cocoeval::Scorer;
    use spice::metaeval::{self, Bootstrap};
    let started = Instant::now();
    let scorers = match &a.metrics {
        Some(list) => Scorer::parse_list(list).map_err(|e| Failure {
            code: 2,
            message: format!("--metrics: {e}"),
        })?,
        None => Scorer::defaults(),
    };
    if a.resamples == 0 {
        return Err(Failure {
            code: 2,
            message: "--resamples must be at least 1".into(),
        });
    }
    let text = read_text(&a.judgments)?;
    let judgments = metaeval::read_judgments(&text, &a.judgments).map_err(Failure::input)?;
    check_rouge_data(&scorers)?;
    let meteor = if scorers.contains(&Scorer::Classic(spice::metrics::Metric::Meteor)) {
        Some(load_meteor()?)
    } else {
        None
    };
    let scores =
        metaeval::score(&judgments, &scorers, &engine(false), meteor).map_err(Failure::input)?;
    let bootstrap = Bootstrap {
        resamples: a.resamples,
        seed: a.seed,
    };
    let results = metaeval::agreement(&judgments, &scores, bootstrap);
    if let Some(out) = &a.out {
        let write = || -> std::io::Result<()> {
            let mut w = BufWriter::new(std::fs::File::create(out)?);
            serde_json::to_writer_pretty(&mut w, &metaeval::to_json(&results, bootstrap))?;
            w.flush()
        };
        write().map_err(|e| Failure::input(format!("{out}: cannot write: {e}")))?;
    }
    print!("{}", metaeval::markdown(&results));
    eprintln!(
        "{} judged candidates, {} metrics, {} resamples in {:.1} s",
        judgments.len(),
        results.len(),
        a.resamples,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
