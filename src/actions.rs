//! Every action a person can take, one function each, shared by the HTTP handlers and the CLI so
//! that anything an organizer does in the browser can be scripted. Handlers and subcommands only
//! turn their input into domain values, call one of these, and present the result.

use std::collections::{HashMap, HashSet};

use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::auth;
use crate::domain::leaderboard::{rank_by_front_end, EntryPolicy, RankedEntry, SortKey};
use crate::domain::phase::Phase;
use crate::domain::references::ReferenceError;
use crate::domain::results_file::{Bounds, ParseBudget};
use crate::domain::{
    CaptionMode, ChallengeSlug, Description, Email, JobState, Password, ReferenceSet, ResultsFile,
    SplitName, SubmissionKind, SubmissionMethod, SubmissionStatus, TeamName, Title, UploadError,
};
use crate::scoring::{self, SharedEngine};
use crate::storage::challenges::Challenge;
use crate::storage::judgments::ScoreMap;
use crate::storage::splits::Split;
use crate::storage::submissions::{NewSubmission, Submission};
use crate::storage::{
    accounts, challenges, leaderboard, queue, scores, splits, submissions, uncertainty,
};

#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("no challenge {0:?}")]
    NoChallenge(String),
    #[error("challenge {0:?} has no split {1:?}")]
    NoSplit(String, String),
    #[error("challenge {0:?} already exists")]
    ChallengeExists(String),
    /// The name, or one that reads alike (see `domain::skeleton`), is taken: the existing name.
    #[error("a team named {0:?} already exists in this challenge")]
    TeamExists(String),
    /// The title, or one that reads alike, is another challenge's: its title.
    #[error("a challenge named {0:?} already exists")]
    TitleExists(String),
    #[error("you are already in a team of this challenge")]
    AlreadyInTeam,
    #[error("no team {0:?} in this challenge")]
    NoTeam(String),
    #[error("no account with e-mail address {0:?}")]
    NoAccount(String),
    /// A one-time operator code that is wrong, used or expired: all look alike.
    #[error("this code is not valid (any more): check it against the one `spiceboard serve` printed, or start `serve` again for a new one")]
    NoOperatorCode,
    #[error("the one-time code had too many wrong guesses and works no more; start `spiceboard serve` again for a new one")]
    OperatorCodeLocked,
    #[error("the site has a site operator already; ask them")]
    OperatorExists,
    /// Removing this organizer would leave the challenge with none.
    #[error("{0} is the last organizer of this challenge; add another before removing them")]
    LastOrganizer(String),
    /// An invite link whose code is wrong, or of another challenge: both look alike.
    #[error("this invite link is not valid; check that it was copied whole, or ask the team for a new one")]
    NoInvite,
    /// An invite link the team has replaced since (a member asked for a new one, or one left):
    /// the team's name.
    #[error("this invite link to team {0:?} was replaced by a new one (a member renewed it, or someone left the team); ask a member of the team for the new link")]
    ReplacedInvite(String),
    /// A password link that is wrong, used or expired: all look alike.
    #[error("this password link is not valid (any more); ask the organizers for a new one")]
    NoPasswordLink,
    #[error("you are in no team of this challenge")]
    NotInTeam,
    #[error("no API token {0} of your team")]
    NoToken(i64),
    #[error("{0}")]
    DiskFull(String),
    /// Heavy work that waited too long for its turn (see `Turns`): a 503, try again.
    #[error("{0}")]
    Busy(&'static str),
    #[error("too many attempts; wait a few minutes and try again")]
    TooManyAttempts,
    #[error("that e-mail address already has an account; log in instead")]
    AccountExists,
    #[error("wrong e-mail address or password")]
    WrongCredentials,
    #[error("no submission {0}")]
    NoSubmission(i64),
    #[error("submission {0} shows no image {1}")]
    NoImage(i64, i64),
    #[error("{0}")]
    Forbidden(&'static str),
    #[error(transparent)]
    References(#[from] ReferenceError),
    #[error(transparent)]
    Upload(#[from] UploadError),
    #[error(transparent)]
    Judgments(#[from] crate::domain::judgments::JudgmentsError),
    #[error("{0}")]
    Quota(String),
    /// The team uploaded these very bytes to this split before: nothing is stored or counted.
    #[error("this file is byte for byte the one of submission {id}, uploaded {}; it was not submitted again, and none of your quota was spent", .at.format("%Y-%m-%d %H:%M UTC"))]
    Identical {
        id: i64,
        at: chrono::DateTime<chrono::Utc>,
    },
    /// Outside the challenge's submission phase (the message names the time).
    #[error("{0}")]
    Closed(String),
    /// Too late for what was asked: the submission has moved on (a cancel once scoring began).
    #[error("{0}")]
    TooLate(String),
    #[error("{0}")]
    Invalid(String),
    #[error("database error")]
    Database(#[from] sqlx::Error),
    /// Our fault, not the request's (a crash in password hashing or validation, stored data we
    /// cannot read): a 500, with the cause in the log.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Runs CPU-heavy work (password hashing, validation, parsing references) off the async threads.
/// A panic there is a bug of ours, whatever the input: it comes back as `Internal`, never as a
/// refusal of the request.
async fn off_the_async_threads<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ActionError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ActionError::Internal(format!("{what} crashed: {e}")))
}

pub async fn challenge(pool: &PgPool, slug: &str) -> Result<Challenge, ActionError> {
    // PostgreSQL refuses text with a NUL; no name has one.
    if slug.contains('\0') {
        return Err(ActionError::NoChallenge(slug.to_string()));
    }
    challenges::by_slug(pool, slug)
        .await?
        .ok_or_else(|| ActionError::NoChallenge(slug.to_string()))
}

pub async fn split(pool: &PgPool, challenge: &Challenge, name: &str) -> Result<Split, ActionError> {
    if name.contains('\0') {
        return Err(ActionError::NoSplit(
            challenge.slug.clone(),
            name.to_string(),
        ));
    }
    splits::current(pool, challenge.id, name)
        .await?
        .ok_or_else(|| ActionError::NoSplit(challenge.slug.clone(), name.to_string()))
}

/// Gives split `name` an upload window of its own (`Some`, either bound may be absent: a split
/// open throughout has neither), or lets it follow the challenge's (`None`). Returns how the
/// split's window reads now.
pub async fn set_split_phase(
    pool: &PgPool,
    challenge: &Challenge,
    name: &str,
    phase: Option<Phase>,
) -> Result<String, ActionError> {
    let split = split(pool, challenge, name).await?;
    challenges::set_split_phase(pool, challenge.id, &split.name, phase).await?;
    let window = phase
        .unwrap_or_else(|| challenge.phase())
        .description(chrono::Utc::now());
    Ok(match phase {
        Some(_) => format!("split {} has its own upload window. {window}", split.name),
        None => format!(
            "split {} follows the challenge's upload window. {window}",
            split.name
        ),
    })
}

/// The split pages and forms show when none is named: the first public one, else the first.
pub fn default_split(splits: &[Split]) -> Option<&Split> {
    splits.iter().find(|s| !s.hidden).or(splits.first())
}

/// The longest challenge description, in characters.
const CHALLENGE_DESCRIPTION_MAX: usize = 10_000;

/// Creates a challenge. Its `creator` (if any: none on the command line) becomes its first
/// organizer.
pub async fn create_challenge(
    pool: &PgPool,
    slug: &ChallengeSlug,
    title: &Title,
    description: &str,
    creator: Option<&accounts::User>,
) -> Result<Challenge, ActionError> {
    let description = Description::parse(description, CHALLENGE_DESCRIPTION_MAX)
        .map_err(|e| ActionError::Invalid(e.to_string()))?;
    if challenges::by_slug(pool, slug.as_str()).await?.is_some() {
        return Err(ActionError::ChallengeExists(slug.as_str().to_string()));
    }
    title_free(pool, title, None).await?;
    let creator = creator.map(|u| u.id);
    match challenges::create(pool, slug, title, description.as_str(), creator).await {
        // A parallel request took the title (or the slug) between the check and the insert.
        Err(e) if unique_violation(&e, "challenges_title_skeleton") => {
            Err(title_free(pool, title, None)
                .await
                .err()
                .unwrap_or(e.into()))
        }
        other => Ok(other?),
    }
}

/// `Err(TitleExists)` with the other challenge's title if `title` reads as it (see
/// `domain::skeleton`).
async fn title_free(pool: &PgPool, title: &Title, except: Option<i64>) -> Result<(), ActionError> {
    match challenges::title_like(pool, title, except).await? {
        Some(existing) => Err(ActionError::TitleExists(existing)),
        None => Ok(()),
    }
}

fn unique_violation(e: &sqlx::Error, constraint: &str) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation() && d.constraint() == Some(constraint))
}

/// Edits a challenge's title and description, checked as at creation.
pub async fn set_details(
    pool: &PgPool,
    challenge: &Challenge,
    title: &str,
    description: &str,
) -> Result<(), ActionError> {
    let title = Title::parse(title).map_err(|e| ActionError::Invalid(e.to_string()))?;
    let description = Description::parse(description, CHALLENGE_DESCRIPTION_MAX)
        .map_err(|e| ActionError::Invalid(e.to_string()))?;
    title_free(pool, &title, Some(challenge.id)).await?;
    match challenges::set_details(pool, challenge.id, &title, description.as_str()).await {
        Err(e) if unique_violation(&e, "challenges_title_skeleton") => {
            Err(title_free(pool, &title, Some(challenge.id))
                .await
                .err()
                .unwrap_or(e.into()))
        }
        other => Ok(other?),
    }
}

/// What an import did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImportReport {
    pub split_id: i64,
    pub version: i32,
    pub images: usize,
    pub captions: usize,
    /// Images whose graph the engine could not build yet (built again when scoring).
    pub unparsed: usize,
    pub first_parse_error: Option<String>,
    /// The fewest references an image has: with two or more, the split can have a Human row.
    pub min_refs_per_image: usize,
    /// Whether the new version is hidden (asked for, or kept from the version it replaces).
    pub hidden: bool,
    /// The version this one replaced, and how many submissions stay with it (off the
    /// leaderboard, which shows the current version's).
    pub replaced: Option<(i32, i64)>,
    /// How many of its submissions moved to the new version and wait for their new scores.
    pub carried_over: usize,
}

impl ImportReport {
    /// What became of the version this one replaced, for the organizer.
    pub fn replaced_note(&self) -> Option<String> {
        self.replaced.map(|(version, submissions)| match self.carried_over {
            0 => format!(
                "version {version} is replaced; its submissions ({submissions}) are off the leaderboard"
            ),
            n => format!(
                "version {version} is replaced; {n} of its submissions moved to the new version \
                 and are queued for re-scoring"
            ),
        })
    }
}

/// What an import may do to a split.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportMode {
    /// Hide the new version. A new version of a hidden split is hidden whatever this says: a
    /// test set is revealed only by revealing it.
    pub hidden: bool,
    /// The split may already have references: the import adds a new version, and the current
    /// version's submissions stay with it. Without this, importing into a split that has
    /// references is refused (re-uploading is an explicit action).
    pub replace: bool,
    /// With `replace`: move the current version's submissions (but its Human row, computed from
    /// the references) to the new version and queue them for re-scoring, each job with this many
    /// attempts. Each file covers its version's images exactly, so this is refused unless both
    /// versions hold the same images (corrected captions, say).
    pub rescore_with_attempts: Option<i32>,
}

