-- One-time links to set a new password, made by an operator (`spiceboard admin password-link`) or an
-- organizer for someone who forgot theirs: the server sends no e-mail. Stored hashed, like
-- sessions; used once, and only until `expires_at`.
CREATE TABLE password_resets (
    token_hash  TEXT PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ
);
CREATE INDEX password_resets_user ON password_resets (user_id);
