//! Users, sessions, teams, team members and API tokens. Secrets are stored hashed: argon2 for
//! passwords (hashed by `crate::auth`), SHA-256 for random session and API tokens.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::domain::TeamName;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct User {
    pub id: i64,
    pub email: String,
    pub password_hash: String,
    /// A site operator: organizes every challenge, makes challenges and password links.
    pub is_admin: bool,
    /// Organizes at least one challenge (or is an operator). Read for the session's user only
    /// (`user_by_session`); false wherever else a user is loaded.
    #[sqlx(default)]
    pub organizes: bool,
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Team {
    pub id: i64,
    pub challenge_id: i64,
    pub name: String,
}

/// The team an API token acts for, and the member who made the token (None: made on the command
/// line or by an organizer, or before makers were recorded): uploads with the token count as
/// that member's.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenHolder {
    #[sqlx(flatten)]
    pub team: Team,
    pub made_by: Option<i64>,
}

/// Creates a user; `Ok(None)` if the e-mail address is taken.
pub async fn create_user(
    db: impl PgExecutor<'_>,
    email: &str,
    password_hash: &str,
    is_admin: bool,
) -> Result<Option<User>, sqlx::Error> {
    sqlx::query_as(
        "INSERT INTO users (email, password_hash, is_admin) VALUES ($1, $2, $3)
         ON CONFLICT (email) DO NOTHING RETURNING id, email, password_hash, is_admin",
    )
    .bind(email)
    .bind(password_hash)
    .bind(is_admin)
    .fetch_optional(db)
    .await
}

/// True if at least one site operator exists (`serve` says how to make the first one).
pub async fn any_operator(db: impl PgExecutor<'_>) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM users WHERE is_admin)")
        .fetch_one(db)
        .await
}

pub async fn user_by_email(
    db: impl PgExecutor<'_>,
    email: &str,
) -> Result<Option<User>, sqlx::Error> {
    sqlx::query_as("SELECT id, email, password_hash, is_admin FROM users WHERE email = $1")
        .bind(email)
        .fetch_optional(db)
        .await
}

/// Sessions a person keeps at most: a new one beyond them ends their oldest. Each login makes
/// one, and logins with the right password are not throttled.
pub const SESSIONS_PER_USER: i64 = 50;

/// Stores a new session, if the user's password is still the one checked (`password_hash`): a
/// login that checked the old password while a new one was set makes none. The user's row is
/// held while the session goes in, so a password change waits for it and then ends it with the
/// others. Expired sessions, and the user's oldest beyond `SESSIONS_PER_USER`, go at the same
/// time, so that the table does not grow with every login ever made. False if no session was
/// made.
pub async fn create_session(
    db: impl PgExecutor<'_>,
    token_hash: &str,
    user_id: i64,
    password_hash: &str,
    expires_at: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    sqlx::query(
        "WITH expired AS (DELETE FROM sessions WHERE expires_at < now()),
              oldest AS (DELETE FROM sessions WHERE token_hash IN (
                  SELECT token_hash FROM sessions WHERE user_id = $2 AND expires_at >= now()
                  ORDER BY created_at DESC, token_hash OFFSET $4 - 1)
                  AND EXISTS (SELECT 1 FROM users WHERE id = $2 AND password_hash = $5))
         INSERT INTO sessions (token_hash, user_id, expires_at)
         SELECT $1, $2, $3 FROM users WHERE id = $2 AND password_hash = $5 FOR SHARE",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(expires_at)
    .bind(SESSIONS_PER_USER)
    .bind(password_hash)
    .execute(db)
    .await
    .map(|r| r.rows_affected() == 1)
}

pub async fn user_by_session(
    db: impl PgExecutor<'_>,
    token_hash: &str,
) -> Result<Option<User>, sqlx::Error> {
    sqlx::query_as(
        "SELECT u.id, u.email, u.password_hash, u.is_admin,
                u.is_admin OR EXISTS (SELECT 1 FROM challenge_organizers o WHERE o.user_id = u.id)
                  AS organizes
         FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = $1 AND s.expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(db)
    .await
}

/// Sets a person's password hash, if it is still `was` (when given: the one a change checked
/// the current password against), and ends all their sessions. False if the password had changed
/// meanwhile (nothing is written).
pub async fn set_password(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    user_id: i64,
    password_hash: &str,
    was: Option<&str>,
) -> Result<bool, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE users SET password_hash = $2 WHERE id = $1 AND ($3::TEXT IS NULL OR password_hash = $3)",
    )
    .bind(user_id)
    .bind(password_hash)
    .bind(was)
    .execute(&mut **tx)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(false);
    }
    sqlx::query("DELETE FROM sessions WHERE user_id = $1")
        .bind(user_id)
        .execute(&mut **tx)
        .await?;
    Ok(true)
}

