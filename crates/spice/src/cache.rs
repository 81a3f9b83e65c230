//! The jar's `-cache DIR`: each caption's proposals kept on disk, so that a later run on the same
//! captions (another model's results against the same references, as pycocoevalcap runs the jar
//! with `-cache` every time) parses only the captions it has not seen.
//!
//! One file per parser: its name holds a CRC-32 of the running executable and the front end's
//! name and model fingerprint, so a rebuilt `spice`, a new model file or the other front end
//! never reads proposals another one made. The file is JSON lines, `[caption, proposals]`,
//! appended once at the end of a run in one write, from a new line; a line that does not read (a
//! run killed while writing) is skipped, and a caption written twice keeps its last line.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Engine, EngineError, Proposal};

pub struct ParseCache {
    path: PathBuf,
    known: HashMap<String, Vec<Proposal>>,
    added: Mutex<Vec<(String, Vec<Proposal>)>>,
}

impl ParseCache {
    /// The cache in `dir` (made if missing) for `engine`'s parser as this executable runs it.
    pub fn open(dir: &Path, engine: &Engine) -> io::Result<ParseCache> {
        std::fs::create_dir_all(dir)?;
        // The running image (Linux's /proc/self/exe), not whatever file is at its path now: a
        // `spice` rebuilt while this one runs must not file this one's proposals under its name.
        let exe =
            std::fs::read("/proc/self/exe").or_else(|_| std::fs::read(std::env::current_exe()?))?;
        let front = engine.options().front_end;
        let mut id = crc32fast::Hasher::new();
        id.update(&exe);
        id.update(front.name().as_bytes());
        id.update(front.model_fingerprint().unwrap_or("").as_bytes());
        let path = dir.join(format!("spice-proposals-{:08x}.jsonl", id.finalize()));
        let mut known = HashMap::new();
        match std::fs::read(&path) {
            Ok(bytes) => {
                for line in bytes.split(|&b| b == b'\n') {
                    if let Ok((caption, proposals)) =
                        serde_json::from_slice::<(String, Vec<Proposal>)>(line)
                    {
                        known.insert(caption, proposals);
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(ParseCache {
            path,
            known,
            added: Mutex::new(Vec::new()),
        })
    }

    /// The file the cache reads and appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many captions the file held when opened.
    pub fn known(&self) -> usize {
        self.known.len()
    }

    /// A caption's proposals: from the file when it has them, else parsed (and kept for
    /// [`ParseCache::save`]).
    pub fn proposals(&self, engine: &Engine, caption: &str) -> Result<Vec<Proposal>, EngineError> {
        if let Some(p) = self.known.get(caption) {
            return Ok(p.clone());
        }
        let p = engine.caption_proposals(caption)?;
        self.added
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((caption.to_string(), p.clone()));
        Ok(p)
    }

    /// Appends the captions parsed since opening (each once), in one write; how many.
    pub fn save(&self) -> io::Result<usize> {
        let added = std::mem::take(&mut *self.added.lock().unwrap_or_else(|e| e.into_inner()));
        let mut seen = std::collections::HashSet::new();
        // From a new line: the file may end in a line torn by a killed run.
        let mut text = vec![b'\n'];
        for (caption, proposals) in &added {
            if seen.insert(caption.as_str()) {
                serde_json::to_writer(&mut text, &(caption, proposals))?;
                text.push(b'\n');
            }
        }
        if !seen.is_empty() {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?
                .write_all(&text)?;
        }
        Ok(seen.len())
    }
}