/// Imports references as a new version of a split: parses every caption once (in parallel) and
/// stores each image's merged scene graph, and the split's CIDEr-D document frequencies. COCO
/// annotations make a COCO-mode split (captions tokenized the way pycocoevalcap does); the SPICE
/// jar's format a raw one.
pub async fn import_references(
    pool: &PgPool,
    engine: &SharedEngine,
    challenge: &Challenge,
    split_name: &SplitName,
    bytes: Vec<u8>,
    mode: ImportMode,
) -> Result<ImportReport, ActionError> {
    if !mode.replace {
        let mut conn = pool.acquire().await?;
        if let Some((old, submissions)) =
            splits::current_with_submissions(&mut conn, challenge.id, split_name.as_str()).await?
        {
            return Err(replace_refused(split_name, &old, submissions));
        }
    }
    let version = scoring::engine_version(engine);
    let front_end = scoring::front_end_name(engine);
    let engine = engine.clone();
    let (set, stored, df) =
        off_the_async_threads("reference import", move || -> Result<_, ReferenceError> {
            let started = std::time::Instant::now();
            let set = ReferenceSet::parse(&bytes)?;
            let parsed = started.elapsed();
            let (stored, df) =
                scoring::reference_graphs(&engine, &set.images, CaptionMode::of(set.format));
            let df = scoring::cider_df_bytes(&df);
            tracing::debug!(
                images = set.images.len(),
                file_ms = parsed.as_millis() as u64,
                graphs_and_cider_df_ms = (started.elapsed() - parsed).as_millis() as u64,
                "references parsed"
            );
            Ok((set, stored, df))
        })
        .await??;
    let storing = std::time::Instant::now();
    let mut tx = pool.begin().await?;
    let (split, replaced) = splits::create_version(
        &mut tx,
        challenge.id,
        split_name.as_str(),
        mode.hidden,
        CaptionMode::of(set.format),
        set.format,
        splits::BuiltBy {
            engine_version: &version,
            front_end,
        },
    )
    .await?;
    if let (Some((old, submissions)), false) = (&replaced, mode.replace) {
        // Another import came first. Dropping the transaction undoes the new version.
        return Err(replace_refused(split_name, old, *submissions));
    }
    splits::insert_reference_images(&mut tx, split.id, &stored).await?;
    let mut carried = Vec::new();
    if let (Some((old, _)), Some(max_attempts)) = (&replaced, mode.rescore_with_attempts) {
        let (removed, added) = splits::image_difference(&mut tx, old.id, split.id).await?;
        if removed + added > 0 {
            return Err(ActionError::Invalid(format!(
                "the new references of split {} do not hold the images of version {} \
                 ({removed} left out, {added} new), so its submissions, which each cover \
                 version {}'s images, cannot be re-scored against them; import without \
                 re-scoring them",
                split_name.as_str(),
                old.version,
                old.version
            )));
        }
        carried = submissions::move_to_version(&mut tx, old.id, split.id).await?;
        for (id, kind) in &carried {
            queue::enqueue(&mut *tx, kind.job(), *id, max_attempts).await?;
        }
    }
    splits::set_cider_df(&mut *tx, split.id, &df).await?;
    tx.commit().await?;
    tracing::debug!(
        images = stored.len(),
        ms = storing.elapsed().as_millis() as u64,
        "references stored"
    );
    let unparsed: Vec<&String> = stored
        .iter()
        .filter_map(|s| s.parse_error.as_ref())
        .collect();
    Ok(ImportReport {
        split_id: split.id,
        version: split.version,
        images: set.images.len(),
        captions: set.images.iter().map(|i| i.captions.len()).sum(),
        unparsed: unparsed.len(),
        first_parse_error: unparsed.first().map(|s| s.to_string()),
        min_refs_per_image: set.min_refs_per_image(),
        hidden: split.hidden,
        replaced: replaced.map(|(old, submissions)| (old.version, submissions)),
        carried_over: carried.len(),
    })
}

/// An import into a split that has references, without [`ImportMode::replace`].
fn replace_refused(split: &SplitName, current: &splits::Split, submissions: i64) -> ActionError {
    ActionError::Invalid(format!(
        "split {} already has references (version {}; submissions on it: {submissions}): \
         importing again makes version {}, and the submissions stay with version {} and leave \
         the leaderboard unless they are re-scored against the new references (same images \
         only); to replace it, import again with `--replace` (command line) or with \"replace \
         them with a new version\" ticked (organizer page)",
        split.as_str(),
        current.version,
        current.version + 1,
        current.version
    ))
}

/// Creates a team and its first API token (returned in clear, shown once), all or nothing: a user
/// already in a team of the challenge gets no second one (the schema's one-team-per-user
/// constraint decides, so parallel requests cannot race past a check).
pub async fn create_team(
    pool: &PgPool,
    challenge: &Challenge,
    name: &TeamName,
    member: Option<i64>,
) -> Result<(accounts::Team, String), ActionError> {
    let mut tx = pool.begin().await?;
    if let Some(user) = member {
        if accounts::team_of_user(&mut *tx, challenge.id, user)
            .await?
            .is_some()
        {
            return Err(ActionError::AlreadyInTeam);
        }
    }
    let Some(team) = accounts::create_team(&mut *tx, challenge.id, name).await? else {
        let existing = accounts::team_name_like(&mut *tx, challenge.id, name).await?;
        return Err(ActionError::TeamExists(
            existing.unwrap_or_else(|| name.as_str().to_string()),
        ));
    };
    if let Some(user) = member {
        if !accounts::add_member(&mut *tx, team.id, user).await? {
            // Dropping the transaction rolls the team back.
            return Err(ActionError::AlreadyInTeam);
        }
    }
    let token = auth::new_token();
    accounts::create_api_token(
        &mut *tx,
        team.id,
        member,
        &auth::token_hash(&token),
        "created with the team",
    )
    .await?;
    tx.commit().await?;
    Ok((team, token))
}

/// Is this the shape of an invite code (`auth::new_token`: 64 lowercase hex digits)? Anything
/// else is refused before the database is asked.
fn invite_code_shape(code: &str) -> bool {
    code.len() == 64 && code.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The team of `challenge` that an invite link with `code` leads to. A code of another
/// challenge's team leads nowhere here.
pub async fn invited_team(
    pool: &PgPool,
    challenge: &Challenge,
    code: &str,
) -> Result<accounts::Team, ActionError> {
    if !invite_code_shape(code) {
        return Err(ActionError::NoInvite);
    }
    if let Some(team) = accounts::team_by_invite(pool, challenge.id, code).await? {
        return Ok(team);
    }
    match accounts::team_of_replaced_invite(pool, challenge.id, code).await? {
        Some(name) => Err(ActionError::ReplacedInvite(name)),
        None => Err(ActionError::NoInvite),
    }
}

/// Joins the team an invite link leads to. A user is in at most one team per challenge (the
/// schema's constraint decides, so two joins at once cannot both pass), so one already in a team,
/// this one included, is refused.
pub async fn join_team(
    pool: &PgPool,
    challenge: &Challenge,
    code: &str,
    user_id: i64,
) -> Result<accounts::Team, ActionError> {
    let team = invited_team(pool, challenge, code).await?;
    if accounts::add_member(pool, team.id, user_id).await? {
        Ok(team)
    } else {
        Err(ActionError::AlreadyInTeam)
    }
}

/// Puts a user into a team by the team's name and the user's e-mail address (the organizers' way
/// to hand a team made on the command line to its people).
pub async fn add_member(
    pool: &PgPool,
    challenge: &Challenge,
    team_name: &TeamName,
    email: &str,
) -> Result<(accounts::Team, accounts::User), ActionError> {
    let email = email.trim().to_lowercase();
    let team = accounts::team_by_name(pool, challenge.id, team_name.as_str())
        .await?
        .ok_or_else(|| ActionError::NoTeam(team_name.as_str().to_string()))?;
    let user = accounts::user_by_email(pool, &email)
        .await?
        .ok_or(ActionError::NoAccount(email))?;
    if accounts::add_member(pool, team.id, user.id).await? {
        Ok((team, user))
    } else {
        Err(ActionError::AlreadyInTeam)
    }
}

/// Takes a user out of their team of the challenge. The team keeps its submissions and gets a new
/// invite code, so that the link the leaver knows no longer lets them (or whoever they pass it to)
/// back in. The API tokens the leaver may hold stop working: those they made and those of unknown
/// maker (the members make new ones), and every token of the team when the last member leaves.
pub async fn leave_team(
    pool: &PgPool,
    challenge: &Challenge,
    user_id: i64,
) -> Result<accounts::Team, ActionError> {
    let mut tx = pool.begin().await?;
    let team = accounts::team_of_user(&mut *tx, challenge.id, user_id)
        .await?
        .ok_or(ActionError::NotInTeam)?;
    // Members leave one at a time, so that the last one is known to be the last.
    submissions::lock_team(&mut tx, team.id).await?;
    if !accounts::remove_member(&mut *tx, team.id, user_id).await? {
        return Err(ActionError::NotInTeam);
    }
    accounts::set_invite_code(&mut *tx, team.id, &auth::new_token()).await?;
    // A token the leaver keeps would let them upload for this team, and read its hidden-split
    // scores, from another team: those they may hold stop working now, and when nobody is left,
    // all of them (a token shown to a member who left earlier may have been passed on).
    if accounts::members_of_team(&mut *tx, team.id)
        .await?
        .is_empty()
    {
        accounts::revoke_all_api_tokens(&mut *tx, team.id).await?;
    } else {
        accounts::revoke_api_tokens_of_member(&mut *tx, team.id, user_id).await?;
    }
    tx.commit().await?;
    Ok(team)
}

/// Gives the user's team of the challenge a new invite code: the old link stops working.
pub async fn renew_invite(
    pool: &PgPool,
    challenge: &Challenge,
    user_id: i64,
) -> Result<(), ActionError> {
    let team = accounts::team_of_user(pool, challenge.id, user_id)
        .await?
        .ok_or(ActionError::NotInTeam)?;
    Ok(accounts::set_invite_code(pool, team.id, &auth::new_token()).await?)
}

/// Revokes one of a team's API tokens (`team_id` None: any team's, for organizers and the CLI).
pub async fn revoke_token(
    pool: &PgPool,
    team_id: Option<i64>,
    token_id: i64,
) -> Result<(), ActionError> {
    if accounts::revoke_api_token(pool, team_id, token_id).await? {
        Ok(())
    } else {
        Err(ActionError::NoToken(token_id))
    }
}

/// Failed logins allowed in `THROTTLE_WINDOW_SECONDS`: per address, per account from one address,
/// and per account from all addresses together. Past the second, that address may not try that
/// account; past the third, nobody may. With ten per account from anywhere, a stranger who knew an
/// e-mail address locked its owner out with ten bad guesses; now that takes a hundred, from ten
/// addresses or more. The price: one account may take up to a hundred guesses per window from as
/// many addresses, where it took ten.
pub const LOGIN_FAILURES_PER_ADDRESS: i64 = 30;
pub const LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS: i64 = 10;
pub const LOGIN_FAILURES_PER_ACCOUNT: i64 = 100;
/// Sign-ups allowed per address in the window.
pub const SIGNUPS_PER_ADDRESS: i64 = 10;
pub const THROTTLE_WINDOW_SECONDS: i64 = 15 * 60;

/// Creates an account, at most `SIGNUPS_PER_ADDRESS` per address in the window; the password is
/// hashed in its turn (`turns`).
pub async fn sign_up(
    pool: &PgPool,
    turns: &Turns,
    address: &str,
    email: &Email,
    password: &Password,
) -> Result<accounts::User, ActionError> {
    signup_allowed(pool, address).await?;
    let hash = hash_in_turn(turns, password).await?;
    accounts::create_user(pool, email.as_str(), &hash, false)
        .await?
        .ok_or(ActionError::AccountExists)
}

/// A password's argon2 hash, made in its turn (`turns`).
async fn hash_in_turn(turns: &Turns, password: &Password) -> Result<String, ActionError> {
    let pw = password.expose().to_string();
    let turn = turns.take().await?;
    off_the_async_threads("password hashing", move || {
        let _turn = turn;
        auth::hash_password(&pw)
    })
    .await?
    .map_err(|e| ActionError::Internal(format!("password hashing failed: {e}")))
}

/// How long a password link made by [`password_link`] works.
pub const PASSWORD_LINK_HOURS: i64 = 24;

/// Changes a logged-in person's password, given their current one (checked and throttled as a
/// login is), and ends all their sessions, this one too (a stolen cookie stops working): the
/// caller starts a new one with the returned user. Password links stay open: someone who has the
/// account and its password cannot close the owner's way back by changing it. Refused if the
/// password changed while this was checked (a link was used meanwhile, say).
pub async fn change_password(
    pool: &PgPool,
    turns: &Turns,
    address: &str,
    user: &accounts::User,
    current: &str,
    new: &Password,
) -> Result<accounts::User, ActionError> {
    let checked = match log_in(pool, turns, address, &user.email, current).await {
        Err(ActionError::WrongCredentials) => {
            return Err(ActionError::Invalid(
                "that is not your current password".into(),
            ))
        }
        other => other?,
    };
    let hash = hash_in_turn(turns, new).await?;
    let mut tx = pool.begin().await?;
    if !accounts::set_password(&mut tx, user.id, &hash, Some(&checked.password_hash)).await? {
        return Err(ActionError::Invalid(
            "your password was changed meanwhile; log in again".into(),
        ));
    }
    tx.commit().await?;
    Ok(accounts::User {
        password_hash: hash,
        ..checked
    })
}

/// Makes a one-time link for the account of `email` to set a new password with (the server sends
/// no e-mail: an organizer or operator passes it on; `by` names them in the log, never the
/// link). Returns the link's secret, for `/password/{secret}`; it works once, for
/// `PASSWORD_LINK_HOURS`, and closes the account's older links.
pub async fn password_link(pool: &PgPool, email: &str, by: &str) -> Result<String, ActionError> {
    let email = email.trim().to_lowercase();
    let user = accounts::user_by_email(pool, &email)
        .await?
        .ok_or(ActionError::NoAccount(email))?;
    let secret = auth::new_token();
    let mut tx = pool.begin().await?;
    accounts::close_password_resets(&mut *tx, user.id).await?;
    accounts::create_password_reset(
        &mut *tx,
        &auth::token_hash(&secret),
        user.id,
        PASSWORD_LINK_HOURS,
    )
    .await?;
    tx.commit().await?;
    tracing::info!(user = user.id, by, "password link made");
    Ok(secret)
}

/// The account a password link is for, while it works.
pub async fn password_link_user(
    pool: &PgPool,
    secret: &str,
) -> Result<accounts::User, ActionError> {
    accounts::password_reset_user(pool, &auth::token_hash(secret), false)
        .await?
        .ok_or(ActionError::NoPasswordLink)
}

/// Sets a new password with a password link, once: the link and any other open one of the
/// account stop working, every session of the account ends, and the API tokens it made are
/// revoked (someone who had the account may have made them). Returns how many tokens were.
pub async fn reset_password(
    pool: &PgPool,
    turns: &Turns,
    secret: &str,
    new: &Password,
) -> Result<u64, ActionError> {
    password_link_user(pool, secret).await?;
    let hash = hash_in_turn(turns, new).await?;
    let mut tx = pool.begin().await?;
    // Again, holding the link: two uses at once set one password.
    let user = accounts::password_reset_user(&mut *tx, &auth::token_hash(secret), true)
        .await?
        .ok_or(ActionError::NoPasswordLink)?;
    accounts::set_password(&mut tx, user.id, &hash, None).await?;
    accounts::close_password_resets(&mut *tx, user.id).await?;
    let revoked = accounts::revoke_api_tokens_made_by(&mut *tx, user.id).await?;
    tx.commit().await?;
    tracing::info!(user = user.id, revoked, "password set with a link");
    Ok(revoked)
}

/// Checks a login, throttled per address and per account: past the limits no password is
/// checked at all, the right one included, until the window has passed. The check waits for its
/// turn (`turns`), as successful logins are not counted.
pub async fn log_in(
    pool: &PgPool,
    turns: &Turns,
    address: &str,
    email: &str,
    password: &str,
) -> Result<accounts::User, ActionError> {
    let email = email.trim().to_lowercase();
    login_allowed(pool, address, &email).await?;
    let user = accounts::user_by_email(pool, &email).await?;
    let (pw, hash) = (
        password.to_string(),
        user.as_ref().map(|u| u.password_hash.clone()),
    );
    let turn = turns.take().await?;
    let ok = off_the_async_threads("password check", move || {
        let _turn = turn;
        auth::verify_password(&pw, hash.as_deref())
    })
    .await?;
    match user {
        Some(user) if ok => Ok(user),
        _ => {
            login_failed(pool, address, &email).await?;
            Err(ActionError::WrongCredentials)
        }
    }
}

async fn over(pool: &PgPool, key: &str, limit: i64) -> Result<bool, ActionError> {
    Ok(accounts::recent_attempts(pool, key, THROTTLE_WINDOW_SECONDS).await? >= limit)
}

/// May this address try to log in to this account now? Counted in the database, so that every
/// instance throttles alike; checked before the password is, so a guess past the limit learns nothing.
async fn login_allowed(pool: &PgPool, address: &str, email: &str) -> Result<(), ActionError> {
    let [by_address, by_pair, by_account] = throttle_keys(address, email);
    if over(pool, &by_address, LOGIN_FAILURES_PER_ADDRESS).await?
        || over(pool, &by_pair, LOGIN_FAILURES_PER_ACCOUNT_FROM_ADDRESS).await?
        || over(pool, &by_account, LOGIN_FAILURES_PER_ACCOUNT).await?
    {
        return Err(ActionError::TooManyAttempts);
    }
    Ok(())
}

async fn login_failed(pool: &PgPool, address: &str, email: &str) -> Result<(), ActionError> {
    Ok(accounts::record_attempt(pool, &throttle_keys(address, email)).await?)
}

/// The counters a failed login adds to: by address, by account from that address, by account.
fn throttle_keys(address: &str, email: &str) -> [String; 3] {
    [
        format!("login-ip:{address}"),
        format!("login-account-ip:{email} {address}"),
        format!("login-account:{email}"),
    ]
}

/// Counts a sign-up from this address, refusing it past the limit.
async fn signup_allowed(pool: &PgPool, address: &str) -> Result<(), ActionError> {
    let key = format!("signup-ip:{address}");
    if over(pool, &key, SIGNUPS_PER_ADDRESS).await? {
        return Err(ActionError::TooManyAttempts);
    }
    Ok(accounts::record_attempt(pool, &[key]).await?)
}

/// Who uploads: a team (quota applies) or an organizer adding a baseline row.
pub enum Uploader<'a> {
    Team {
        team_id: i64,
        user_id: Option<i64>,
    },
    Baseline {
        label: &'a str,
        user_id: Option<i64>,
    },
}

