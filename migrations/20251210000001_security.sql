-- Issue 11: what attacking the server showed. The initial migration is never edited.

-- Secrets every instance shares (the key of CSRF tokens), made on first use.
CREATE TABLE server_secrets (
    name       TEXT PRIMARY KEY,
    value      BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One team per user per challenge: a membership carries its challenge, and the pair is unique.
ALTER TABLE team_members ADD COLUMN challenge_id BIGINT;
UPDATE team_members m SET challenge_id = t.challenge_id FROM teams t WHERE t.id = m.team_id;
-- Memberships won through the old check-then-insert race: keep each user's first team of a
-- challenge, the one the server already treated as theirs.
DELETE FROM team_members m USING team_members k
 WHERE k.user_id = m.user_id AND k.challenge_id = m.challenge_id AND k.team_id < m.team_id;
ALTER TABLE team_members ALTER COLUMN challenge_id SET NOT NULL;
ALTER TABLE teams ADD CONSTRAINT teams_id_challenge UNIQUE (id, challenge_id);
ALTER TABLE team_members ADD CONSTRAINT team_members_team_challenge
    FOREIGN KEY (team_id, challenge_id) REFERENCES teams (id, challenge_id) ON DELETE CASCADE;
ALTER TABLE team_members ADD CONSTRAINT team_members_one_team_per_challenge
    UNIQUE (challenge_id, user_id);

-- Quotas by default for new challenges (organizers lift them), and a cap on the bytes of uploaded
-- files a team keeps stored (NULL: no cap).
ALTER TABLE challenges ALTER COLUMN daily_submission_limit SET DEFAULT 10;
ALTER TABLE challenges ALTER COLUMN total_submission_limit SET DEFAULT 200;
ALTER TABLE challenges ADD COLUMN max_team_bytes BIGINT DEFAULT 209715200;

-- Failed logins and sign-ups, per address and per account, for throttling.
CREATE TABLE auth_attempts (
    key TEXT NOT NULL,          -- 'login-ip:…', 'login-account:…', 'signup-ip:…'
    at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX auth_attempts_key_at ON auth_attempts (key, at);
