-- spiceboard schema. All SQL that reads or writes these tables lives in src/storage/.

-- A challenge: a set of images with human references, split into versioned reference sets.
CREATE TABLE challenges (
    id                     BIGSERIAL PRIMARY KEY,
    slug                   TEXT NOT NULL UNIQUE,
    title                  TEXT NOT NULL,
    description            TEXT NOT NULL DEFAULT '',
    -- Limits per team; NULL means unlimited.
    daily_submission_limit INTEGER,
    total_submission_limit INTEGER,
    max_file_bytes         BIGINT NOT NULL DEFAULT 20971520,
    opens_at               TIMESTAMPTZ,
    closes_at              TIMESTAMPTZ,
    created_at             TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A split is one version of a named reference set ("val", "test"). Re-uploading the references of a
-- split is an explicit action that adds a version; exactly one version per name is current.
CREATE TABLE splits (
    id            BIGSERIAL PRIMARY KEY,
    challenge_id  BIGINT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    version       INTEGER NOT NULL,
    is_current    BOOLEAN NOT NULL DEFAULT TRUE,
    hidden        BOOLEAN NOT NULL DEFAULT FALSE,
    -- 'coco': captions are PTB-tokenized, lowercased and stripped of punctuation before parsing,
    -- as pycocoevalcap does (references and candidates alike); 'raw': parsed as written.
    caption_mode  TEXT NOT NULL CHECK (caption_mode IN ('coco', 'raw')),
    source_format TEXT NOT NULL CHECK (source_format IN ('coco', 'spice')),
    image_count   INTEGER NOT NULL DEFAULT 0,
    -- Engine version that built the stored reference graphs (re-score after an upgrade).
    engine_version TEXT NOT NULL DEFAULT '',
    -- Corpus statistics for the classic metrics (e.g. CIDEr-D document frequencies), filled in by the
    -- classic-metrics stage once it exists.
    classic_stats JSONB,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (challenge_id, name, version)
);
CREATE UNIQUE INDEX splits_one_current ON splits (challenge_id, name) WHERE is_current;

-- One image of a split with its human references and the merged reference scene graph, built once at
-- ingestion so that scoring never re-parses references.
CREATE TABLE reference_images (
    split_id     BIGINT NOT NULL REFERENCES splits (id) ON DELETE CASCADE,
    image_id     BIGINT NOT NULL,
    captions     JSONB NOT NULL,          -- raw reference captions, as uploaded
    scene_graph  JSONB,                   -- spice::SceneGraph of all references merged
    parse_error  TEXT,                    -- why scene_graph is missing, if it is
    -- Room for the classic metrics: tokenized references / n-gram counts per image.
    classic_refs JSONB,
    PRIMARY KEY (split_id, image_id)
);

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,          -- argon2id PHC string
    is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Browser sessions: the cookie holds a random token, the table only its SHA-256.
CREATE TABLE sessions (
    token_hash  TEXT PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE teams (
    id           BIGSERIAL PRIMARY KEY,
    challenge_id BIGINT NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (challenge_id, name)
);

CREATE TABLE team_members (
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (team_id, user_id)
);

-- API tokens for `curl`-style uploads; only the SHA-256 of the token is stored.
CREATE TABLE api_tokens (
    id           BIGSERIAL PRIMARY KEY,
    team_id      BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE,
    label        TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at   TIMESTAMPTZ
);

-- A submission: a team's upload, an organizer's baseline, or the server's Human row.
CREATE TABLE submissions (
    id            BIGSERIAL PRIMARY KEY,
    split_id      BIGINT NOT NULL REFERENCES splits (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('team', 'baseline', 'human')),
    team_id       BIGINT REFERENCES teams (id) ON DELETE CASCADE,
    label         TEXT,                   -- shown for baseline and Human rows
    description   TEXT NOT NULL DEFAULT '',
    raw_file      BYTEA,                  -- the uploaded bytes, as received (NULL for Human)
    sha256        TEXT,
    byte_size     BIGINT NOT NULL DEFAULT 0,
    status        TEXT NOT NULL DEFAULT 'queued'
                  CHECK (status IN ('queued', 'running', 'scored', 'failed')),
    error         TEXT,
    submitted_by  BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    scored_at     TIMESTAMPTZ,
    deleted_at    TIMESTAMPTZ,            -- soft delete by an organizer
    CHECK ((kind = 'team') = (team_id IS NOT NULL))
);
CREATE INDEX submissions_split ON submissions (split_id) WHERE deleted_at IS NULL;
CREATE INDEX submissions_team ON submissions (team_id, created_at);

-- The entry a team shows on a split's leaderboard; without a row, its latest scored submission.
CREATE TABLE leaderboard_choices (
    team_id       BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    split_id      BIGINT NOT NULL REFERENCES splits (id) ON DELETE CASCADE,
    submission_id BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    PRIMARY KEY (team_id, split_id)
);

-- The job queue (in the style of the Rust package registry's): claimed with FOR UPDATE SKIP LOCKED, held with a lease that the
-- worker extends by heartbeat; an expired lease lets another worker take the job over.
CREATE TABLE jobs (
    id               BIGSERIAL PRIMARY KEY,
    kind             TEXT NOT NULL CHECK (kind IN ('score_submission', 'human_baseline')),
    submission_id    BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    state            TEXT NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER NOT NULL DEFAULT 3,
    run_after        TIMESTAMPTZ NOT NULL DEFAULT now(),
    locked_by        TEXT,
    lease_expires_at TIMESTAMPTZ,
    heartbeat_at     TIMESTAMPTZ,
    last_error       TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at       TIMESTAMPTZ,
    finished_at      TIMESTAMPTZ
);
CREATE INDEX jobs_pending ON jobs (id) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_submission ON jobs (submission_id);

-- One row per (submission, image): the candidate caption as scored and the engine's detailed result
-- (candidate and reference tuples with truth values) for the per-image page.
CREATE TABLE image_results (
    submission_id BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    image_id      BIGINT NOT NULL,
    caption       TEXT NOT NULL,
    spice_f       DOUBLE PRECISION NOT NULL,
    details       JSONB NOT NULL,         -- spice::ImageScores
    -- Room for per-image classic metrics (BLEU/ROUGE-L/CIDEr-D) once they are computed.
    classic       JSONB,
    PRIMARY KEY (submission_id, image_id)
);

-- Per-image, per-category counts and P/R/F. NULL precision/recall/f = NaN (no reference tuple).
CREATE TABLE image_scores (
    submission_id BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    image_id      BIGINT NOT NULL,
    category      TEXT NOT NULL CHECK (category IN
                  ('all', 'object', 'attribute', 'relation', 'color', 'count', 'size')),
    tp            INTEGER NOT NULL,
    fp            INTEGER NOT NULL,
    fn            INTEGER NOT NULL,
    precision     DOUBLE PRECISION,
    recall        DOUBLE PRECISION,
    f             DOUBLE PRECISION,
    PRIMARY KEY (submission_id, image_id, category)
);

-- Aggregate scores per submission and category (SPEC §1: macro averages over images whose score is
-- defined, summed counts). The leaderboard reads only this table.
CREATE TABLE aggregate_scores (
    submission_id BIGINT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    category      TEXT NOT NULL CHECK (category IN
                  ('all', 'object', 'attribute', 'relation', 'color', 'count', 'size')),
    precision     DOUBLE PRECISION,
    recall        DOUBLE PRECISION,
    f             DOUBLE PRECISION,
    tp            BIGINT NOT NULL,
    fp            BIGINT NOT NULL,
    fn            BIGINT NOT NULL,
    images        INTEGER NOT NULL,       -- images whose category score is defined
    PRIMARY KEY (submission_id, category)
);

-- Classic COCO caption metrics for a submission, computed by a later stage; NULL until then.
CREATE TABLE classic_scores (
    submission_id BIGINT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    bleu_4        DOUBLE PRECISION,
    meteor        DOUBLE PRECISION,
    rouge_l       DOUBLE PRECISION,
    cider_d       DOUBLE PRECISION,
    details       JSONB
);
