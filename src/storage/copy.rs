//! Bulk writes with `COPY ... FROM STDIN` in its text format: a row per line, fields separated
//! by tabs, `\N` for NULL. The fastest way in for the tens of thousands of rows a job or an import
//! writes; callers send them in statements of a few thousand images each, so that no statement
//! runs for seconds (a 40,504-image submission is about 90 MB of rows).

use sqlx::{Postgres, Transaction};

/// Appends `text` escaped for COPY's text format: backslash, tab, newline and carriage return
/// become their backslash escapes; everything else is copied as it is.
pub(super) fn push_field(out: &mut String, text: &str) {
    let special = |b: &u8| matches!(b, b'\\' | b'\t' | b'\n' | b'\r');
    let mut rest = text;
    // Runs without a special byte are copied whole (JSON text has few backslashes and no
    // control characters); the special bytes are ASCII, so every cut is at a character boundary.
    while let Some(at) = rest.bytes().position(|b| special(&b)) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'\\' => "\\\\",
            b'\t' => "\\t",
            b'\n' => "\\n",
            _ => "\\r",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// Appends an optional field: its text escaped, or `\N`.
pub(super) fn push_optional(out: &mut String, text: Option<&str>) {
    match text {
        Some(t) => push_field(out, t),
        None => out.push_str("\\N"),
    }
}

/// Runs `statement` (a `COPY ... FROM STDIN`) with `data`, rows in COPY's text format.
pub(super) async fn copy_in(
    tx: &mut Transaction<'_, Postgres>,
    statement: &str,
    data: String,
) -> Result<(), sqlx::Error> {
    if data.is_empty() {
        return Ok(());
    }
    let mut copy = tx.copy_in_raw(statement).await?;
    copy.send(data.into_bytes()).await?;
    copy.finish().await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::{push_field, push_optional};

    #[test]
    fn fields_escape_separators_and_backslashes_only() {
        let mut out = String::new();
        push_field(&mut out, "a\tb\\c\nd\re");
        assert_eq!(out, "a\\tb\\\\c\\nd\\re");
        let mut out = String::new();
        push_field(&mut out, "{\"x\": \"é \\\" ü\"}");
        assert_eq!(out, "{\"x\": \"é \\\\\" ü\"}");
        push_optional(&mut out, None);
        assert!(out.ends_with("\\N"));
    }
}