/// Server-wide bounds on uploads and their jobs (from the configuration).
#[derive(Debug, Clone)]
pub struct SubmitLimits {
    pub max_caption_chars: usize,
    /// The parsing an upload's captions may take ([`crate::domain::results_file::ParseBudget`]).
    pub parse_words_per_image: usize,
    pub max_attempts: i32,
    /// Uploads are refused below this much free disk.
    pub disk_floor: Option<crate::disk::DiskFloor>,
}

impl SubmitLimits {
    pub fn from_settings(s: &crate::configuration::Settings) -> SubmitLimits {
        SubmitLimits {
            max_caption_chars: s.limits.max_caption_chars,
            parse_words_per_image: s.limits.parse_words_per_image,
            max_attempts: s.worker.max_attempts,
            disk_floor: s.disk_floor(),
        }
    }
}

/// Refuses to take more data while the disk is below its free-space floor.
pub fn check_disk(floor: Option<&crate::disk::DiskFloor>) -> Result<(), ActionError> {
    match floor {
        Some(f) => f.check().map_err(ActionError::DiskFull),
        None => Ok(()),
    }
}

/// What is left of a team's quota: uploads in the next 24 hours and in total (`None`: no limit).
#[derive(Debug, Clone, Copy)]
pub struct QuotaLeft {
    pub today: Option<i64>,
    pub total: Option<i64>,
}

pub async fn quota_left(
    pool: &PgPool,
    challenge: &Challenge,
    team_id: i64,
) -> Result<QuotaLeft, ActionError> {
    let (today, total) = submissions::quota_used(pool, team_id).await?;
    let left = |limit: Option<i32>, used: i64| limit.map(|l| (i64::from(l) - used).max(0));
    Ok(QuotaLeft {
        today: left(challenge.daily_submission_limit, today),
        total: left(challenge.total_submission_limit, total),
    })
}

/// Validates a results file off the async threads (a large file is seconds of CPU).
async fn validate(
    bytes: Vec<u8>,
    split_name: String,
    ids: HashSet<i64>,
    max_bytes: u64,
    max_caption_chars: usize,
    parse_words_per_image: usize,
) -> Result<(Vec<u8>, Option<String>), ActionError> {
    off_the_async_threads("validation", move || {
        let bounds = Bounds {
            split_name: &split_name,
            split_images: &ids,
            max_bytes,
            max_caption_chars,
            refuse_empty_captions: true,
            parse_budget: Some(ParseBudget {
                words_per_image: parse_words_per_image,
            }),
        };
        ResultsFile::parse(&bytes, bounds).map(|file| {
            let ignored = file.ignored();
            let note = (!ignored.is_empty()).then(|| ignored.to_string());
            (bytes, note)
        })
    })
    .await?
    .map_err(ActionError::Upload)
}

/// What a team's quota counts besides its own uploads (`submissions::quota_used`), as the
/// refusal says it.
const COUNTED: &str = "(its members' uploads in other teams of this challenge count too)";

/// Validates a results file against the split and the challenge's limits; if it passes, stores it
/// (with its description and `method`) with a queued job in one transaction. A rejected file is
/// not stored and does not count.
#[allow(clippy::too_many_arguments)]
pub async fn submit(
    pool: &PgPool,
    challenge: &Challenge,
    split: &Split,
    uploader: Uploader<'_>,
    description: &str,
    method: &SubmissionMethod,
    bytes: Vec<u8>,
    limits: SubmitLimits,
) -> Result<Submission, ActionError> {
    let SubmitLimits {
        max_caption_chars,
        parse_words_per_image,
        max_attempts,
        disk_floor,
    } = limits;
    if let Uploader::Team { .. } = uploader {
        if let Some(why) = challenge.refusal_for(&split.name, chrono::Utc::now()) {
            return Err(ActionError::Closed(why));
        }
    }
    check_disk(disk_floor.as_ref())?;
    let description =
        Description::parse(description, 500).map_err(|e| ActionError::Invalid(e.to_string()))?;
    let ids: HashSet<i64> = splits::image_ids(pool, split.id).await?;
    let (bytes, note) = validate(
        bytes,
        split.name.clone(),
        ids,
        challenge.file_limit(),
        max_caption_chars,
        parse_words_per_image,
    )
    .await?;
    let sha = hex::encode(Sha256::digest(&bytes));
    let mut tx = pool.begin().await?;
    // New references may have replaced the split's version while the file was checked against it.
    if !splits::hold_current(&mut tx, split.id).await? {
        return Err(ActionError::Invalid(format!(
            "split {} was given new references while your file was checked; upload it again",
            split.name
        )));
    }
    let (kind, team_id, label, user) = match uploader {
        Uploader::Team { team_id, user_id } => {
            submissions::lock_team(&mut tx, team_id).await?;
            // The uploader may have left the team while the file was checked: the upload would
            // then count for a team they are no longer in, beside the quota of the next. Leaving
            // takes the same lock, so from here on they stay until this upload is stored.
            if let Some(user) = user_id {
                let team = accounts::team_of_user(&mut *tx, challenge.id, user).await?;
                if !matches!(team, Some(t) if t.id == team_id) {
                    return Err(ActionError::NotInTeam);
                }
            }
            // Again now that the file is validated (seconds for a large one): the phase may have
            // closed meanwhile, by the clock or by the organizer, and the limits changed.
            let challenge = &challenges::by_id(&mut *tx, challenge.id)
                .await?
                .ok_or_else(|| ActionError::NoChallenge(challenge.slug.clone()))?;
            if let Some(why) = challenge.refusal_for(&split.name, chrono::Utc::now()) {
                return Err(ActionError::Closed(why));
            }
            // The same bytes again (a double click, a script run twice) would spend quota on
            // scores the team already has.
            if let Some((id, at)) =
                submissions::identical_upload(&mut *tx, team_id, split.id, &sha).await?
            {
                return Err(ActionError::Identical { id, at });
            }
            let (today, total) = submissions::quota_used(&mut *tx, team_id).await?;
            if let Some(limit) = challenge.daily_submission_limit {
                if today >= i64::from(limit) {
                    return Err(ActionError::Quota(format!(
                        "your team has used its {limit} submissions of the last 24 hours {COUNTED}"
                    )));
                }
            }
            if let Some(limit) = challenge.total_submission_limit {
                if total >= i64::from(limit) {
                    return Err(ActionError::Quota(format!(
                        "your team has used all {limit} of its submissions {COUNTED}"
                    )));
                }
            }
            if let Some(cap) = challenge.max_team_bytes {
                let stored = submissions::bytes_stored(&mut *tx, team_id).await?;
                if stored + bytes.len() as i64 > cap {
                    return Err(ActionError::Quota(format!(
                        "your team's files would take {} bytes; this challenge keeps at most {cap} bytes per team",
                        stored + bytes.len() as i64
                    )));
                }
            }
            (SubmissionKind::Team, Some(team_id), None, user_id)
        }
        Uploader::Baseline { label, user_id } => {
            (SubmissionKind::Baseline, None, Some(label), user_id)
        }
    };
    let new = NewSubmission {
        split_id: split.id,
        kind,
        team_id,
        label,
        description: description.as_str(),
        raw_file: Some(&bytes),
        sha256: Some(&sha),
        submitted_by: user,
        upload_note: note.as_deref(),
        method,
    };
    let submission = submissions::create_with_job(&mut tx, &new, max_attempts).await?;
    tx.commit().await?;
    Ok(submission)
}