/// Stores a one-time password link for `user_id` (its token hashed), valid for `hours` by the
/// database's clock; links ended a week ago are deleted.
pub async fn create_password_reset(
    db: impl PgExecutor<'_>,
    token_hash: &str,
    user_id: i64,
    hours: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "WITH gone AS (DELETE FROM password_resets
                       WHERE COALESCE(used_at, expires_at) < now() - interval '7 days')
         INSERT INTO password_resets (token_hash, user_id, expires_at)
         VALUES ($1, $2, now() + make_interval(hours => $3::INT))",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(hours)
    .execute(db)
    .await
    .map(|_| ())
}

/// Revokes every API token `user_id` made, in any team (after their password was reset: someone
/// who had the account may have made them). Returns how many.
pub async fn revoke_api_tokens_made_by(
    db: impl PgExecutor<'_>,
    user_id: i64,
) -> Result<u64, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE api_tokens SET revoked_at = now() WHERE made_by = $1 AND revoked_at IS NULL",
    )
    .bind(user_id)
    .execute(db)
    .await?;
    Ok(r.rows_affected())
}

/// The person a password link is for, if it is unused and unexpired; with `take`, the link is
/// locked for the transaction that uses it.
pub async fn password_reset_user(
    db: impl PgExecutor<'_>,
    token_hash: &str,
    take: bool,
) -> Result<Option<User>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT u.id, u.email, u.password_hash, u.is_admin
         FROM password_resets r JOIN users u ON u.id = r.user_id
         WHERE r.token_hash = $1 AND r.used_at IS NULL AND r.expires_at > now(){}",
        if take { " FOR UPDATE OF r" } else { "" }
    ))
    .bind(token_hash)
    .fetch_optional(db)
    .await
}

/// Marks every open password link of a person used (after one is used, or before a new one is made).
pub async fn close_password_resets(
    db: impl PgExecutor<'_>,
    user_id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL")
        .bind(user_id)
        .execute(db)
        .await
        .map(|_| ())
}

pub async fn delete_session(db: impl PgExecutor<'_>, token_hash: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
        .bind(token_hash)
        .execute(db)
        .await
        .map(|_| ())
}

/// Creates a team; `Ok(None)` if the name, or one that reads alike (its skeleton), is taken in
/// this challenge: the unique index on the skeleton decides, so parallel requests cannot both win.
pub async fn create_team(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    name: &TeamName,
) -> Result<Option<Team>, sqlx::Error> {
    sqlx::query_as(
        "INSERT INTO teams (challenge_id, name, name_skeleton, invite_code) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING id, challenge_id, name",
    )
    .bind(challenge_id)
    .bind(name.as_str())
    .bind(name.skeleton())
    .bind(crate::auth::new_token())
    .fetch_optional(db)
    .await
}

/// The name of the team of the challenge that reads as `name` (same skeleton), if any.
pub async fn team_name_like(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    name: &TeamName,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT name FROM teams WHERE challenge_id = $1 AND (name_skeleton = $2 OR name = $3)
         ORDER BY id LIMIT 1",
    )
    .bind(challenge_id)
    .bind(name.skeleton())
    .bind(name.as_str())
    .fetch_optional(db)
    .await
}

