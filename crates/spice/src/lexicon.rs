//! Word lists: the words on which the official parser's choices depend where ours do not, each
//! with its evidence in `../shared/fidelity`. The habits ([`crate::habits`]) and the tagger's
//! steering ([`crate::tag`]) read them from here, so what the engine knows word by word is in one
//! place. (The lists that belong to a specification stay with it: the tokenizer's, the
//! enhancer's multi-word prepositions, SPEC §3's quantifier expressions and §6's categories.)

/// Present participles that CoreNLP's PCFG reads as nouns after the head noun of a fragment (see
/// `habits::participle_noun_head`). Each has the noun reading in at least two official parser graphs of
/// fragments without final punctuation (standing 18 of 19, playing 2 of 3, skiing 2 of 3,
/// balancing, cooking, grazing, riding and swimming 2 of 2), except "wading", kept for the Flickr8K count of
/// "A dog wading in the water with a ball in his mouth" (official 9, the noun reading's count).
pub const NOUN_LIKE_PARTICIPLES: [&str; 9] = [
    "balancing",
    "cooking",
    "grazing",
    "playing",
    "riding",
    "skiing",
    "standing",
    "swimming",
    "wading",
];

/// The parts of a thing whose "of" phrase the PCFG hangs on the root noun of a fragment, with the
/// one preposition that must come right before them, or `None` for any preposition, determiners
/// allowed.
pub const FRAGMENT_OF_PARTS: &[(&str, Option<&str>)] = &[
    ("top", Some("on")),
    ("front", Some("in")),
    ("back", None),
    ("edge", None),
    ("middle", None),
    ("bottom", None),
    ("corner", None),
];

/// Colour words that can stand alone for clothing ("dressed in green", "wearing blue").
pub const COLOURS: [&str; 17] = [
    "black", "blue", "brown", "gold", "gray", "green", "grey", "maroon", "navy", "orange", "pink",
    "purple", "red", "silver", "tan", "white", "yellow",
];

/// Is this word (any case) one of [`COLOURS`]?
pub fn is_colour_word(word: &str) -> bool {
    COLOURS.iter().any(|c| c.eq_ignore_ascii_case(word))
}

/// Verbs after which a colour word that ends the sentence is the worn thing ("wearing blue").
pub const WEARING_VERBS: [&str; 3] = ["wearing", "wears", "wear"];

/// Words that are verbs for our tagger but nouns for CoreNLP's PCFG right after a noun (as in its
/// newspaper treebank, where "races" are mostly elections): "A dog races along the grassy track ."
/// and "A motorcyclist races around a track ." have the official counts of `races/NNS` (5 and 4:
/// `(race, dog)`, `(race, along, track)`, ...), and so has "Two boys on ice skates race on an
/// outdoor ice rink ." (10); "Two greyhounds race ." (official 1) comes one tuple closer. On
/// Flickr8K raw captions: exact tp/fp/fn 28.9 % -> 29.1 %, MAE 0.00498 -> 0.0049. The same test
/// on the 129 other verbs that follow a noun in Flickr8K at least twice finds none with more than
/// one candidate for the noun reading ("blows", "tries": one each) and many with candidates
/// against it (the verb reading agrees for "jumps" 25 times against 1, "stands" 15 against 2).
pub const NOUN_LIKE_VERBS: &[&str] = &["race", "races"];