/// Queues the Human row of a split (leave-one-out human captions), replacing an earlier one.
pub async fn compute_human(
    pool: &PgPool,
    split: &Split,
    max_attempts: i32,
) -> Result<Submission, ActionError> {
    let mut tx = pool.begin().await?;
    if let Some(old) = submissions::human_of_split(&mut *tx, split.id).await? {
        submissions::soft_delete(&mut *tx, old).await?;
    }
    let new = NewSubmission {
        split_id: split.id,
        kind: SubmissionKind::Human,
        team_id: None,
        label: Some("Human"),
        description: "leave-one-out: each image's first reference scored against the others",
        raw_file: None,
        sha256: None,
        submitted_by: None,
        upload_note: None,
        method: &SubmissionMethod::default(),
    };
    let s = submissions::create_with_job(&mut tx, &new, max_attempts).await?;
    tx.commit().await?;
    Ok(s)
}

/// Re-queues every live submission of a split (after an engine upgrade); reference graphs are
/// rebuilt by the first job. Returns the number of jobs queued.
pub async fn rescore(
    pool: &PgPool,
    split: &Split,
    max_attempts: i32,
) -> Result<usize, ActionError> {
    let mut tx = pool.begin().await?;
    // Force the rebuild of reference graphs by clearing the recorded engine version.
    splits::forget_engine_version(&mut *tx, split.id).await?;
    let subs = submissions::ids_of_split(&mut *tx, split.id).await?;
    for (id, kind) in &subs {
        queue::enqueue(&mut *tx, kind.job(), *id, max_attempts).await?;
    }
    tx.commit().await?;
    Ok(subs.len())
}

/// The status line of a submission, as its page, its JSON and the API show it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StatusInfo {
    /// The submission's status, or "re-scoring (queued)" while a scored submission waits for
    /// its new scores (the old ones stay visible meanwhile).
    pub status: String,
    pub queue_position: Option<i64>,
    pub attempts: i32,
    pub error: Option<String>,
    /// What a running job is doing, as its worker last stored it ("scoring captions: 1,200 of
    /// 5,000 images, about 20 s left").
    pub progress: Option<String>,
}

/// `n` with thousands separated by commas.
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|g| std::str::from_utf8(g).unwrap_or_default())
        .collect();
    format!("{}{}", if n < 0 { "-" } else { "" }, groups.join(","))
}

/// The progress line of a running job, with an estimate of the time left while it scores
/// (from the pace since the job started).
fn progress_line(job: &queue::Job, now: chrono::DateTime<chrono::Utc>) -> Option<String> {
    use crate::scoring::Stage;
    if job.state != JobState::Running {
        return None;
    }
    let stage = job.progress_stage.as_deref().and_then(Stage::parse)?;
    Some(match stage {
        Stage::Starting => "starting".to_string(),
        Stage::References => "building the reference scene graphs".to_string(),
        Stage::Scoring => {
            let (done, total) = (
                job.progress_done.unwrap_or(0),
                job.progress_total.unwrap_or(0),
            );
            let mut line = format!(
                "scoring captions: {} of {} images",
                thousands(done.into()),
                thousands(total.into())
            );
            let elapsed = job
                .started_at
                .map_or(0.0, |t| (now - t).num_milliseconds() as f64 / 1000.0);
            if done > 0 && total > done && elapsed > 0.0 {
                let left = elapsed / f64::from(done) * f64::from(total - done);
                line += &format!(", about {} s left", left.ceil() as i64);
            }
            line
        }
        Stage::Classic => "computing BLEU, METEOR, ROUGE-L and CIDEr-D".to_string(),
        Stage::Writing => "writing the results".to_string(),
    })
}

pub async fn submission_status(pool: &PgPool, s: &Submission) -> Result<StatusInfo, ActionError> {
    status_of(&mut *pool.acquire().await?, s).await
}

/// `submission_status` through one connection (a snapshot's, in `submission_snapshot`).
async fn status_of(
    conn: &mut sqlx::PgConnection,
    s: &Submission,
) -> Result<StatusInfo, ActionError> {
    let job = queue::latest_of_submission(&mut *conn, s.id).await?;
    let (queue_position, attempts, job_error) = match &job {
        Some(j) if j.state == JobState::Queued => (
            Some(queue::position(&mut *conn, j.id).await?),
            j.attempts,
            j.last_error.clone(),
        ),
        Some(j) => (None, j.attempts, j.last_error.clone()),
        None => (None, 0, None),
    };
    let status = match &job {
        Some(j) if s.status.is_scored() && j.state.is_pending() => {
            format!("re-scoring ({})", j.state)
        }
        _ => s.status.to_string(),
    };
    Ok(StatusInfo {
        status,
        queue_position,
        attempts,
        error: s
            .error
            .clone()
            .or(job_error.filter(|_| s.status == SubmissionStatus::Failed)),
        progress: job
            .as_ref()
            .and_then(|j| progress_line(j, chrono::Utc::now())),
    })
}

/// A submission's state and its scores as of one moment: what its page and the API's status
/// show together. The worker writes the scores, the submission's status and its job's state in
/// one transaction; read in several statements, a page could show the status from before that
/// transaction beside the scores from after it ("running" with scores). So everything here is
/// read in one read-only transaction at REPEATABLE READ: one snapshot of the database.
pub struct SubmissionSnapshot {
    pub submission: Submission,
    pub status: StatusInfo,
    pub aggregates: Vec<scores::CategoryScore>,
    pub classic: Option<serde_json::Value>,
    /// The page of per-image results asked for, if any.
    pub images: Option<ImagePage>,
}

/// One page of a submission's per-image SPICE, worst first.
pub struct ImagePage {
    /// How many images the submission has results for.
    pub total: i64,
    /// The page shown (the one asked for, within 1..=pages) and how many there are.
    pub page: i64,
    pub pages: i64,
    pub rows: Vec<scores::ImageRow>,
}

/// Reads submission `id` (whose reader was already checked, e.g. by `view_submission`) as of one
/// moment, with page `images.0` of its per-image results at `images.1` a page when asked for.
pub async fn submission_snapshot(
    pool: &PgPool,
    id: i64,
    images: Option<(Option<i64>, i64)>,
) -> Result<SubmissionSnapshot, ActionError> {
    let mut tx = pool.begin().await?;
    // Before the transaction's first read, which takes the snapshot.
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let submission = submissions::by_id(&mut *tx, id)
        .await?
        .ok_or(ActionError::NoSubmission(id))?;
    let status = status_of(&mut tx, &submission).await?;
    let aggregates = scores::aggregates(&mut *tx, id).await?;
    let classic = scores::classic(&mut *tx, id).await?;
    let images = match images {
        Some((page, per_page)) => {
            let total = scores::image_count(&mut *tx, id).await?;
            let pages = ((total + per_page - 1) / per_page).max(1);
            let page = page.unwrap_or(1).clamp(1, pages);
            let rows =
                scores::images_worst_first(&mut *tx, id, per_page, (page - 1) * per_page).await?;
            Some(ImagePage {
                total,
                page,
                pages,
                rows,
            })
        }
        None => None,
    };
    tx.commit().await?;
    Ok(SubmissionSnapshot {
        submission,
        status,
        aggregates,
        classic,
        images,
    })
}

/// May this reader see this submission? Organizers everything (deleted ones too); a team its own,
/// through a member's session or its API token; everyone the baseline and Human rows of a
/// revealed split. Anything else is "no such submission", so that ids reveal nothing.
async fn may_read(
    pool: &PgPool,
    s: &Submission,
    split: &Split,
    user: Option<&accounts::User>,
    bearer_team: Option<i64>,
) -> Result<bool, ActionError> {
    if organizes(pool, user, split.challenge_id).await? {
        return Ok(true);
    }
    if s.deleted_at.is_some() {
        return Ok(false);
    }
    match s.team_id {
        None => Ok(!split.hidden),
        Some(team) if bearer_team == Some(team) => Ok(true),
        Some(team) => {
            let Some(u) = user else { return Ok(false) };
            let mine = accounts::team_of_user(pool, split.challenge_id, u.id).await?;
            Ok(mine.is_some_and(|t| t.id == team))
        }
    }
}

/// A submission with its split and challenge, if `user` (or the team whose API token was shown,
/// `bearer_team`) may see it (see `may_read`); otherwise `NoSubmission`.
pub async fn visible_submission(
    pool: &PgPool,
    id: i64,
    user: Option<&accounts::User>,
    bearer_team: Option<i64>,
) -> Result<(Submission, Split, Challenge), ActionError> {
    let gone = || ActionError::NoSubmission(id);
    let s = submissions::by_id(pool, id).await?.ok_or_else(gone)?;
    let split = splits::by_id(pool, s.split_id).await?.ok_or_else(gone)?;
    if !may_read(pool, &s, &split, user, bearer_team).await? {
        return Err(gone());
    }
    let challenge = challenges::by_id(pool, split.challenge_id)
        .await?
        .ok_or_else(gone)?;
    Ok((s, split, challenge))
}

/// A submission as a logged-in user or a visitor may see it.
pub struct SubmissionView {
    pub submission: Submission,
    pub split: Split,
    pub challenge: Challenge,
    /// The reader is in the team that made it (and may choose it for the leaderboard).
    pub own_team: bool,
    /// The reader organizes the challenge.
    pub organizer: bool,
    /// Per-image results are shown (see `shows_per_image`).
    pub per_image: bool,
    /// It is its team's entry on the split's leaderboard (told to the team only).
    pub on_leaderboard: bool,
    /// The reader's team may make it its leaderboard entry (the challenge lets teams choose, it
    /// is scored and not the entry already).
    pub can_choose: bool,
}

/// A submission for its pages, if `user` may see it (see `may_read`); otherwise `NoSubmission`.
pub async fn view_submission(
    pool: &PgPool,
    id: i64,
    user: Option<&accounts::User>,
) -> Result<SubmissionView, ActionError> {
    let (submission, split, challenge) = visible_submission(pool, id, user, None).await?;
    let own_team = match (user, submission.team_id) {
        (Some(u), Some(owner)) => accounts::team_of_user(pool, challenge.id, u.id)
            .await?
            .is_some_and(|t| t.id == owner),
        _ => false,
    };
    let organizer = organizes(pool, user, challenge.id).await?;
    let per_image = shows_per_image(&split, organizer);
    let on_leaderboard = match submission.team_id {
        Some(team) if own_team => {
            leaderboard::entry_of_team(pool, team, split.id).await? == Some(submission.id)
        }
        _ => false,
    };
    let can_choose = own_team
        && challenge.entry_policy == EntryPolicy::Chosen
        && challenge
            .refusal_for(&split.name, chrono::Utc::now())
            .is_none()
        && submission.status.is_scored()
        && submission.deleted_at.is_none()
        && !on_leaderboard;
    Ok(SubmissionView {
        submission,
        split,
        challenge,
        own_team,
        organizer,
        per_image,
        on_leaderboard,
        can_choose,
    })
}

