//! The one reader of multipart forms (the team's upload, the API upload, the organizer's imports).
//!
//! Everything is bounded while the body streams in, so a hostile form costs at most its limits in
//! memory: a few text fields (`MAX_FIELDS`, `MAX_TEXT_BYTES` in total), one file of at most
//! `file_limit` bytes (bytes beyond it are discarded as they arrive, so that the client still reads
//! our answer), and `body_limit` bytes on the wire, after which we stop reading. A team's upload
//! may have little more than its file (`Limits::team_upload`), so a body far over the challenge's
//! file limit is refused as soon as its declared length, or its bytes, pass that. The caller's
//! `gate` runs before the first byte of the file is read: that is where the CSRF token (a text field
//! sent before the file, as browsers send fields in document order) and the team are checked.

use std::collections::HashMap;

use actix_multipart::Multipart;
use actix_web::HttpRequest;
use futures_util::StreamExt;

/// Most text fields and files a form may have in all.
pub const MAX_FIELDS: usize = 16;
/// Most bytes all text fields together may have.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Text fields and at most one file field (`file`).
#[derive(Debug, Default)]
pub struct Form {
    pub fields: HashMap<String, String>,
    pub file: Option<Vec<u8>>,
    /// The file's size if it was larger than the limit; its bytes are dropped.
    pub file_too_large: Option<u64>,
}

impl Form {
    pub fn field(&self, name: &str) -> &str {
        self.fields.get(name).map(String::as_str).unwrap_or("")
    }
}

/// What a team's upload may carry besides its file: its text fields and the parts' headers.
pub const UPLOAD_OVERHEAD: u64 = 64 * 1024;

/// Limits of one form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The file's limit (the challenge's, or the server's for organizers).
    pub file: u64,
    /// The whole body on the wire.
    pub body: u64,
}

impl Limits {
    /// A team's upload (form or API): the challenge's file limit, and a body of at most that plus
    /// `UPLOAD_OVERHEAD`, never more than the server's `limits.max_request_bytes`. A file a little
    /// over its limit is still read to the end and refused by name; a body well over it is cut off.
    pub fn team_upload(file_limit: i64, max_request_bytes: usize) -> Limits {
        let file = file_limit.max(0) as u64;
        Limits {
            file,
            body: file
                .saturating_add(UPLOAD_OVERHEAD)
                .min(max_request_bytes as u64),
        }
    }
}

fn body_too_large(limits: &Limits) -> String {
    if limits.file < limits.body {
        format!(
            "the upload is too large: this challenge accepts at most {} bytes per file, {} bytes per request",
            limits.file, limits.body
        )
    } else {
        format!(
            "the request is larger than the server accepts ({} bytes)",
            limits.body
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FormError {
    #[error("could not read the multipart form: {0}")]
    Malformed(String),
    #[error("the form has more than {MAX_FIELDS} fields")]
    TooManyFields,
    #[error("the form's text fields are larger than {MAX_TEXT_BYTES} bytes")]
    TextTooLarge,
    #[error("{}", body_too_large(.0))]
    BodyTooLarge(Limits),
    #[error("the form has more than one file")]
    TwoFiles,
}

/// Why a form was not read: its shape, or the caller's gate.
#[derive(Debug)]
pub enum ReadError<G> {
    Form(FormError),
    Gate(G),
}

impl<G> From<FormError> for ReadError<G> {
    fn from(e: FormError) -> Self {
        ReadError::Form(e)
    }
}

/// Refuses a body whose declared length is over the limit before reading any of it.
pub fn check_declared_length(req: &HttpRequest, limits: Limits) -> Result<(), FormError> {
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match declared {
        Some(n) if n > limits.body => Err(FormError::BodyTooLarge(limits)),
        _ => Ok(()),
    }
}

/// Reads the form within `limits`; `gate` sees the text fields read so far and runs once, before the
/// file's bytes are read (or at the end if there is no file).
pub async fn read<G>(
    req: &HttpRequest,
    mut payload: Multipart,
    limits: Limits,
    gate: impl FnOnce(&HashMap<String, String>) -> Result<(), G>,
) -> Result<Form, ReadError<G>> {
    check_declared_length(req, limits)?;
    let mut gate = Some(gate);
    let mut form = Form::default();
    let (mut fields, mut text_bytes, mut body) = (0usize, 0usize, 0u64);
    while let Some(field) = payload.next().await {
        let mut field = field.map_err(|e| FormError::Malformed(e.to_string()))?;
        fields += 1;
        if fields > MAX_FIELDS {
            return Err(FormError::TooManyFields.into());
        }
        let name = field.name().unwrap_or("").to_string();
        if name == "file" {
            if form.file.is_some() || form.file_too_large.is_some() {
                return Err(FormError::TwoFiles.into());
            }
            if let Some(g) = gate.take() {
                g(&form.fields).map_err(ReadError::Gate)?;
            }
            let mut buf: Vec<u8> = Vec::new();
            let mut size: u64 = 0;
            while let Some(chunk) = field.next().await {
                let chunk = chunk.map_err(|e| FormError::Malformed(e.to_string()))?;
                size += chunk.len() as u64;
                body += chunk.len() as u64;
                if body > limits.body {
                    return Err(FormError::BodyTooLarge(limits).into());
                }
                if size > limits.file {
                    // Keep draining (and discarding) so that the client can read our answer.
                    buf = Vec::new();
                    continue;
                }
                buf.extend_from_slice(&chunk);
            }
            if size > limits.file {
                form.file_too_large = Some(size);
            } else {
                form.file = Some(buf);
            }
            continue;
        }
        let mut buf: Vec<u8> = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| FormError::Malformed(e.to_string()))?;
            text_bytes += chunk.len();
            body += chunk.len() as u64;
            if text_bytes > MAX_TEXT_BYTES {
                return Err(FormError::TextTooLarge.into());
            }
            buf.extend_from_slice(&chunk);
        }
        form.fields
            .insert(name, String::from_utf8_lossy(&buf).into_owned());
    }
    if let Some(g) = gate.take() {
        g(&form.fields).map_err(ReadError::Gate)?;
    }
    Ok(form)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_upload_may_carry_little_more_than_its_file() {
        let server = 256 * 1024 * 1024;
        let l = Limits::team_upload(20 * 1024 * 1024, server);
        assert_eq!(
            (l.file, l.body),
            (20 * 1024 * 1024, 20 * 1024 * 1024 + UPLOAD_OVERHEAD)
        );
        // Never above the server's own limit, never negative.
        assert_eq!(Limits::team_upload(i64::MAX, server).body, server as u64);
        assert_eq!(Limits::team_upload(-1, server).body, UPLOAD_OVERHEAD);
        let e = FormError::BodyTooLarge(l).to_string();
        assert!(
            e.contains("this challenge accepts at most 20971520 bytes per file"),
            "{e}"
        );
    }
}