/// Adds a member to a team; `Ok(false)` if the user already is in a team of this challenge (the
/// schema allows one team per user per challenge).
pub async fn add_member(
    db: impl PgExecutor<'_>,
    team_id: i64,
    user_id: i64,
) -> Result<bool, sqlx::Error> {
    let added: Option<i64> = sqlx::query_scalar(
        "INSERT INTO team_members (team_id, user_id, challenge_id)
         SELECT id, $2, challenge_id FROM teams WHERE id = $1
         ON CONFLICT DO NOTHING RETURNING team_id",
    )
    .bind(team_id)
    .bind(user_id)
    .fetch_optional(db)
    .await?;
    Ok(added.is_some())
}

/// The user's team in a challenge, if any.
pub async fn team_of_user(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    user_id: i64,
) -> Result<Option<Team>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.id, t.challenge_id, t.name FROM teams t JOIN team_members m ON m.team_id = t.id
         WHERE t.challenge_id = $1 AND m.user_id = $2 ORDER BY t.id LIMIT 1",
    )
    .bind(challenge_id)
    .bind(user_id)
    .fetch_optional(db)
    .await
}

/// Removes a member from a team; `Ok(false)` if they were not in it.
pub async fn remove_member(
    db: impl PgExecutor<'_>,
    team_id: i64,
    user_id: i64,
) -> Result<bool, sqlx::Error> {
    let r = sqlx::query("DELETE FROM team_members WHERE team_id = $1 AND user_id = $2")
        .bind(team_id)
        .bind(user_id)
        .execute(db)
        .await?;
    Ok(r.rows_affected() == 1)
}

/// The e-mail addresses of a team's members, alphabetically.
pub async fn members_of_team(
    db: impl PgExecutor<'_>,
    team_id: i64,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT u.email FROM team_members m JOIN users u ON u.id = m.user_id
         WHERE m.team_id = $1 ORDER BY u.email",
    )
    .bind(team_id)
    .fetch_all(db)
    .await
}

/// The team of a challenge whose invite code this is.
pub async fn team_by_invite(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    code: &str,
) -> Result<Option<Team>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, challenge_id, name FROM teams WHERE challenge_id = $1 AND invite_code = $2",
    )
    .bind(challenge_id)
    .bind(code)
    .fetch_optional(db)
    .await
}

/// The name of the team of a challenge that once had this invite code and replaced it.
pub async fn team_of_replaced_invite(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    code: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT t.name FROM replaced_invites r JOIN teams t ON t.id = r.team_id
         WHERE t.challenge_id = $1 AND r.code_sha256 = sha256(convert_to($2, 'UTF8'))",
    )
    .bind(challenge_id)
    .bind(code)
    .fetch_optional(db)
    .await
}

/// The team of a challenge with this name.
pub async fn team_by_name(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
    name: &str,
) -> Result<Option<Team>, sqlx::Error> {
    sqlx::query_as("SELECT id, challenge_id, name FROM teams WHERE challenge_id = $1 AND name = $2")
        .bind(challenge_id)
        .bind(name)
        .fetch_optional(db)
        .await
}

/// The secret of a team's invite link.
pub async fn invite_code(db: impl PgExecutor<'_>, team_id: i64) -> Result<String, sqlx::Error> {
    sqlx::query_scalar("SELECT invite_code FROM teams WHERE id = $1")
        .bind(team_id)
        .fetch_one(db)
        .await
}

/// Replaces a team's invite code: links with the old one stop working, and say so
/// ([`team_of_replaced_invite`]).
pub async fn set_invite_code(
    db: impl PgExecutor<'_>,
    team_id: i64,
    code: &str,
) -> Result<(), sqlx::Error> {
    // The INSERT reads the code from before the UPDATE (one snapshot for the whole statement).
    sqlx::query(
        "WITH old AS (
             INSERT INTO replaced_invites (code_sha256, team_id)
             SELECT sha256(convert_to(invite_code, 'UTF8')), id FROM teams WHERE id = $1
             ON CONFLICT DO NOTHING
         )
         UPDATE teams SET invite_code = $2 WHERE id = $1",
    )
    .bind(team_id)
    .bind(code)
    .execute(db)
    .await
    .map(|_| ())
}

pub async fn team_by_id(
    db: impl PgExecutor<'_>,
    team_id: i64,
) -> Result<Option<Team>, sqlx::Error> {
    sqlx::query_as("SELECT id, challenge_id, name FROM teams WHERE id = $1")
        .bind(team_id)
        .fetch_optional(db)
        .await
}