/// Every image of a submission with every category's scores, for the downloads: to those who see
/// its per-image table (its team, by session or API token, and the organizers; see `may_read`
/// and `shows_per_image`), so never a hidden split's to a team.
pub async fn image_scores(
    pool: &PgPool,
    id: i64,
    user: Option<&accounts::User>,
    bearer_team: Option<i64>,
) -> Result<(Submission, Split, Vec<scores::ImageScores>), ActionError> {
    let (submission, split, _) = visible_submission(pool, id, user, bearer_team).await?;
    if !shows_per_image(&split, organizes(pool, user, split.challenge_id).await?) {
        return Err(ActionError::Forbidden(
            "per-image results of a hidden split stay with the organizers until it is revealed",
        ));
    }
    let images = scores::all_images(pool, submission.id).await?;
    Ok((submission, split, images))
}

/// The file a submission was uploaded as: to its team (by session or API token) and the
/// organizers only; a baseline's to the organizers.
pub async fn uploaded_file(
    pool: &PgPool,
    id: i64,
    user: Option<&accounts::User>,
    bearer_team: Option<i64>,
) -> Result<(Submission, Vec<u8>), ActionError> {
    let (submission, split, _) = visible_submission(pool, id, user, bearer_team).await?;
    let own_team = match (submission.team_id, bearer_team, user) {
        (Some(team), Some(bearer), _) if team == bearer => true,
        (Some(team), _, Some(u)) => accounts::team_of_user(pool, split.challenge_id, u.id)
            .await?
            .is_some_and(|t| t.id == team),
        _ => false,
    };
    if !(own_team || organizes(pool, user, split.challenge_id).await?) {
        return Err(ActionError::Forbidden(
            "only the team that uploaded a file, and the organizers, may download it",
        ));
    }
    let file = submissions::raw_file(pool, submission.id)
        .await?
        .ok_or(ActionError::NoSubmission(id))?;
    Ok((submission, file))
}

/// Who acts on a team's submission: a person logged in, or the holder of a team's API token
/// (and the member who made it, when recorded).
#[derive(Debug, Clone, Copy)]
pub enum TeamActor<'a> {
    Session(&'a accounts::User),
    Token { team_id: i64, made_by: Option<i64> },
}

impl TeamActor<'_> {
    /// The person acting, when known.
    pub fn user_id(&self) -> Option<i64> {
        match self {
            TeamActor::Session(u) => Some(u.id),
            TeamActor::Token { made_by, .. } => *made_by,
        }
    }
}

/// Submission `id` if it is a live upload of `actor`'s team; otherwise `NoSubmission` where the
/// actor may not see it (another team's, as for every other page) and `Forbidden(refusal)`
/// where they may but it is not their team's (an organizer outside the team, a baseline).
async fn own_team_submission(
    pool: &PgPool,
    id: i64,
    actor: TeamActor<'_>,
    refusal: &'static str,
) -> Result<(Submission, Split, Challenge), ActionError> {
    let (user, bearer) = match actor {
        TeamActor::Session(u) => (Some(u), None),
        TeamActor::Token { team_id, .. } => (None, Some(team_id)),
    };
    let (submission, split, challenge) = visible_submission(pool, id, user, bearer).await?;
    let team = match actor {
        TeamActor::Session(u) => accounts::team_of_user(pool, challenge.id, u.id)
            .await?
            .map(|t| t.id),
        TeamActor::Token { team_id, .. } => Some(team_id),
    };
    match submission.team_id {
        Some(owner) if team == Some(owner) && submission.deleted_at.is_none() => {
            Ok((submission, split, challenge))
        }
        _ => Err(ActionError::Forbidden(refusal)),
    }
}

/// A change to a submission's method: `None` leaves that field as it is, `Some("")` clears it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MethodEdit<'a> {
    pub name: Option<&'a str>,
    pub paper_url: Option<&'a str>,
    pub code_url: Option<&'a str>,
}

/// Changes the method (name, paper and code links) of a submission of `actor`'s team, checked as
/// at upload; returns the submission as stored. Its team alone may (not the organizers: what a
/// team says about its own work is its own; an organizer deletes an entry instead).
pub async fn edit_method(
    pool: &PgPool,
    id: i64,
    actor: TeamActor<'_>,
    edit: MethodEdit<'_>,
) -> Result<Submission, ActionError> {
    let (submission, _, _) = own_team_submission(
        pool,
        id,
        actor,
        "only the team that uploaded a submission may change its method",
    )
    .await?;
    let method = SubmissionMethod::parse(
        edit.name
            .unwrap_or(submission.method_name.as_deref().unwrap_or_default()),
        edit.paper_url
            .unwrap_or(submission.paper_url.as_deref().unwrap_or_default()),
        edit.code_url
            .unwrap_or(submission.code_url.as_deref().unwrap_or_default()),
    )
    .map_err(|e| ActionError::Invalid(e.to_string()))?;
    let team = submission.team_id.unwrap_or_default();
    if !submissions::set_method(pool, id, team, &method).await? {
        // Deleted by an organizer meanwhile.
        return Err(ActionError::NoSubmission(id));
    }
    submissions::by_id(pool, id)
        .await?
        .ok_or(ActionError::NoSubmission(id))
}

/// Why an organizer outside the team cannot cancel (they delete instead).
const ONLY_ITS_TEAM_CANCELS: &str =
    "only the team that uploaded a submission may cancel it (organizers delete it instead)";

/// May `actor` cancel submission `id` now (its team's, still queued, never scored)? The answer
/// a confirmation page asks before it offers the button; `cancel` decides for good.
pub async fn cancellable(
    pool: &PgPool,
    id: i64,
    actor: TeamActor<'_>,
) -> Result<(Submission, Split, Challenge), ActionError> {
    let (submission, split, challenge) =
        own_team_submission(pool, id, actor, ONLY_ITS_TEAM_CANCELS).await?;
    if submission.status != SubmissionStatus::Queued || submission.scored_at.is_some() {
        return Err(too_late(&submission));
    }
    Ok((submission, split, challenge))
}

fn too_late(s: &Submission) -> ActionError {
    let now = match (s.status, s.scored_at) {
        (SubmissionStatus::Queued, Some(_)) => "waiting to be scored again (it was scored before)",
        (other, _) => other.as_str(),
    };
    ActionError::TooLate(format!(
        "submission {} can no longer be cancelled: it is {now}; only a submission still waiting \
         in the queue for its first score can be",
        s.id
    ))
}

/// Cancels a submission of `actor`'s team while it waits in the queue (`queue::cancel_queued`
/// says how the race with a worker claiming it is settled). It is never scored, counts against
/// no quota (as one that failed for the server's reasons: `submissions::quota_used`), and may be
/// uploaded again; its file stays stored, and counts against the team's stored bytes, as a failed
/// one's does. Once a worker has it, `TooLate`.
pub async fn cancel(
    pool: &PgPool,
    id: i64,
    actor: TeamActor<'_>,
) -> Result<Submission, ActionError> {
    let (submission, _, _) = own_team_submission(pool, id, actor, ONLY_ITS_TEAM_CANCELS).await?;
    let team = submission.team_id.unwrap_or_default();
    let mut tx = pool.begin().await?;
    if !queue::cancel_queued(&mut tx, id, team, actor.user_id()).await? {
        tx.rollback().await?;
        let now = submissions::by_id(pool, id)
            .await?
            .ok_or(ActionError::NoSubmission(id))?;
        return Err(too_late(&now));
    }
    tx.commit().await?;
    submissions::by_id(pool, id)
        .await?
        .ok_or(ActionError::NoSubmission(id))
}

/// The columns of the per-image download: for each category (`domain::CATEGORIES`, "all" being
/// SPICE), precision, recall, F and the tuple counts.
pub fn image_scores_columns() -> Vec<String> {
    let mut columns = vec!["image_id".to_string(), "caption".to_string()];
    for c in crate::domain::CATEGORIES {
        for m in ["precision", "recall", "f", "tp", "fp", "fn"] {
            columns.push(format!("{c}_{m}"));
        }
    }
    columns
}

