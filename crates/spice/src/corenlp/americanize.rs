//! The model's word function: British spellings to American ones before the lexicon sees a word.
//!
//! `englishPCFG`'s options carry CoreNLP's `AmericanizeFunction`, so `LexicalizedParserQuery`
//! rewrites every word with it before parsing and puts the original words back in the tree.
//! The behaviour reproduced here (CoreNLP 3.6.0, capitalising month and day names):
//! words shorter than 4 characters are kept; a word of the fixed table is replaced (month and
//! day names first); words shorter than 6 are kept; then five spelling patterns are tried in
//! order, the first that applies rewriting the word. Before those patterns, CoreNLP tests one
//! combined pattern built by deleting their parentheses, which turns `haem(at)?o` into `haemat?o`:
//! so "haemoglobin" passes through unchanged while "haematology" becomes "hematology". Kept.

/// Month and day names, capitalised.
const TIMEX: &[&str] = &[
    "January",
    "February",
    "April",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// British spelling → American spelling, the fixed table.
const TABLE: &[(&str, &str)] = &[
    ("anaesthetic", "anesthetic"),
    ("analogue", "analog"),
    ("analogues", "analogs"),
    ("analyse", "analyze"),
    ("analysed", "analyzed"),
    ("analysing", "analyzing"),
    ("armoured", "armored"),
    ("cancelled", "canceled"),
    ("cancelling", "canceling"),
    ("candour", "candor"),
    ("capitalise", "capitalize"),
    ("capitalised", "capitalized"),
    ("capitalisation", "capitalization"),
    ("centre", "center"),
    ("chimaeric", "chimeric"),
    ("clamour", "clamor"),
    ("coloured", "colored"),
    ("colouring", "coloring"),
    ("colourful", "colorful"),
    ("defence", "defense"),
    ("Defence", "Defense"),
    ("discolour", "discolor"),
    ("discolours", "discolors"),
    ("discoloured", "discolored"),
    ("discolouring", "discoloring"),
    ("encyclopaedia", "encyclopedia"),
    ("endeavour", "endeavor"),
    ("endeavours", "endeavors"),
    ("endeavoured", "endeavored"),
    ("endeavouring", "endeavoring"),
    ("fervour", "fervor"),
    ("favour", "favor"),
    ("favours", "favors"),
    ("favoured", "favored"),
    ("favouring", "favoring"),
    ("favourite", "favorite"),
    ("favourites", "favorites"),
    ("fibre", "fiber"),
    ("fibres", "fibers"),
    ("finalise", "finalize"),
    ("finalised", "finalized"),
    ("finalising", "finalizing"),
    ("flavour", "flavor"),
    ("flavours", "flavors"),
    ("flavoured", "flavored"),
    ("flavouring", "flavoring"),
    ("glamour", "glamour"),
    ("grey", "gray"),
    ("harbour", "harbor"),
    ("harbours", "harbors"),
    ("homologue", "homolog"),
    ("homologues", "homologs"),
    ("honour", "honor"),
    ("honours", "honors"),
    ("honoured", "honored"),
    ("honouring", "honoring"),
    ("honourable", "honorable"),
    ("humour", "humor"),
    ("humours", "humors"),
    ("humoured", "humored"),
    ("humouring", "humoring"),
    ("kerb", "curb"),
    ("labelled", "labeled"),
    ("labelling", "labeling"),
    ("labour", "labor"),
    ("Labour", "Labor"),
    ("labours", "labors"),
    ("laboured", "labored"),
    ("labouring", "laboring"),
    ("leant", "leaned"),
    ("learnt", "learned"),
    ("localise", "localize"),
    ("localised", "localized"),
    ("manoeuvre", "maneuver"),
    ("manoeuvres", "maneuvers"),
    ("maximise", "maximize"),
    ("maximised", "maximized"),
    ("maximising", "maximizing"),
    ("meagre", "meager"),
    ("minimise", "minimize"),
    ("minimised", "minimized"),
    ("minimising", "minimizing"),
    ("modernise", "modernize"),
    ("modernised", "modernized"),
    ("modernising", "modernizing"),
    ("misdemeanour", "misdemeanor"),
    ("misdemeanours", "misdemeanors"),
    ("neighbour", "neighbor"),
    ("neighbours", "neighbors"),
    ("neighbourhood", "neighborhood"),
    ("neighbourhoods", "neighborhoods"),
    ("oestrogen", "estrogen"),
    ("oestrogens", "estrogens"),
    ("organisation", "organization"),
    ("organisations", "organizations"),
    ("penalise", "penalize"),
    ("penalised", "penalized"),
    ("popularise", "popularize"),
    ("popularised", "popularized"),
    ("popularises", "popularizes"),
    ("popularising", "popularizing"),
    ("practise", "practice"),
    ("practised", "practiced"),
    ("pressurise", "pressurize"),
    ("pressurised", "pressurized"),
    ("pressurises", "pressurizes"),
    ("pressurising", "pressurizing"),
    ("realise", "realize"),
    ("realised", "realized"),
    ("realising", "realizing"),
    ("realises", "realizes"),
    ("recognise", "recognize"),
    ("recognised", "recognized"),
    ("recognising", "recognizing"),
    ("recognises", "recognizes"),
    ("rumoured", "rumored"),
    ("rumouring", "rumoring"),
    ("savour", "savor"),
    ("savours", "savors"),
    ("savoured", "savored"),
    ("savouring", "savoring"),
    ("splendour", "splendor"),
    ("splendours", "splendors"),
    ("theatre", "theater"),
    ("theatres", "theaters"),
    ("titre", "titer"),
    ("titres", "titers"),
    ("travelled", "traveled"),
    ("travelling", "traveling"),
];

/// Words ending in "our" that the `-our` → `-or` pattern leaves alone (any word containing one).
const OUR_KEPT: &[&str] = &[
    "abatjour",
    "beflour",
    "bonjour",
    "calambour",
    "carrefour",
    "cornflour",
    "contour",
    "detour",
    "devour",
    "dortour",
    "dyvour",
    "downpour",
    "giaour",
    "glamour",
    "holour",
    "inpour",
    "outpour",
    "pandour",
    "paramour",
    "pompadour",
    "recontour",
    "repour",
    "ryeflour",
    "sompnour",
    "tambour",
    "troubadour",
    "tregetour",
    "velour",
];

/// The word as the model's word function gives it to the lexicon.
pub fn americanize(word: &str) -> String {
    let len = word.encode_utf16().count();
    if len < 4 {
        return word.to_string();
    }
    if let Some(t) = TIMEX.iter().find(|t| t.to_lowercase() == word) {
        return (*t).to_string();
    }
    if let Some((_, us)) = TABLE.iter().find(|(uk, _)| *uk == word) {
        return (*us).to_string();
    }
    if len < 6 || !prefilter(word) {
        return word.to_string();
    }
    // The five patterns in order; the first that finds a match rewrites every match.
    if word.contains("haem") {
        if let Some(out) = replace_haem(word) {
            return out;
        }
    }
    if let Some(stem) = word.strip_suffix("aemia") {
        return format!("{stem}emia");
    }
    if word.contains("leukaem") || word.contains("Leukaem") {
        return word
            .replace("leukaem", "leukem")
            .replace("Leukaem", "Leukem");
    }
    if let Some(stem) = word.strip_suffix("programmes") {
        return format!("{stem}programs");
    }
    if let Some(stem) = word.strip_suffix("programme") {
        return format!("{stem}program");
    }
    if let Some(out) = our_to_or(word) {
        return out;
    }
    word.to_string()
}

/// The combined pattern CoreNLP checks first (the five with their parentheses deleted).
fn prefilter(word: &str) -> bool {
    word.contains("haemao")
        || word.contains("haemato")
        || word.ends_with("aemia")
        || word.contains("leukaem")
        || word.contains("Leukaem")
        || word.ends_with("programme")
        || word.ends_with("programmes")
        || our_stem(word).is_some()
}

/// `haem(at)?o` → `hem$1o`, every match from the left.
fn replace_haem(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    let mut found = false;
    while let Some(i) = rest.find("haem") {
        let after = &rest[i + 4..];
        let tail = if after.starts_with("ato") {
            Some(("hemato", 7))
        } else if after.starts_with('o') {
            Some(("hemo", 5))
        } else {
            None
        };
        match tail {
            Some((rep, n)) => {
                out.push_str(&rest[..i]);
                out.push_str(rep);
                rest = &rest[i + n..];
                found = true;
            }
            None => {
                out.push_str(&rest[..i + 1]);
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    found.then_some(out)
}

/// `^([a-z]{3,})our(s?)$`: the stem before "our" and whether an "s" follows.
fn our_stem(word: &str) -> Option<(&str, bool)> {
    let (body, s) = match word.strip_suffix("ours") {
        Some(b) => (b, true),
        None => (word.strip_suffix("our")?, false),
    };
    (body.len() >= 3 && body.bytes().all(|b| b.is_ascii_lowercase())).then_some((body, s))
}

fn our_to_or(word: &str) -> Option<String> {
    let (stem, s) = our_stem(word)?;
    if OUR_KEPT.iter().any(|k| word.contains(k)) {
        return None;
    }
    Some(format!("{stem}or{}", if s { "s" } else { "" }))
}

#[cfg(test)]
mod tests {
    use super::americanize;

    #[test]
    fn table_patterns_and_exceptions() {
        assert_eq!(americanize("grey"), "gray");
        assert_eq!(americanize("colour"), "color");
        assert_eq!(americanize("colours"), "colors");
        assert_eq!(americanize("Colour"), "Colour");
        assert_eq!(americanize("harbour"), "harbor");
        assert_eq!(americanize("contour"), "contour");
        assert_eq!(americanize("devours"), "devours");
        assert_eq!(americanize("tour"), "tour");
        assert_eq!(americanize("monday"), "Monday");
        assert_eq!(americanize("march"), "march");
        assert_eq!(americanize("programmes"), "programs");
        assert_eq!(americanize("anaemia"), "anemia");
        assert_eq!(americanize("haematology"), "hematology");
        // The combined pre-check has no "haemo" in it.
        assert_eq!(americanize("haemoglobin"), "haemoglobin");
        assert_eq!(americanize("dog"), "dog");
    }
}