pub async fn teams_of_challenge(
    db: impl PgExecutor<'_>,
    challenge_id: i64,
) -> Result<Vec<Team>, sqlx::Error> {
    sqlx::query_as("SELECT id, challenge_id, name FROM teams WHERE challenge_id = $1 ORDER BY name")
        .bind(challenge_id)
        .fetch_all(db)
        .await
}

/// Stores a new API token of a team, made by the member `made_by` (None: by an organizer or on
/// the command line, to be handed to the team).
pub async fn create_api_token(
    db: impl PgExecutor<'_>,
    team_id: i64,
    made_by: Option<i64>,
    token_hash: &str,
    label: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO api_tokens (team_id, made_by, token_hash, label) VALUES ($1, $2, $3, $4)",
    )
    .bind(team_id)
    .bind(made_by)
    .bind(token_hash)
    .bind(label)
    .execute(db)
    .await
    .map(|_| ())
}

/// The team an unrevoked API token belongs to.
pub async fn team_by_token(
    db: impl PgExecutor<'_>,
    token_hash: &str,
) -> Result<Option<TokenHolder>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.id, t.challenge_id, t.name, a.made_by
         FROM api_tokens a JOIN teams t ON t.id = a.team_id
         WHERE a.token_hash = $1 AND a.revoked_at IS NULL",
    )
    .bind(token_hash)
    .fetch_optional(db)
    .await
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenInfo {
    pub id: i64,
    pub label: String,
    pub created_at: DateTime<Utc>,
    /// The e-mail address of the member who made it (None: made on the command line, or before
    /// makers were recorded).
    pub made_by: Option<String>,
}

/// Revokes one of a team's API tokens; `Ok(false)` if the team has no such live token.
pub async fn revoke_api_token(
    db: impl PgExecutor<'_>,
    team_id: Option<i64>,
    token_id: i64,
) -> Result<bool, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE api_tokens SET revoked_at = now()
         WHERE id = $1 AND ($2::BIGINT IS NULL OR team_id = $2) AND revoked_at IS NULL",
    )
    .bind(token_id)
    .bind(team_id)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Revokes every API token of a team.
pub async fn revoke_all_api_tokens(
    db: impl PgExecutor<'_>,
    team_id: i64,
) -> Result<u64, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE api_tokens SET revoked_at = now() WHERE team_id = $1 AND revoked_at IS NULL",
    )
    .bind(team_id)
    .execute(db)
    .await?;
    Ok(r.rows_affected())
}

/// Revokes the API tokens of a team that `user_id` may hold: those they made, and those whose
/// maker is unknown (made on the command line, or before makers were recorded).
pub async fn revoke_api_tokens_of_member(
    db: impl PgExecutor<'_>,
    team_id: i64,
    user_id: i64,
) -> Result<u64, sqlx::Error> {
    let r = sqlx::query(
        "UPDATE api_tokens SET revoked_at = now()
         WHERE team_id = $1 AND revoked_at IS NULL AND (made_by = $2 OR made_by IS NULL)",
    )
    .bind(team_id)
    .bind(user_id)
    .execute(db)
    .await?;
    Ok(r.rows_affected())
}

/// Records a failed login or a sign-up under each of `keys`.
pub async fn record_attempt(db: impl PgExecutor<'_>, keys: &[String]) -> Result<(), sqlx::Error> {
    sqlx::query(
        "WITH gone AS (DELETE FROM auth_attempts WHERE at < now() - interval '1 day')
         INSERT INTO auth_attempts (key) SELECT unnest($1::TEXT[])",
    )
    .bind(keys)
    .execute(db)
    .await
    .map(|_| ())
}

/// Attempts recorded under `key` in the last `seconds`.
pub async fn recent_attempts(
    db: impl PgExecutor<'_>,
    key: &str,
    seconds: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM auth_attempts WHERE key = $1 AND at > now() - make_interval(secs => $2)",
    )
    .bind(key)
    .bind(seconds as f64)
    .fetch_one(db)
    .await
}