/// The per-image scores as CSV, at full precision; an undefined score (no reference tuple in the
/// category) is an empty cell.
pub fn image_scores_csv(images: &[scores::ImageScores]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(image_scores_columns())?;
    let num = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    for image in images {
        let mut record = vec![image.image_id.to_string(), csv_cell(&image.caption)];
        for c in crate::domain::CATEGORIES {
            match image.categories.iter().find(|s| s.category == c) {
                Some(s) => record.extend([
                    num(s.precision),
                    num(s.recall),
                    num(s.f),
                    s.tp.to_string(),
                    s.fp.to_string(),
                    s.fn_.to_string(),
                ]),
                None => record.extend(std::iter::repeat_n(String::new(), 6)),
            }
        }
        w.write_record(&record)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// One image of a submission: its caption, scores, tuples and reference captions.
pub struct ImageView {
    pub submission_id: i64,
    pub image_id: i64,
    pub caption: String,
    pub details: scoring::ImageDetails,
    pub categories: Vec<scores::CategoryScore>,
    pub references: Vec<String>,
}

/// One image of a submission, where its reader may see per-image results; otherwise `NoImage`,
/// the same answer as for an image the submission does not have.
pub async fn view_image(
    pool: &PgPool,
    id: i64,
    image_id: i64,
    user: Option<&accounts::User>,
) -> Result<ImageView, ActionError> {
    let view = view_submission(pool, id, user).await?;
    let none = || ActionError::NoImage(id, image_id);
    if !view.per_image {
        return Err(none());
    }
    let (row, details, categories) = scores::image(pool, view.submission.id, image_id)
        .await?
        .ok_or_else(none)?;
    let details: scoring::ImageDetails = serde_json::from_str(&details).map_err(|e| {
        ActionError::Internal(format!(
            "stored details of image {image_id} of submission {id}: {e}"
        ))
    })?;
    // This image's captions only: the split's every reference graph is a COCO-sized read.
    let references = splits::captions_of_image(pool, view.split.id, image_id)
        .await?
        .and_then(|c| serde_json::from_value::<Vec<String>>(c).ok())
        .unwrap_or_default();
    Ok(ImageView {
        submission_id: view.submission.id,
        image_id,
        caption: row.caption,
        details,
        categories,
        references,
    })
}

/// Makes a scored submission of the user's team that team's leaderboard entry for its split.
pub async fn choose_for_leaderboard(
    pool: &PgPool,
    user: &accounts::User,
    submission_id: i64,
) -> Result<(Split, Challenge), ActionError> {
    let SubmissionView {
        submission,
        split,
        challenge,
        own_team,
        ..
    } = view_submission(pool, submission_id, Some(user)).await?;
    let (true, Some(team_id)) = (own_team, submission.team_id) else {
        return Err(ActionError::Forbidden(
            "only its team chooses a leaderboard entry",
        ));
    };
    if challenge.entry_policy != EntryPolicy::Chosen {
        return Err(ActionError::Invalid(format!(
            "this challenge's leaderboards show each team's {} entry; teams do not choose",
            challenge.entry_policy
        )));
    }
    if !submission.status.is_scored() {
        return Err(ActionError::Forbidden(
            "only a scored submission can be chosen",
        ));
    }
    // The pick is part of the entry: outside the phase it is as closed as uploads are.
    if let Some(why) = challenge.refusal_for(&split.name, chrono::Utc::now()) {
        return Err(ActionError::Closed(why));
    }
    if !submissions::choose_for_leaderboard(pool, team_id, split.id, submission.id).await? {
        return Err(ActionError::Invalid(
            "the submission moved to a new version of its split, or was deleted, meanwhile; \
             choose it again from its page"
                .into(),
        ));
    }
    Ok((split, challenge))
}

/// May this viewer see a submission's per-image results (per-image scores, the candidate and
/// reference tuples, the reference captions)? A hidden split is a test set (DESIGN, "Challenge
/// rules"): until the organizers reveal it, a team sees only its aggregate and per-category
/// scores, because per-image results give the references away or let a team probe them.
pub fn shows_per_image(split: &Split, organizer: bool) -> bool {
    organizer || !split.hidden
}

/// Who is looking at a leaderboard.
#[derive(Debug, Clone, Copy, Default)]
pub struct Viewer {
    pub organizer: bool,
    pub team_id: Option<i64>,
}

/// The ranked leaderboard of a split as `viewer` may see it: everything for a revealed split or
/// an organizer, only the viewer's own team's entries for a hidden split. The entries scored by
/// the split's front end are ranked; those scored by another follow, unranked
/// (`domain::leaderboard::rank_by_front_end`).
pub async fn leaderboard(
    pool: &PgPool,
    split: &Split,
    sort: SortKey,
    viewer: Viewer,
) -> Result<Vec<RankedEntry>, ActionError> {
    let everything = viewer.organizer || !split.hidden;
    let entries = leaderboard::entries(pool, split.id, everything, viewer.team_id).await?;
    Ok(rank_by_front_end(entries, sort, &split.front_end))
}

/// The split's Human row as its leaderboard shows it to `viewer` (so a hidden split's to the
/// organizers only), preferring one scored by the split's front end.
pub async fn human_row(
    pool: &PgPool,
    split: &Split,
    viewer: Viewer,
) -> Result<Option<leaderboard::Entry>, ActionError> {
    Ok(leaderboard(pool, split, SortKey::Spice, viewer)
        .await?
        .into_iter()
        .map(|r| r.entry)
        .find(|e| e.kind == SubmissionKind::Human))
}

/// The intervals of a scored submission from its per-image scores (`images`; see
/// `domain::uncertainty`). The worker bootstraps the values it computed
/// (`storage::uncertainty::of_result`) while it writes the scores, and stores the intervals in
/// the same transaction; a submission scored before intervals existed gets them on first display
/// (`leaderboard_uncertainty`).
pub async fn bootstrap(
    submission_id: i64,
    images: Vec<crate::domain::uncertainty::ImageValues>,
) -> Result<Vec<crate::domain::uncertainty::Interval>, sqlx::Error> {
    // Tens of milliseconds of one core for 5,000 images (`cargo bench --bench uncertainty`): off
    // the async threads, which serve pages.
    let intervals =
        tokio::task::spawn_blocking(move || crate::domain::uncertainty::intervals(&images))
            .await
            .map_err(|e| {
                // Only a bug of ours panics there; the job fails and is retried like on any error.
                sqlx::Error::Protocol(format!(
                    "the bootstrap of submission {submission_id} crashed: {e}"
                ))
            })?;
    Ok(intervals)
}

/// The uncertainty of one leaderboard row in its ranking column.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RowUncertainty {
    /// The 95 % bootstrap interval (none for BLEU-4 and METEOR, corpus statistics).
    pub interval: Option<(f64, f64)>,
    /// The paired-bootstrap p-value of the difference from the row above, where tested.
    pub p_above: Option<f64>,
    /// Not significantly different from the row above (p >= 0.05).
    pub tied_with_above: bool,
}

/// For each row of a ranked leaderboard, its interval in the ranking column and whether it is
/// statistically tied with the row above. Intervals missing (a submission scored before they
/// existed) are computed and stored first, by one view at a time: the lazy backfill.
///
/// Intervals and ties are functions of the per-image scores, so where those are not shown (a
/// hidden split, to anyone but an organizer: see `shows_per_image`) every row has none.
pub async fn leaderboard_uncertainty(
    pool: &PgPool,
    split: &Split,
    viewer: Viewer,
    rows: &[RankedEntry],
    sort: SortKey,
) -> Result<Vec<RowUncertainty>, ActionError> {
    if !shows_per_image(split, viewer.organizer) {
        return Ok(vec![RowUncertainty::default(); rows.len()]);
    }
    let ids: Vec<i64> = rows.iter().map(|r| r.entry.submission_id).collect();
    let missing = uncertainty::without_intervals(pool, &ids).await?;
    if !missing.is_empty() {
        // One backfill at a time: views arriving together wait for the first one's intervals
        // instead of computing them again.
        static BACKFILL: std::sync::LazyLock<tokio::sync::Mutex<()>> =
            std::sync::LazyLock::new(|| tokio::sync::Mutex::new(()));
        let _turn = BACKFILL.lock().await;
        for id in uncertainty::without_intervals(pool, &missing).await? {
            let mut conn = pool.acquire().await?;
            let images = uncertainty::per_image(&mut *conn, id).await?;
            let intervals = bootstrap(id, images).await?;
            // Never over a worker's: a rescore that commits meanwhile has the newer scores.
            uncertainty::store(&mut conn, id, &intervals, false).await?;
        }
    }
    let stored: std::collections::HashMap<i64, crate::domain::uncertainty::Interval> =
        uncertainty::of_column(pool, &ids, sort)
            .await?
            .into_iter()
            .collect();
    let mut out = Vec::with_capacity(rows.len());
    for (k, r) in rows.iter().enumerate() {
        let here = stored.get(&r.entry.submission_id);
        // Ties are marks of the ranking: between ranked entries only (one front end's).
        let above = k
            .checked_sub(1)
            .filter(|&j| r.rank.is_some() && rows[j].rank.is_some())
            .and_then(|j| stored.get(&rows[j].entry.submission_id));
        let tie = here
            .zip(above)
            .and_then(|(h, a)| crate::domain::uncertainty::tied(h, a));
        out.push(RowUncertainty {
            interval: here.and_then(|i| i.low.zip(i.high)),
            p_above: tie.map(|t| t.1),
            tied_with_above: tie.is_some_and(|t| t.0),
        });
    }
    Ok(out)
}

/// A few turns at some heavy work that anyone may ask for (the compare page's bootstrap): at most
/// `at_once` run together, and a request that does not get its turn within `wait` is refused
/// (`Busy`), so that a flood of such requests cannot take every core from the workers, the
/// validation of uploads and the logins.
pub struct Turns {
    slots: std::sync::Arc<tokio::sync::Semaphore>,
    wait: std::time::Duration,
    /// The 503's message.
    busy: &'static str,
}

impl Turns {
    pub fn new(at_once: usize, wait: std::time::Duration, busy: &'static str) -> Turns {
        Turns {
            slots: std::sync::Arc::new(tokio::sync::Semaphore::new(at_once.max(1))),
            wait,
            busy,
        }
    }

    /// A turn, given back when dropped. It is owned, so it can go with blocking work and is
    /// given back when that work ends, even if the request that asked for it is gone by then.
    async fn take(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ActionError> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(permit);
        }
        within(self.wait, self.slots.clone().acquire_owned(), self.busy).await
    }
}

/// A semaphore's permit if `acquire` gives it within `wait`, `Busy(busy)` otherwise.
async fn within<P>(
    wait: std::time::Duration,
    acquire: impl std::future::Future<Output = Result<P, tokio::sync::AcquireError>>,
    busy: &'static str,
) -> Result<P, ActionError> {
    match tokio::time::timeout(wait, acquire).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(ActionError::Busy(busy)),
    }
}

/// Each team's uploads, one at a time, and all uploads within a memory budget: the file of a
/// team's upload is received (held in memory) and checked only once the team's previous upload is
/// done, and each piece of it is kept only once the budget has room for it; an upload that waits
/// longer than `wait` for either is refused (`Busy`). Refused files count against no quota, so
/// without the turns one member could keep any number of the largest files in memory and in
/// validation at once, and without the budget many teams (anyone may make one) could. An upload
/// holds of the budget what it has sent (in steps of `SHARE_STEP_KIB`), not the largest file the
/// challenge takes: a body that stalls, or trickles until it is cut off and then comes back,
/// holds little, so a few such bodies cannot fill the budget and turn every other team away.
/// Per process: each `serve` keeps its own turns (one small entry per team that uploaded) and
/// budget.
pub struct TeamUploads {
    teams: std::sync::Mutex<HashMap<i64, std::sync::Arc<tokio::sync::Semaphore>>>,
    /// The budget, in KiB.
    memory: std::sync::Arc<tokio::sync::Semaphore>,
    memory_kib: u32,
    wait: std::time::Duration,
}

/// `bytes` in KiB, the memory budget's unit (rounded up; `u32::MAX` for more).
fn kib(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX)
}

/// The steps in which an upload's share of the memory budget grows, in KiB.
const SHARE_STEP_KIB: u32 = 256;

const BUDGET_FULL: &str = "the server is receiving as many uploads as it can hold; \
                           try again in a moment";

/// An upload's turn and its share of the memory budget, held until dropped. The share starts at
/// one step and grows as the file arrives ([`UploadTurn::cover`]), up to the file limit.
pub struct UploadTurn {
    _team: tokio::sync::OwnedSemaphorePermit,
    memory: tokio::sync::OwnedSemaphorePermit,
    budget: std::sync::Arc<tokio::sync::Semaphore>,
    /// The most this upload's share may grow to, in KiB (its file limit, within the budget).
    most_kib: u32,
    wait: std::time::Duration,
}

impl UploadTurn {
    /// Grows this upload's share to cover `bytes` of its file, waiting at most the turn's
    /// `wait` for the budget to have room (else `Busy`).
    pub async fn cover(&mut self, bytes: u64) -> Result<(), ActionError> {
        let want = kib(bytes)
            .div_ceil(SHARE_STEP_KIB)
            .saturating_mul(SHARE_STEP_KIB)
            .min(self.most_kib);
        let held = u32::try_from(self.memory.num_permits()).unwrap_or(u32::MAX);
        if want <= held {
            return Ok(());
        }
        let more = within(
            self.wait,
            std::sync::Arc::clone(&self.budget).acquire_many_owned(want - held),
            BUDGET_FULL,
        )
        .await?;
        self.memory.merge(more);
        Ok(())
    }
}

impl TeamUploads {
    /// `memory_bytes`: what the files of all uploads in progress may take at once.
    pub fn new(wait: std::time::Duration, memory_bytes: u64) -> TeamUploads {
        let memory_kib = kib(memory_bytes).max(1);
        TeamUploads {
            teams: std::sync::Mutex::new(HashMap::new()),
            memory: std::sync::Arc::new(tokio::sync::Semaphore::new(memory_kib as usize)),
            memory_kib,
            wait,
        }
    }

    /// Team `team_id`'s turn to upload a file of at most `max_bytes` (the challenge's limit; a
    /// limit over the whole budget may grow to the whole budget), with the first step of its share.
    pub async fn take(&self, team_id: i64, max_bytes: u64) -> Result<UploadTurn, ActionError> {
        let turn = {
            let mut teams = self.teams.lock().unwrap_or_else(|e| e.into_inner());
            std::sync::Arc::clone(
                teams
                    .entry(team_id)
                    .or_insert_with(|| std::sync::Arc::new(tokio::sync::Semaphore::new(1))),
            )
        };
        let deadline = tokio::time::Instant::now() + self.wait;
        let busy = "your team's previous upload is still being received and checked; \
                    send this one when it is done";
        let team = within(self.wait, turn.acquire_owned(), busy).await?;
        let most_kib = kib(max_bytes).clamp(1, self.memory_kib);
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let memory = within(
            left,
            std::sync::Arc::clone(&self.memory).acquire_many_owned(SHARE_STEP_KIB.min(most_kib)),
            BUDGET_FULL,
        )
        .await?;
        Ok(UploadTurn {
            _team: team,
            memory,
            budget: std::sync::Arc::clone(&self.memory),
            most_kib,
            wait: self.wait,
        })
    }
}

/// Two entries of a split's leaderboard compared (see `domain::uncertainty::compare`).
pub struct ComparisonView {
    pub a: RankedEntry,
    pub b: RankedEntry,
    pub comparison: crate::domain::uncertainty::Comparison,
}

/// Images listed on a comparison page, at most.
pub const COMPARE_IMAGES: usize = 20;

