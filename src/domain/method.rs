//! What a team says about the method behind a submission (issue 34, item 4; EvalAI shows the
//! same): its name, and links to its paper and its code. All three are optional, given at upload
//! or edited afterwards by the team, and shown on the leaderboard under the entry's name.
//!
//! A link is shown to everyone who reads the leaderboard, so it is held to what a browser will
//! follow harmlessly: an `http` or `https` URL with a host and no user name or password in it (so
//! that `https://arxiv.org@evil.example/` cannot pass for arXiv), stored as the `url` crate
//! serializes it (host lowercased and punycoded, spaces and quotes percent-encoded).

use super::names::{display_text, InvalidValue};

/// The longest method name, in characters: a line under a team's name on the leaderboard.
pub const METHOD_NAME_MAX: usize = 100;
/// The longest link, in characters, as typed and as stored.
pub const LINK_MAX: usize = 500;

/// A submission's method: name, paper link and code link, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubmissionMethod {
    name: Option<String>,
    paper_url: Option<String>,
    code_url: Option<String>,
}

/// Every field of a method that is not acceptable, each with why.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct MethodError(pub Vec<InvalidValue>);

impl SubmissionMethod {
    /// Checks the three fields as typed (blank: not given), reporting every bad one at once.
    pub fn parse(name: &str, paper_url: &str, code_url: &str) -> Result<Self, MethodError> {
        let mut problems = Vec::new();
        let mut keep = |r: Result<Option<String>, InvalidValue>| match r {
            Ok(v) => v,
            Err(e) => {
                problems.push(e);
                None
            }
        };
        let method = SubmissionMethod {
            name: keep(method_name(name)),
            paper_url: keep(link("paper link", paper_url)),
            code_url: keep(link("code link", code_url)),
        };
        if problems.is_empty() {
            Ok(method)
        } else {
            Err(MethodError(problems))
        }
    }

    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    pub fn paper_url(&self) -> Option<&str> {
        self.paper_url.as_deref()
    }
    pub fn code_url(&self) -> Option<&str> {
        self.code_url.as_deref()
    }
    /// Nothing given.
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.paper_url.is_none() && self.code_url.is_none()
    }
}

/// A method name as a team name is held (no control or invisible characters, spaces as one),
/// at most [`METHOD_NAME_MAX`] characters; blank is none.
fn method_name(s: &str) -> Result<Option<String>, InvalidValue> {
    if s.trim().is_empty() {
        return Ok(None);
    }
    display_text("method name", s, METHOD_NAME_MAX).map(Some)
}

/// A link to a paper or code: blank is none; otherwise an absolute http(s) URL with a host and
/// no credentials, at most [`LINK_MAX`] characters as typed and as stored.
fn link(field: &'static str, s: &str) -> Result<Option<String>, InvalidValue> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let refuse = |reason: String| InvalidValue { field, reason };
    if t.chars().count() > LINK_MAX {
        return Err(refuse(format!("must be at most {LINK_MAX} characters")));
    }
    // Browsers drop tabs and line breaks inside a URL and the parser would too: refused rather
    // than silently changed, like every other control character and space.
    if t.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(refuse(
            "must not contain spaces or control characters".into(),
        ));
    }
    let must = "must be a web address starting with http:// or https://";
    let url = url::Url::parse(t).map_err(|e| refuse(format!("{must} ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse(format!("{must}, not {}:", url.scheme())));
    }
    let has_host = matches!(url.host_str(), Some(h) if !h.is_empty());
    if !has_host {
        return Err(refuse(format!("{must} and a host name")));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse(
            "must not hold a user name or password (the part before @)".into(),
        ));
    }
    let stored = url.to_string();
    if stored.chars().count() > LINK_MAX {
        return Err(refuse(format!(
            "must be at most {LINK_MAX} characters once encoded"
        )));
    }
    Ok(Some(stored))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(r: Result<SubmissionMethod, MethodError>) -> String {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn blank_fields_are_not_given() {
        let m = SubmissionMethod::parse("  ", "", "\t").expect("blank is fine");
        assert!(m.is_empty());
        assert_eq!(m, SubmissionMethod::default());
    }

    #[test]
    fn a_method_is_kept_as_typed_and_links_as_browsers_read_them() {
        let m = SubmissionMethod::parse(
            "  Up-Down   + CIDEr  optimisation ",
            "https://arXiv.org/abs/1707.07998",
            "HTTP://GitHub.com/peteanderson80/bottom-up-attention?q=\"x\"",
        )
        .expect("valid");
        assert_eq!(m.name(), Some("Up-Down + CIDEr optimisation"));
        assert_eq!(m.paper_url(), Some("https://arxiv.org/abs/1707.07998"));
        assert_eq!(
            m.code_url(),
            Some("http://github.com/peteanderson80/bottom-up-attention?q=%22x%22")
        );
        let idn = SubmissionMethod::parse("", "https://bücher.example/a b", "");
        assert!(reasons(idn).contains("spaces"));
        let idn = SubmissionMethod::parse("", "https://bücher.example/", "").expect("valid");
        assert_eq!(idn.paper_url(), Some("https://xn--bcher-kva.example/"));
    }

    #[test]
    fn links_other_than_web_addresses_are_refused() {
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "ftp://example.org/paper.pdf",
            "file:///etc/passwd",
            "//evil.example/",
            "/relative/path",
            "arxiv.org/abs/1",
            "https://",
            "mailto:a@example.org",
        ] {
            let e = reasons(SubmissionMethod::parse("", bad, ""));
            assert!(
                e.starts_with("paper link: must be a web address"),
                "{bad}: {e}"
            );
        }
        let e = reasons(SubmissionMethod::parse(
            "",
            "",
            "https://github.com@evil.example/x",
        ));
        assert_eq!(
            e,
            "code link: must not hold a user name or password (the part before @)"
        );
        let e = reasons(SubmissionMethod::parse("", "https://a.example/\u{0}", ""));
        assert!(e.contains("control characters"), "{e}");
    }

    #[test]
    fn lengths_are_bounded_and_every_problem_is_named_at_once() {
        let long_name = "x".repeat(METHOD_NAME_MAX + 1);
        let long_link = format!("https://example.org/{}", "a".repeat(LINK_MAX));
        let e = reasons(SubmissionMethod::parse(&long_name, &long_link, "ftp://x"));
        assert_eq!(
            e,
            format!(
                "method name: must be at most {METHOD_NAME_MAX} characters; paper link: must be \
                 at most {LINK_MAX} characters; code link: must be a web address starting with \
                 http:// or https://, not ftp:"
            )
        );
        assert!(SubmissionMethod::parse(&"é".repeat(METHOD_NAME_MAX), "", "").is_ok());
        // Within the bound as typed, past it once percent-encoded.
        let quotes = format!("https://example.org/{}", "\"".repeat(LINK_MAX - 30));
        let e = reasons(SubmissionMethod::parse("", &quotes, ""));
        assert!(e.ends_with("once encoded"), "{e}");
    }

    #[test]
    fn a_method_name_holds_nothing_invisible() {
        let e = reasons(SubmissionMethod::parse("Up\u{200B}Down", "", ""));
        assert!(
            e.starts_with("method name: must not contain invisible"),
            "{e}"
        );
        let e = reasons(SubmissionMethod::parse("Up\nDown", "", ""));
        assert!(
            e.starts_with("method name: must not contain control"),
            "{e}"
        );
    }
}
