-- Issue 34: what a team is told about an accepted file, e.g. the keys other than "image_id" and
-- "caption" that were ignored (as pycocoevalcap ignores them). NULL: nothing to say.
ALTER TABLE submissions ADD COLUMN upload_note TEXT;

-- Invite codes a team has replaced (a member renewed the link, or someone left), as SHA-256
-- digests: an old link then says it was replaced instead of a bare "not found". Only digests are
-- kept, so the table lets nobody join.
CREATE TABLE replaced_invites (
    code_sha256 BYTEA PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    replaced_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