/// Compares two entries that `viewer` sees on the split's leaderboard; any other id, whether it
/// exists or not, is `NoSubmission`, so the page says nothing the leaderboard does not. A hidden
/// split cannot be compared (except by an organizer): the per-category intervals, p-values and
/// the images where two entries differ are all per-image results (see `shows_per_image`), and
/// the answer is the same `NoSubmission`.
pub async fn compare(
    pool: &PgPool,
    split: &Split,
    viewer: Viewer,
    a: i64,
    b: i64,
    turns: &Turns,
) -> Result<ComparisonView, ActionError> {
    if !shows_per_image(split, viewer.organizer) {
        return Err(ActionError::NoSubmission(a));
    }
    let entries = leaderboard(pool, split, SortKey::Spice, viewer).await?;
    let find = |id: i64| {
        entries
            .iter()
            .find(|e| e.entry.submission_id == id)
            .cloned()
            .ok_or(ActionError::NoSubmission(id))
    };
    let (ea, eb) = (find(a)?, find(b)?);
    if ea.entry.front_end != eb.entry.front_end {
        return Err(ActionError::Invalid(format!(
            "entry {a} was scored by the {} front end and entry {b} by the {} front end, whose \
             scores are not comparable; compare entries scored by the same one",
            ea.entry.front_end, eb.entry.front_end
        )));
    }
    // The reading of the per-image scores and the bootstrap take their turn.
    let _turn = turns.take().await?;
    // Entries on the same images were resampled alike when their intervals were stored: the
    // comparison is then made of the stored replicates (no bootstrap: milliseconds, where
    // bootstrapping two 40,504-image entries again took seconds), and of each image's SPICE.
    let (ia, ib) = (
        uncertainty::of_submission(pool, a).await?,
        uncertainty::of_submission(pool, b).await?,
    );
    let (sa, sb) = (
        uncertainty::spice_per_image(pool, a).await?,
        uncertainty::spice_per_image(pool, b).await?,
    );
    let stored = off_the_async_threads("the comparison", move || {
        crate::domain::uncertainty::compare_stored(&ia, &ib, &sa, &sb, COMPARE_IMAGES)
    })
    .await?;
    let comparison = match stored {
        Some(comparison) => comparison,
        None => {
            let va = uncertainty::per_image(pool, a).await?;
            let vb = uncertainty::per_image(pool, b).await?;
            off_the_async_threads("the comparison", move || {
                crate::domain::uncertainty::compare(&va, &vb, COMPARE_IMAGES)
            })
            .await?
        }
    };
    Ok(ComparisonView {
        a: ea,
        b: eb,
        comparison,
    })
}

/// The stable CSV columns of `leaderboard.csv` and `challenge export`. `rank` is empty for an
/// entry scored by another front end than the split's (listed after the ranked ones, unranked);
/// `front_end` names the one that scored each entry.
pub const CSV_COLUMNS: [&str; 20] = [
    "rank",
    "kind",
    "name",
    "submission_id",
    "spice",
    "object",
    "relation",
    "attribute",
    "color",
    "count",
    "size",
    "bleu_4",
    "meteor",
    "rouge_l",
    "cider_d",
    "scored_at",
    "front_end",
    "method_name",
    "paper_url",
    "code_url",
];

/// A cell that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
/// carriage return) gets a leading `'`, OWASP's rule against CSV injection; team and baseline
/// names are chosen by others, so every text cell goes through here.
pub fn csv_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// Writes a ranked leaderboard as CSV (empty cells for missing values).
pub fn leaderboard_csv(rows: &[RankedEntry]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_COLUMNS)?;
    let num = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
    for r in rows {
        let e = &r.entry;
        let mut record = vec![
            r.rank.map(|n| n.to_string()).unwrap_or_default(),
            e.kind.to_string(),
            csv_cell(&e.name),
            e.submission_id.to_string(),
        ];
        record.extend(e.scores.in_order().map(num));
        record.push(e.scored_at.map(|t| t.to_rfc3339()).unwrap_or_default());
        record.push(e.front_end.clone());
        for text in [&e.method_name, &e.paper_url, &e.code_url] {
            record.push(csv_cell(text.as_deref().unwrap_or_default()));
        }
        w.write_record(&record)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The columns of the organizers' export of every submission.
pub const SUBMISSIONS_CSV_COLUMNS: [&str; 26] = [
    "submission_id",
    "split",
    "kind",
    "name",
    "description",
    "status",
    "error",
    "uploaded_at",
    "scored_at",
    "deleted_at",
    "spice",
    "object",
    "relation",
    "attribute",
    "color",
    "count",
    "size",
    "bleu_4",
    "meteor",
    "rouge_l",
    "cider_d",
    "on_leaderboard",
    "front_end",
    "method_name",
    "paper_url",
    "code_url",
];

/// Writes every submission of a challenge as CSV, with `on_leaderboard` saying which ones are
/// their team's entry (ids in `entries`).
pub fn submissions_csv(
    lines: &[submissions::OrganizerLine],
    entries: &HashSet<i64>,
) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(SUBMISSIONS_CSV_COLUMNS)?;
    let num = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
    let time =
        |t: Option<chrono::DateTime<chrono::Utc>>| t.map(|t| t.to_rfc3339()).unwrap_or_default();
    for l in lines {
        let mut record = vec![
            l.id.to_string(),
            csv_cell(&l.split),
            l.kind.to_string(),
            csv_cell(&l.name),
            csv_cell(&l.description),
            l.status.to_string(),
            csv_cell(l.error.as_deref().unwrap_or_default()),
            l.created_at.to_rfc3339(),
            time(l.scored_at),
            time(l.deleted_at),
        ];
        record.extend(l.scores.in_order().map(num));
        record.push(entries.contains(&l.id).to_string());
        record.push(l.front_end.clone().unwrap_or_default());
        for text in [&l.method_name, &l.paper_url, &l.code_url] {
            record.push(csv_cell(text.as_deref().unwrap_or_default()));
        }
        w.write_record(&record)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use actix_web::ResponseError;

    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(
            [0, 999, 1000, 40504, 1234567, -1200].map(thousands),
            ["0", "999", "1,000", "40,504", "1,234,567", "-1,200"]
        );
    }

    #[tokio::test]
    async fn turns_refuse_with_their_own_message_once_all_are_taken_too_long() {
        let turns = Turns::new(
            2,
            std::time::Duration::from_millis(20),
            "the server is busy checking passwords; try again in a moment",
        );
        let first = turns.take().await.expect("a turn");
        let second = turns.take().await.expect("another");
        let refused = turns.take().await.err().map(|e| e.to_string());
        assert_eq!(
            refused.as_deref(),
            Some("the server is busy checking passwords; try again in a moment")
        );
        drop(first);
        assert!(
            turns.take().await.is_ok(),
            "a turn given back is taken again"
        );
        drop(second);
    }

    /// A panic off the async threads (here on purpose; in real life a bug in hashing or
    /// validation) is an internal error: a 500 on pages and in the API, never a 400 that blames
    /// the request.
    #[tokio::test]
    async fn a_crash_off_the_async_threads_is_an_internal_error() {
        let crashed = off_the_async_threads("validation", || -> u8 { panic!("a bug") }).await;
        let Err(e) = crashed else {
            panic!("a panic came back as a value");
        };
        assert!(matches!(&e, ActionError::Internal(m) if m.starts_with("validation crashed")));
        assert_eq!(
            crate::routes::PageError::from(e).status_code().as_u16(),
            500
        );
        let Err(e) = off_the_async_threads("password hashing", || -> u8 { panic!("a bug") }).await
        else {
            panic!("a panic came back as a value");
        };
        assert_eq!(
            crate::routes::api::ApiError::from(e).status_code().as_u16(),
            500
        );
        assert!(matches!(off_the_async_threads("work", || 7).await, Ok(7)));
    }
}

/// What a judgments upload did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct JudgmentsReport {
    pub set_id: i64,
    pub caption_judgments: usize,
    pub entry_judgments: usize,
    /// Columns in the agreement table.
    pub metrics: usize,
}

/// Imports human judgments for a split (format: `domain::judgments`) and computes, once, how
/// every leaderboard column agrees with them; both are stored together, with the scores each
/// judgment was correlated with (the page's scatter plots, `kept_scores`), so the agreement page
/// only reads. Caption judgments are scored as the worker scores a submission (the split's stored
/// references and CIDEr-D document frequencies); entry judgments are paired with the entries'
/// stored corpus scores, as the organizers' leaderboard shows them now. The scoring and the
/// bootstraps run off the async threads.
pub async fn import_judgments(
    pool: &PgPool,
    engine: &SharedEngine,
    split: &Split,
    uploaded_by: Option<i64>,
    bytes: Vec<u8>,
    max_bytes: u64,
    max_caption_chars: usize,
) -> Result<JudgmentsReport, ActionError> {
    use crate::domain::judgments::{JudgmentBounds, JudgmentsFile};
    let organizer = Viewer {
        organizer: true,
        team_id: None,
    };
    let board: Vec<leaderboard::Entry> = leaderboard(pool, split, SortKey::Spice, organizer)
        .await?
        .into_iter()
        .map(|r| r.entry)
        .collect();
    let ids = splits::image_ids(pool, split.id).await?;
    let named: Vec<(i64, String)> = board
        .iter()
        .map(|e| (e.submission_id, e.name.clone()))
        .collect();
    let split_name = split.name.clone();
    let size = bytes.len();
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let file = off_the_async_threads("judgments validation", move || {
        JudgmentsFile::parse(
            &bytes,
            JudgmentBounds {
                split_name: &split_name,
                split_images: &ids,
                entries: &named,
                max_bytes,
                max_caption_chars,
            },
        )
    })
    .await??;
    // Judged captions are scored against the split's reference graphs: by the front end that
    // built them, or not at all (scores of two front ends are not comparable).
    let front_end = scoring::front_end_name(engine);
    if !file.captions.is_empty() && front_end != split.front_end {
        return Err(ActionError::Invalid(format!(
            "split {}'s reference graphs were built by the {} front end, and this server parses \
             captions with the {front_end} one: re-score the split (`spiceboard challenge \
             rescore`) before importing judged captions",
            split.name, split.front_end
        )));
    }
    let refs = if file.captions.is_empty() {
        Vec::new()
    } else {
        splits::references(pool, split.id).await?
    };
    let stored_df = splits::cider_df(pool, split.id).await?;
    // Entries are correlated with their ratings among comparable scores only: the ranked ones.
    let split_front_end = split.front_end.clone();
    let engine = engine.clone();
    let mode = split.caption_mode;
    let (file, table, caption_scores, entry_scores) =
        off_the_async_threads("judgments scoring", move || {
            let caption_scores = if file.captions.is_empty() {
                Vec::new()
            } else {
                let df = stored_df
                    .as_deref()
                    .and_then(scoring::parse_cider_df)
                    .unwrap_or_else(|| scoring::stored_cider_df(&refs));
                scoring::judged_caption_scores(&engine, &refs, &file.captions, mode, &df)?
            };
            let entries: Vec<(f64, leaderboard::Entry)> = file
                .entries
                .iter()
                .filter_map(|j| {
                    board
                        .iter()
                        .find(|e| e.submission_id == j.submission_id)
                        .filter(|e| e.front_end == split_front_end)
                        .map(|e| (j.rating, e.clone()))
                })
                .collect();
            let table = scoring::agreement_table(&file.captions, &caption_scores, &entries);
            let (caption_maps, entry_maps) = kept_scores(&file, &caption_scores, &entries);
            Ok::<_, scoring::ScoringError>((file, table, caption_maps, entry_maps))
        })
        .await?
        .map_err(|e| ActionError::Invalid(format!("the judged captions cannot be scored: {e}")))?;
    let mut tx = pool.begin().await?;
    let set_id = crate::storage::judgments::insert(
        &mut tx,
        split.id,
        uploaded_by,
        size as i64,
        &sha256,
        &file,
        &table,
        &caption_scores,
        &entry_scores,
    )
    .await?;
    tx.commit().await?;
    Ok(JudgmentsReport {
        set_id,
        caption_judgments: file.captions.len(),
        entry_judgments: file.entries.len(),
        metrics: table.rows.len(),
    })
}