/// The key of CSRF tokens, made on first use and shared by every instance.
pub async fn csrf_key(db: &sqlx::PgPool) -> Result<Vec<u8>, sqlx::Error> {
    let fresh = crate::auth::new_token();
    sqlx::query(
        "INSERT INTO server_secrets (name, value) VALUES ('csrf', $1) ON CONFLICT DO NOTHING",
    )
    .bind(fresh.as_bytes())
    .execute(db)
    .await?;
    sqlx::query_scalar("SELECT value FROM server_secrets WHERE name = 'csrf'")
        .fetch_one(db)
        .await
}

pub async fn tokens_of_team(
    db: impl PgExecutor<'_>,
    team_id: i64,
) -> Result<Vec<TokenInfo>, sqlx::Error> {
    sqlx::query_as(
        "SELECT a.id, a.label, a.created_at, u.email AS made_by
         FROM api_tokens a LEFT JOIN users u ON u.id = a.made_by
         WHERE a.team_id = $1 AND a.revoked_at IS NULL ORDER BY a.id",
    )
    .bind(team_id)
    .fetch_all(db)
    .await
}

/// Stores a one-time operator code (its SHA-256) that works for `minutes`.
pub async fn create_operator_code(
    db: impl PgExecutor<'_>,
    code_hash: &str,
    minutes: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO operator_codes (code_hash, expires_at)
         VALUES ($1, now() + make_interval(mins => $2::INT))",
    )
    .bind(code_hash)
    .bind(minutes)
    .execute(db)
    .await
    .map(|_| ())
}

/// What entering an operator code did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redeemed {
    /// The user is a site operator now.
    Operator,
    /// The site has an operator already: no code works.
    OperatorExists,
    /// No live code has this hash (wrong, used or expired); the guess is counted.
    NoSuchCode,
    /// Live codes exist, but every one has had `max_wrong` wrong guesses.
    Locked,
}

/// Makes `user_id` a site operator if `code_hash` is a live code's (unused, unexpired, fewer
/// than `max_wrong` wrong guesses) and the site has no operator yet; a wrong code counts against
/// every live one. The table is locked meanwhile, so that two people entering two codes at once
/// cannot both become the first operator.
pub async fn redeem_operator_code(
    conn: &mut sqlx::PgConnection,
    code_hash: &str,
    user_id: i64,
    max_wrong: i32,
) -> Result<Redeemed, sqlx::Error> {
    sqlx::query("LOCK TABLE operator_codes IN EXCLUSIVE MODE")
        .execute(&mut *conn)
        .await?;
    if any_operator(&mut *conn).await? {
        return Ok(Redeemed::OperatorExists);
    }
    let live = "used_at IS NULL AND expires_at > now() AND wrong_guesses < $1";
    let hit: Option<i64> = sqlx::query_scalar(&format!(
        "SELECT id FROM operator_codes WHERE {live} AND code_hash = $2"
    ))
    .bind(max_wrong)
    .bind(code_hash)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(id) = hit else {
        sqlx::query(&format!(
            "UPDATE operator_codes SET wrong_guesses = wrong_guesses + 1 WHERE {live}"
        ))
        .bind(max_wrong)
        .execute(&mut *conn)
        .await?;
        let open: bool = sqlx::query_scalar(&format!(
            "SELECT EXISTS (SELECT 1 FROM operator_codes WHERE {live})"
        ))
        .bind(max_wrong)
        .fetch_one(&mut *conn)
        .await?;
        return Ok(if !open && locked_codes(&mut *conn, max_wrong).await? {
            Redeemed::Locked
        } else {
            Redeemed::NoSuchCode
        });
    };
    sqlx::query("UPDATE operator_codes SET used_at = now(), used_by = $2 WHERE id = $1")
        .bind(id)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("UPDATE users SET is_admin = TRUE WHERE id = $1")
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    Ok(Redeemed::Operator)
}

/// Whether an unused, unexpired code exists that wrong guesses have locked.
async fn locked_codes(conn: &mut sqlx::PgConnection, max_wrong: i32) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM operator_codes
                        WHERE used_at IS NULL AND expires_at > now() AND wrong_guesses >= $1)",
    )
    .bind(max_wrong)
    .fetch_one(conn)
    .await
}
