//! The word lists the relations test leaves against (CoreNLP's `EnglishPatterns`), as label
//! tests for [`super::super::patterns::node`].

use super::super::patterns::words;

/// Forms of "be" that make a copula.
pub fn copular_words() -> String {
    words(&[
        "be", "being", "been", "am", "are", "r", "is", "ai", "was", "were", "'m", "m", "'re",
        "'s", "s", "`s", "art", "ar", "wase",
    ])
}

/// Forms of "be" and "get" that make a passive.
pub fn passive_aux_words() -> String {
    words(&[
        "be", "being", "been", "am", "are", "r", "is", "ai", "was", "were", "'m", "m", "'re",
        "'s", "s", "`s", "art", "ar", "wase", "get", "getting", "gets", "got", "gotten",
    ])
}

/// Forms of "be" as an auxiliary.
pub fn be_aux_words() -> String {
    words(&[
        "am", "is", "are", "r", "be", "being", "'s", "'re", "'m", "was", "were", "been", "s",
        "ai", "m", "art", "ar", "wase",
    ])
}

/// Forms of "have" as an auxiliary.
pub fn have_words() -> String {
    words(&[
        "have", "had", "has", "having", "'ve", "ve", "v", "'d", "d", "hvae", "hav", "as",
    ])
}

/// Nouns naming a time: such a noun phrase is a temporal modifier, not an object. Regular expressions: `s?` is an optional plural.
pub fn time_words() -> String {
    words(&[
        "Mondays?", "Tuesdays?", "Wednesdays?", "Thursdays?", "Fridays?", "Saturdays?",
        "Sundays?", "years?", "months?", "weeks?", "days?", "mornings?", "evenings?", "nights?",
        "January", "Jan\\.", "February", "Feb\\.", "March", "Mar\\.", "April", "Apr\\.", "May",
        "June", "July", "August", "Aug\\.", "September", "Sept\\.", "October", "Oct\\.",
        "November", "Nov\\.", "December", "Dec\\.", "today", "yesterday", "tomorrow", "spring",
        "summer", "fall", "autumn", "winter",
    ])
}

/// Verbs taking a predicate as complement ("seem", "become").
pub fn clausal_complement_words() -> String {
    words(&[
        "seem", "seems", "seemed", "seeming", "resemble", "resembles", "resembled", "resembling",
        "become", "becomes", "became", "becoming", "remain", "remains", "remained", "remaining",
    ])
}

/// Reflexive pronouns.
pub fn self_words() -> String {
    words(&[
        "myself", "yourself", "himself", "herself", "itself", "ourselves", "yourselves",
        "themselves",
    ])
}

/// Verbs whose answer would be a clausal complement ("know when ...").
pub fn ccomp_verbs() -> String {
    words(&[
        "ask", "asks", "asked", "asking", "know", "knows", "knew", "knowing", "specify",
        "specifies", "specified", "specifying", "tell", "tells", "told", "telling", "understand",
        "understands", "understood", "understanding", "wonder", "wonders", "wondered",
        "wondering",
    ])
}

/// The [`ccomp_verbs`] that may have an object as well ("told me when ...").
pub fn ccomp_obj_verbs() -> String {
    words(&[
        "tell", "tells", "told", "telling",
    ])
}

/// Relative pronouns (compared ignoring case).
pub const RELATIVIZING: &[&str] = &[
        "that", "what", "which", "who", "whom", "whose",
];

/// Lemmas of verbs of the frame NP V S-INF (VerbNet 3.2), compared ignoring case.
pub const NP_V_S_INF_VERBS: &[&str] = &[
        "acquiesce", "submit", "bow", "defer", "accede", "succumb", "yield", "capitulate",
        "despise", "disdain", "dislike", "regret", "like", "love", "enjoy", "fear", "hate",
        "pledge", "proceed", "begin", "start", "commence", "recommence", "resume", "undertake",
        "ally", "collaborate", "collude", "conspire", "discriminate", "legislate", "partner",
        "protest", "rebel", "retaliate", "scheme", "sin", "befriend", "continue", "broadcast",
        "cable", "e-mail", "fax", "modem", "netmail", "phone", "radio", "relay", "satellite",
        "semaphore", "sign", "signal", "telecast", "telegraph", "telephone", "telex", "wire",
        "wireless", "ache", "crave", "fall", "hanker", "hope", "hunger", "itch", "long", "lust",
        "pine", "pray", "thirst", "wish", "yearn", "dangle", "hanker", "lust", "thirst", "yearn",
        "babble", "bark", "bawl", "bellow", "bleat", "blubber", "boom", "bray", "burble",
        "bluster", "cackle", "call", "carol", "chant", "chatter", "chirp", "chortle", "chuckle",
        "cluck", "coo", "croak", "croon", "crow", "cry", "drawl", "drone", "gabble", "gasp",
        "gibber", "groan", "growl", "grumble", "grunt", "hiss", "holler", "hoot", "howl",
        "jabber", "keen", "lilt", "lisp", "mewl", "moan", "mumble", "murmur", "mutter", "nasal",
        "natter", "pant", "prattle", "purr", "quaver", "rage", "rant", "rasp", "roar", "rumble",
        "scream", "screech", "shout", "shriek", "sibilate", "simper", "sigh", "sing", "smatter",
        "smile", "snap", "snarl", "snivel", "snuffle", "splutter", "squall", "squawk", "squeak",
        "squeal", "stammer", "stemmer", "stutter", "thunder", "tisk", "trill", "trumpet",
        "twang", "twitter", "vociferate", "wail", "warble", "wheeze", "whimper", "whine",
        "whisper", "whistle", "witter", "whoop", "yammer", "yap", "yell", "yelp", "yodel",
        "blare", "gurgle", "hum", "neglect", "fail", "forego", "forgo", "flub", "overleap",
        "manage", "omit", "seem", "appear", "prove", "manage", "fail", "flub", "try", "attempt",
        "intend", "enjoy", "expect", "wish", "hope", "intend", "mean", "plan", "propose",
        "think", "aim", "dream", "imagine", "yen",
];
