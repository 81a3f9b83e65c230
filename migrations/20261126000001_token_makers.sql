-- Who made each API token (NULL: made on the command line, by an organizer, or before this
-- column existed). When a member leaves a team that keeps other members, the tokens they made, and
-- those of unknown maker, are revoked: the leaver may hold them, and nobody else can tell.
ALTER TABLE api_tokens ADD COLUMN made_by BIGINT REFERENCES users (id) ON DELETE SET NULL;