/// What `import_judgments` keeps beside each judgment for the agreement page's scatter plots:
/// a caption's score in every column (null where undefined), and an entry's corpus scores if it
/// entered the correlation (`entries`, those scored by the split's front end), else nothing.
fn kept_scores(
    file: &crate::domain::judgments::JudgmentsFile,
    caption_scores: &[(SortKey, Vec<f64>)],
    entries: &[(f64, leaderboard::Entry)],
) -> (Vec<ScoreMap>, Vec<ScoreMap>) {
    let captions = (0..file.captions.len())
        .map(|k| {
            caption_scores
                .iter()
                .map(|(key, values)| {
                    let v = values.get(k).copied().filter(|v| v.is_finite());
                    (key.name().to_string(), serde_json::json!(v))
                })
                .collect()
        })
        .collect();
    let entries = file
        .entries
        .iter()
        .map(|j| {
            entries
                .iter()
                .find(|(_, e)| e.submission_id == j.submission_id)
                .and_then(|(_, e)| match serde_json::to_value(e.scores) {
                    Ok(serde_json::Value::Object(m)) => Some(m),
                    _ => None,
                })
                .unwrap_or_default()
        })
        .collect();
    (captions, entries)
}

/// The stored agreement table of a split, as `viewer` may see it. A hidden split's table is the
/// organizers' alone: it is computed from the references (and the entries' scores) of a test set,
/// so anyone else gets `NoSplit`, the answer for a split that does not exist.
pub async fn agreement(
    pool: &PgPool,
    challenge: &Challenge,
    split: &Split,
    viewer: Viewer,
) -> Result<Option<crate::storage::judgments::StoredAgreement>, ActionError> {
    if !shows_per_image(split, viewer.organizer) {
        return Err(ActionError::NoSplit(
            challenge.slug.clone(),
            split.name.clone(),
        ));
    }
    Ok(crate::storage::judgments::current(pool, split.id).await?)
}

/// Sets the column that ranks the challenge's leaderboards when a page asks for no other.
pub async fn set_ranking_metric(
    pool: &PgPool,
    challenge: &Challenge,
    metric: &str,
) -> Result<SortKey, ActionError> {
    let key = SortKey::parse(Some(metric)).map_err(|e| ActionError::Invalid(e.to_string()))?;
    challenges::set_ranking_metric(pool, challenge.id, key).await?;
    Ok(key)
}

/// What deleting one version of a split takes with it (the confirmation page).
#[derive(Debug, Clone)]
pub struct SplitDeletion {
    pub split: Split,
    /// Whether it is the version the leaderboard shows.
    pub current: bool,
    pub contents: splits::Contents,
    /// The version of the same name the leaderboard shows once this one is gone, if any.
    pub current_after: Option<i32>,
}

/// Version `version` of split `name`, current or not.
async fn split_version(
    pool: &PgPool,
    challenge: &Challenge,
    name: &str,
    version: i32,
) -> Result<Split, ActionError> {
    let no_split =
        || ActionError::NoSplit(challenge.slug.clone(), format!("{name} version {version}"));
    if name.contains('\0') {
        return Err(no_split());
    }
    splits::version(pool, challenge.id, name, version)
        .await?
        .ok_or_else(no_split)
}

/// The version `version` of split `name` and what deleting it takes with it.
pub async fn split_deletion(
    pool: &PgPool,
    challenge: &Challenge,
    name: &str,
    version: i32,
) -> Result<SplitDeletion, ActionError> {
    let split = split_version(pool, challenge, name, version).await?;
    let contents = splits::contents(pool, &[split.id]).await?;
    let versions = splits::all_versions(pool, challenge.id).await?;
    let current = splits::current(pool, challenge.id, name).await?;
    let is_current = current.as_ref().is_some_and(|c| c.id == split.id);
    let current_after = if is_current {
        versions
            .iter()
            .filter(|s| s.name == split.name && s.id != split.id)
            .map(|s| s.version)
            .max()
    } else {
        current.map(|c| c.version)
    };
    Ok(SplitDeletion {
        split,
        current: is_current,
        contents,
        current_after,
    })
}

/// Attempts at a deletion that lost a race with a worker (a deadlock, which PostgreSQL breaks by
/// failing one side) before the error is returned.
const DELETION_ATTEMPTS: usize = 3;

/// Deletes version `version` of split `name` with its references, submissions, scores, jobs and
/// judgments (hard: nothing of it is worth keeping, and the schema cascades). The latest
/// remaining version of the name becomes current if this one was. A worker scoring one of its
/// submissions finds its job gone and drops its results. Returns the version now current.
pub async fn delete_split_version(
    pool: &PgPool,
    challenge: &Challenge,
    name: &str,
    version: i32,
) -> Result<Option<i32>, ActionError> {
    let split = split_version(pool, challenge, name, version).await?;
    let mut attempt = 1;
    loop {
        let done = async {
            let mut tx = pool.begin().await?;
            challenges::lock(&mut tx, challenge.id).await?;
            splits::lock_jobs(&mut tx, &[split.id]).await?;
            let current = splits::delete_version(&mut tx, &split).await?;
            tx.commit().await?;
            Ok::<_, sqlx::Error>(current)
        }
        .await;
        match done {
            Err(e) if crate::storage::transient(&e) && attempt < DELETION_ATTEMPTS => attempt += 1,
            other => return Ok(other?),
        }
    }
}

/// What deleting a whole challenge takes with it (the confirmation page).
#[derive(Debug, Clone)]
pub struct ChallengeDeletion {
    /// Every version of every split.
    pub splits: Vec<Split>,
    pub contents: splits::Contents,
    pub teams: challenges::TeamCounts,
}

pub async fn challenge_deletion(
    pool: &PgPool,
    challenge: &Challenge,
) -> Result<ChallengeDeletion, ActionError> {
    let splits = splits::all_versions(pool, challenge.id).await?;
    let ids: Vec<i64> = splits.iter().map(|s| s.id).collect();
    Ok(ChallengeDeletion {
        contents: splits::contents(pool, &ids).await?,
        teams: challenges::team_counts(pool, challenge.id).await?,
        splits,
    })
}

/// Deletes the challenge and everything of it (splits, references, teams, tokens, submissions,
/// scores, jobs), for good. `confirm` must be the challenge's slug, typed by the organizer.
pub async fn delete_challenge(
    pool: &PgPool,
    challenge: &Challenge,
    confirm: &str,
) -> Result<(), ActionError> {
    if confirm.trim() != challenge.slug {
        return Err(ActionError::Invalid(format!(
            "type the challenge's slug, {}, to delete it",
            challenge.slug
        )));
    }
    let mut attempt = 1;
    loop {
        let done = async {
            let mut tx = pool.begin().await?;
            if challenges::lock(&mut tx, challenge.id).await? {
                let ids: Vec<i64> = splits::all_versions(&mut *tx, challenge.id)
                    .await?
                    .iter()
                    .map(|s| s.id)
                    .collect();
                splits::lock_jobs(&mut tx, &ids).await?;
                challenges::delete(&mut *tx, challenge.id).await?;
            }
            tx.commit().await
        }
        .await;
        match done {
            Err(e) if crate::storage::transient(&e) && attempt < DELETION_ATTEMPTS => attempt += 1,
            other => return Ok(other?),
        }
    }
}

/// Whether `user` organizes challenge `challenge_id`: a site operator organizes every challenge,
/// anyone else those they are listed for (`storage::challenges::organizers`).
pub async fn organizes(
    pool: &PgPool,
    user: Option<&accounts::User>,
    challenge_id: i64,
) -> Result<bool, ActionError> {
    Ok(match user {
        None => false,
        Some(u) if u.is_admin => true,
        Some(u) => challenges::organizes(pool, challenge_id, u.id).await?,
    })
}

/// The challenges `user` organizes: all of them for a site operator.
pub async fn organized_challenges(
    pool: &PgPool,
    user: &accounts::User,
) -> Result<Vec<Challenge>, ActionError> {
    Ok(if user.is_admin {
        challenges::list(pool).await?
    } else {
        challenges::organized_by(pool, user.id).await?
    })
}

/// Makes the account with e-mail address `email` an organizer of the challenge (it must exist:
/// the person signs up first). Returns the account, and false if it was an organizer already.
pub async fn add_organizer(
    pool: &PgPool,
    challenge: &Challenge,
    email: &str,
    by: Option<&accounts::User>,
) -> Result<(accounts::User, bool), ActionError> {
    let email = email.trim().to_lowercase();
    if email.contains('\0') {
        return Err(ActionError::NoAccount(email));
    }
    let user = accounts::user_by_email(pool, &email)
        .await?
        .ok_or(ActionError::NoAccount(email))?;
    let added = challenges::add_organizer(pool, challenge.id, user.id, by.map(|u| u.id)).await?;
    Ok((user, added))
}

/// Removes an organizer of the challenge, never the last one. Returns their e-mail address.
pub async fn remove_organizer(
    pool: &PgPool,
    challenge: &Challenge,
    user_id: i64,
) -> Result<String, ActionError> {
    let email = challenges::organizers(pool, challenge.id)
        .await?
        .into_iter()
        .find(|o| o.user_id == user_id)
        .map(|o| o.email)
        .ok_or_else(|| {
            ActionError::Invalid(format!(
                "account {user_id} is no organizer of this challenge"
            ))
        })?;
    let mut tx = pool.begin().await?;
    match challenges::remove_organizer(&mut tx, challenge.id, user_id).await? {
        challenges::Removal::Removed => {
            tx.commit().await?;
            Ok(email)
        }
        challenges::Removal::Last => Err(ActionError::LastOrganizer(email)),
        challenges::Removal::NotOrganizer => Err(ActionError::Invalid(format!(
            "{email} is no organizer of this challenge"
        ))),
    }
}

/// How long a one-time operator code works, in minutes.
pub const OPERATOR_CODE_MINUTES: i64 = 60;

/// Wrong codes entered (by anyone) after which the live codes work no more.
pub const OPERATOR_CODE_GUESSES: i32 = 5;

/// The letters of an operator code: no 0/O or 1/I/L to misread on a console.
const OPERATOR_CODE_LETTERS: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A code as people type it: letters only, upper case (spaces, dashes and case do not count).
fn normalized_code(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// A new one-time code that makes whoever enters it (logged in, on `/operator`) a site operator,
/// if the site has none; `None` if it has one. Only the code's SHA-256 is stored. The code is
/// 16 letters of 31 (about 79 bits), shown in groups of four.
pub async fn operator_code(pool: &PgPool) -> Result<Option<String>, ActionError> {
    if accounts::any_operator(pool).await? {
        return Ok(None);
    }
    let code: String = {
        use rand::Rng;
        let mut rng = rand::rngs::OsRng;
        (0..16)
            .map(|_| OPERATOR_CODE_LETTERS[rng.gen_range(0..OPERATOR_CODE_LETTERS.len())] as char)
            .collect()
    };
    accounts::create_operator_code(pool, &auth::token_hash(&code), OPERATOR_CODE_MINUTES).await?;
    let groups: Vec<&str> = (0..4).map(|i| &code[i * 4..i * 4 + 4]).collect();
    Ok(Some(groups.join("-")))
}

/// Whether the site has a site operator yet (the operator-code page exists only while not).
pub async fn has_operator(pool: &PgPool) -> Result<bool, ActionError> {
    Ok(accounts::any_operator(pool).await?)
}

/// Makes `user` a site operator with a one-time code from `operator_code`.
pub async fn become_operator(
    pool: &PgPool,
    user: &accounts::User,
    code: &str,
) -> Result<(), ActionError> {
    let hash = auth::token_hash(&normalized_code(code));
    let mut tx = pool.begin().await?;
    let redeemed =
        accounts::redeem_operator_code(&mut tx, &hash, user.id, OPERATOR_CODE_GUESSES).await?;
    // The count of a wrong guess is kept, whatever the answer.
    tx.commit().await?;
    match redeemed {
        accounts::Redeemed::Operator => {
            tracing::info!(
                user = user.id,
                "a site operator was made with the one-time code"
            );
            Ok(())
        }
        accounts::Redeemed::OperatorExists => Err(ActionError::OperatorExists),
        accounts::Redeemed::NoSuchCode => Err(ActionError::NoOperatorCode),
        accounts::Redeemed::Locked => {
            tracing::warn!(
                "the one-time operator code had {OPERATOR_CODE_GUESSES} wrong guesses and works no more; \
                 start `serve` again for a new one"
            );
            Err(ActionError::OperatorCodeLocked)
        }
    }
}
