//! Reading multipart forms with a byte limit: the bytes of a file larger than the limit are
//! discarded as they arrive (never buffered), and the form reports it.

use std::collections::HashMap;

use actix_multipart::Multipart;
use futures_util::StreamExt;

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

#[derive(Debug, thiserror::Error)]
#[error("could not read the multipart form: {0}")]
pub struct FormError(String);

/// Reads the form; text fields are capped at 64 KiB each, the file at `file_limit` bytes.
pub async fn read(mut payload: Multipart, file_limit: u64) -> Result<Form, FormError> {
    let mut form = Form::default();
    while let Some(field) = payload.next().await {
        let mut field = field.map_err(|e| FormError(e.to_string()))?;
        let name = field.name().unwrap_or("").to_string();
        let is_file = name == "file";
        let limit = if is_file { file_limit } else { 64 * 1024 };
        let mut buf: Vec<u8> = Vec::new();
        let mut too_large = false;
        let mut total: u64 = 0;
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| FormError(e.to_string()))?;
            total += chunk.len() as u64;
            if too_large {
                continue;
            }
            if buf.len() as u64 + chunk.len() as u64 > limit {
                // Keep draining (and discarding) so that the client can read our answer.
                too_large = true;
                buf = Vec::new();
                continue;
            }
            buf.extend_from_slice(&chunk);
        }
        if too_large {
            if is_file {
                form.file_too_large = Some(total);
                continue;
            }
            return Err(FormError(format!(
                "field {name:?} is larger than {limit} bytes"
            )));
        }
        if is_file {
            form.file = Some(buf);
        } else {
            form.fields
                .insert(name, String::from_utf8_lossy(&buf).into_owned());
        }
    }
    Ok(form)
}
