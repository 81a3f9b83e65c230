//! Small validated strings: slugs, names, e-mail addresses, passwords.

use secrecy::{ExposeSecret, SecretString};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{field}: {reason}")]
pub struct InvalidValue {
    pub field: &'static str,
    pub reason: String,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> InvalidValue {
    InvalidValue {
        field,
        reason: reason.into(),
    }
}

/// A challenge slug as it appears in URLs: 1-40 of `a-z 0-9 -`, starting with a letter or digit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeSlug(String);

impl ChallengeSlug {
    pub fn parse(s: &str) -> Result<ChallengeSlug, InvalidValue> {
        let ok_chars = s
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if s.is_empty() || s.len() > 40 || !ok_chars || s.starts_with('-') {
            return Err(invalid(
                "slug",
                format!("{s:?} must be 1-40 characters of a-z, 0-9 and '-', not starting with '-'"),
            ));
        }
        Ok(ChallengeSlug(s.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A split name such as `val` or `test-2025`: 1-40 of `a-z A-Z 0-9 - _ .`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitName(String);

impl SplitName {
    pub fn parse(s: &str) -> Result<SplitName, InvalidValue> {
        let ok = !s.is_empty()
            && s.len() <= 40
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !ok {
            return Err(invalid(
                "split",
                format!("{s:?} must be 1-40 characters of letters, digits, '-', '_' and '.'"),
            ));
        }
        Ok(SplitName(s.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Characters that show as nothing, or as a plain space, without being one: format characters
/// (zero-width spaces and joiners, right-to-left overrides, ...), line and paragraph separators,
/// spaces other than U+0020, the Hangul fillers, the blank Braille pattern and the combining
/// grapheme joiner. With them "Night\u{200B}Owls" would show on a leaderboard exactly as another
/// team's "NightOwls".
fn invisible(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    matches!(
        c.general_category(),
        GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    ) || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}' | '\u{034F}'
        )
}

/// Free text shown as a title or name: trimmed, 1 to `max` characters, runs of spaces read as
/// one (a page shows them so), no control characters and nothing [`invisible`].
pub(super) fn display_text(
    field: &'static str,
    s: &str,
    max: usize,
) -> Result<String, InvalidValue> {
    let t = s.trim();
    if t.is_empty() {
        return Err(invalid(field, "must not be empty"));
    }
    if t.chars().count() > max {
        return Err(invalid(field, format!("must be at most {max} characters")));
    }
    if t.chars().any(char::is_control) {
        return Err(invalid(field, "must not contain control characters"));
    }
    if let Some(c) = t.chars().find(|&c| invisible(c)) {
        return Err(invalid(
            field,
            format!(
                "must not contain invisible characters (it holds U+{:04X})",
                c as u32
            ),
        ));
    }
    Ok(t.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" "))
}

/// What two names that people would read as the same name have in common: the name under
/// NFKC, case-folded, without default-ignorable code points. Unicode's identifier guidance
/// (UAX #31's NFKC_Casefold, UTS #39 §5) compares names so: "Cafe\u{301}" is "Café" in another
/// normalization form, "ALPHA" is "alpha" in other letters' case, and a variation selector
/// (U+FE00–FE0F, U+E0100–E01EF, U+180B–180F), U+17B4 or an unassigned default-ignorable code
/// point (U+2065, U+FFF0, ...) shows as nothing, so "Owls\u{FE0F}" is "Owls". Two names with
/// one skeleton cannot both be taken (the schema holds the skeleton under a unique index).
///
/// Full case folding is `to_uppercase` then `to_lowercase` (std's mappings include Unicode's
/// SpecialCasing): "ß" and "SS" fold to "ss", "ς" and "Σ" to "σ", as CaseFolding.txt has them.
pub fn skeleton(name: &str) -> String {
    use icu_properties::props::DefaultIgnorableCodePoint;
    use icu_properties::CodePointSetData;
    use unicode_normalization::UnicodeNormalization;
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let visible = |c: &char| !ignorable.contains(*c);
    let folded: String = name
        .chars()
        .filter(visible)
        .nfkc()
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .collect();
    // Folding can leave text that NFKC would change again (a folded letter beside a mark).
    folded.chars().nfkc().filter(visible).collect()
}

/// A challenge title, unique on the site by its [`skeleton`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title(String);

impl Title {
    pub fn parse(s: &str) -> Result<Title, InvalidValue> {
        display_text("title", s, 200).map(Title)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn skeleton(&self) -> String {
        skeleton(&self.0)
    }
}

/// A team name, unique within a challenge by its [`skeleton`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamName(String);

impl TeamName {
    pub fn parse(s: &str) -> Result<TeamName, InvalidValue> {
        display_text("team name", s, 80).map(TeamName)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn skeleton(&self) -> String {
        skeleton(&self.0)
    }
}

/// A free-text description (of a challenge or a submission): trimmed, at most `max` characters,
/// possibly empty; line breaks and tabs allowed, other control characters (NUL above all, which
/// PostgreSQL cannot store in text) refused.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Description(String);

impl Description {
    pub fn parse(s: &str, max: usize) -> Result<Description, InvalidValue> {
        let t = s.trim();
        if t.chars().count() > max {
            return Err(invalid(
                "description",
                format!("must be at most {max} characters"),
            ));
        }
        if let Some(c) = t
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            return Err(invalid(
                "description",
                format!(
                    "must not contain control characters (it holds U+{:04X})",
                    c as u32
                ),
            ));
        }
        Ok(Description(t.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Where to send a browser after login: a path on this site. Browsers drop tabs and line breaks
/// anywhere in a URL and read `\` as `/` (the WHATWG URL standard), so `/\t/evil.example` and
/// `/\evil.example` are `//evil.example` to them, another site. The path is judged as a browser
/// will read it, and anything that is not plainly local becomes `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalPath(String);

impl LocalPath {
    pub fn parse(s: &str) -> LocalPath {
        let read: String = s
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .map(|c| if c == '\\' { '/' } else { c })
            .collect();
        let local = read.starts_with('/')
            && !read.starts_with("//")
            && !read.chars().any(|c| c.is_control() || c == ' ');
        LocalPath(if local { read } else { "/".to_string() })
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An e-mail address, lowercased; checked for shape only (one `@`, something on both sides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(s: &str) -> Result<Email, InvalidValue> {
        let t = s.trim().to_lowercase();
        let shape_ok = match t.split_once('@') {
            Some((user, host)) => !user.is_empty() && host.contains('.') && !host.contains('@'),
            None => false,
        };
        if !shape_ok || t.len() > 254 || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(invalid(
                "email",
                format!("{:?} is not an e-mail address", s.trim()),
            ));
        }
        Ok(Email(t))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A new password: 8 to 256 characters. Held as a secret so it never prints.
#[derive(Debug, Clone)]
pub struct Password(SecretString);

impl Password {
    pub fn parse(s: &str) -> Result<Password, InvalidValue> {
        let n = s.chars().count();
        if n < 8 {
            return Err(invalid("password", "must be at least 8 characters"));
        }
        if n > 256 {
            return Err(invalid("password", "must be at most 256 characters"));
        }
        Ok(Password(SecretString::from(s.to_string())))
    }
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_redirected_to() {
        for (next, to) in [
            ("/c/demo/submit", "/c/demo/submit"),
            ("/s/4?page=2", "/s/4?page=2"),
            ("//evil.example", "/"),
            ("/\\evil.example", "/"),
            ("\\\\evil.example", "/"),
            ("/\t/evil.example", "/"),
            ("/\r\n/evil.example", "/"),
            ("\t//evil.example", "/"),
            ("https://evil.example", "/"),
            ("/ok\r\nSet-Cookie: x=1", "/"),
            ("", "/"),
        ] {
            assert_eq!(LocalPath::parse(next).as_str(), to, "{next:?}");
        }
    }

    #[test]
    fn slugs_are_url_safe() {
        assert!(ChallengeSlug::parse("coco-2025").is_ok());
        assert!(ChallengeSlug::parse("Coco").is_err());
        assert!(ChallengeSlug::parse("a/b").is_err());
        assert!(ChallengeSlug::parse("-x").is_err());
        assert!(ChallengeSlug::parse("").is_err());
    }

    #[test]
    fn emails_are_lowercased_and_shape_checked() {
        assert_eq!(
            Email::parse(" Ann@Example.org ").map(|e| e.0),
            Ok("ann@example.org".to_string())
        );
        assert!(Email::parse("ann").is_err());
        assert!(Email::parse("ann@localhost").is_err());
        assert!(Email::parse("a b@x.org").is_err());
    }

    #[test]
    fn passwords_have_a_minimum_length() {
        assert!(Password::parse("short").is_err());
        assert!(Password::parse("long enough").is_ok());
    }

    #[test]
    fn names_that_read_alike_share_a_skeleton() {
        for (a, b) in [
            ("Caf\u{E9}", "Cafe\u{301}"),
            ("alpha", "ALPHA"),
            ("Owls", "Owls\u{FE0F}"),
            ("Owls", "Ow\u{E0100}ls"),
            ("Owls", "Ow\u{17B4}ls"),
            ("Owls", "Ow\u{180B}ls"),
            ("Owls", "Ow\u{2065}ls"),
            ("Owls", "Owls\u{FFF0}"),
            ("Stra\u{DF}e", "STRASSE"),
            (
                "\u{3C3}\u{3BF}\u{3C6}\u{3CC}\u{3C2}",
                "\u{3A3}\u{39F}\u{3A6}\u{38C}\u{3A3}",
            ),
            ("\u{FB01}sh", "fish"),
            ("\u{FF2F}wls", "owls"),
        ] {
            assert_eq!(skeleton(a), skeleton(b), "{a:?} {b:?}");
        }
        for (a, b) in [
            ("Owls", "Owl"),
            ("Night Owls", "NightOwls"),
            ("Caf\u{E9}", "Cafe"),
        ] {
            assert_ne!(skeleton(a), skeleton(b), "{a:?} {b:?}");
        }
    }

    #[test]
    fn team_names_are_trimmed_and_bounded() {
        assert_eq!(
            TeamName::parse("  Owls ").map(|t| t.0),
            Ok("Owls".to_string())
        );
        assert!(TeamName::parse("   ").is_err());
        assert!(TeamName::parse(&"x".repeat(81)).is_err());
        // Letters of any script and visible symbols are names; what shows as nothing is not.
        for name in ["Équipe Nuit", "夜のフクロウ", "Owls 🦉", "Owls & Bats <3"] {
            assert!(TeamName::parse(name).is_ok(), "{name}");
        }
        for (name, code) in [
            ("Night\u{200B}Owls", "U+200B"),
            ("\u{202E}slwO", "U+202E"),
            ("Owls\u{2066}", "U+2066"),
            ("Ow\u{00AD}ls", "U+00AD"),
            ("Owls\u{2028}Bats", "U+2028"),
            ("\u{FEFF}Owls", "U+FEFF"),
            ("Night\u{3164}Owls", "U+3164"),
            ("Night\u{00A0}Owls", "U+00A0"),
            ("Night\u{2800}Owls", "U+2800"),
            ("Ow\u{034F}ls", "U+034F"),
        ] {
            let e = TeamName::parse(name).map(|t| t.0);
            assert!(
                e.as_ref().is_err_and(|e| e.to_string().contains(code)),
                "{name:?}: {e:?}"
            );
        }
        assert!(Title::parse("COCO\u{200D}2026").is_err());
        // Runs of spaces show as one, so they are stored as one.
        assert_eq!(
            TeamName::parse("Night   Owls").map(|t| t.0),
            Ok("Night Owls".to_string())
        );
    }
}
