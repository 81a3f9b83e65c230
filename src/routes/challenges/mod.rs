//! A challenge's overview, teams (creating, invite links, joining, leaving) and API tokens, and its
//! leaderboard (HTML, CSV, JSON).

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sqlx::PgPool;

use super::forms::{Member, Posted};
use super::home::html;
use super::view::{absolute, p_value, private, score, signed};
use super::{Layout, PageError};
use crate::actions::{self, Viewer};
use crate::auth::{self, MaybeUser};
use crate::charts;
use crate::domain::leaderboard::{RankedEntry, SortKey};
use crate::domain::{CaptionMode, SubmissionKind, TeamName};
use crate::storage::accounts::{self, TokenInfo};
use crate::storage::challenges::{self, Challenge};
use crate::storage::judgments::{JudgedCaption, JudgedEntry, ScoreMap};
use crate::storage::leaderboard::Entry;
use crate::storage::splits::{self, Split};

/// Who is looking: organizer, and the team they belong to in this challenge.
pub async fn viewer(
    pool: &PgPool,
    challenge: &Challenge,
    user: Option<&accounts::User>,
) -> Result<Viewer, sqlx::Error> {
    let Some(user) = user else {
        return Ok(Viewer::default());
    };
    let team = accounts::team_of_user(pool, challenge.id, user.id).await?;
    Ok(Viewer {
        organizer: user.is_admin || challenges::organizes(pool, challenge.id, user.id).await?,
        team_id: team.map(|t| t.id),
    })
}

#[derive(Template)]
#[template(path = "challenge.html")]
struct Overview {
    layout: Layout,
    challenge: Challenge,
    splits: Vec<Split>,
    team: Option<accounts::Team>,
    members: Vec<String>,
    /// The team's invite link, shown to its members only.
    invite_link: Option<String>,
    tokens: Vec<TokenInfo>,
    new_token: Option<String>,
    coco_mode: bool,
    /// When submissions open and close, with the time left (`None`: no bounds).
    phase: Option<String>,
    /// The next open or close (RFC 3339), for the page's countdown script.
    phase_until: Option<String>,
    /// Each split's upload window, in the order of `splits`.
    split_windows: Vec<String>,
    /// A team form that failed: why, and the name as typed.
    failed: Option<FailedTeam>,
    /// The upload API's address as this browser reaches the server, and the split the snippet
    /// names (the first public one, as on the submit form).
    api_url: String,
    default_split: String,
    /// The file size limit in the unit that fits ("20.0 MB").
    max_size: String,
}

/// The team form as it was sent, shown again with its error.
struct FailedTeam {
    error: String,
    name: String,
}

pub async fn overview(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    render_overview(&req, &pool, user.0.as_ref(), &slug, None, None).await
}

async fn render_overview(
    req: &HttpRequest,
    pool: &PgPool,
    user: Option<&accounts::User>,
    slug: &str,
    new_token: Option<String>,
    failed: Option<FailedTeam>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(pool, slug).await?;
    let splits = splits::list_current(pool, challenge.id).await?;
    let team = match user {
        Some(u) => accounts::team_of_user(pool, challenge.id, u.id).await?,
        None => None,
    };
    let (tokens, members, invite_link) = match &team {
        Some(t) => (
            accounts::tokens_of_team(pool, t.id).await?,
            accounts::members_of_team(pool, t.id).await?,
            Some(absolute(
                req,
                &format!(
                    "/c/{}/join/{}",
                    challenge.slug,
                    accounts::invite_code(pool, t.id).await?
                ),
            )),
        ),
        None => (Vec::new(), Vec::new(), None),
    };
    let coco_mode = splits.iter().any(|s| s.caption_mode == CaptionMode::Coco);
    let now = chrono::Utc::now();
    let phase = challenge.phase_summary(now);
    let phase_until = challenge.countdown_until(now);
    let split_windows = splits
        .iter()
        .map(|s| challenge.phase_of(&s.name).description(now))
        .collect();
    let status = if failed.is_some() {
        actix_web::http::StatusCode::BAD_REQUEST
    } else {
        actix_web::http::StatusCode::OK
    };
    let default_split = actions::default_split(&splits)
        .map(|s| s.name.clone())
        .unwrap_or_default();
    let api_url = absolute(req, &format!("/api/c/{}/submissions", challenge.slug));
    let page = Overview {
        layout: Layout::new(req, user),
        phase,
        phase_until,
        split_windows,
        failed,
        api_url,
        default_split,
        max_size: super::view::size_text(challenge.max_file_bytes),
        challenge,
        splits,
        team,
        members,
        invite_link,
        tokens,
        new_token,
        coco_mode,
    };
    let res = HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(page.render()?);
    Ok(private(res))
}

#[derive(Deserialize)]
pub struct TeamForm {
    name: String,
}

pub async fn create_team(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted {
        by: Member(u),
        form,
    }: Posted<Member, TeamForm>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let created = match TeamName::parse(&form.name) {
        Ok(name) => actions::create_team(&pool, &challenge, &name, Some(u.id)).await,
        Err(e) => Err(actions::ActionError::Invalid(e.to_string())),
    };
    match created {
        Ok((_, token)) => render_overview(&req, &pool, Some(&u), &slug, Some(token), None).await,
        Err(e @ (actions::ActionError::Invalid(_) | actions::ActionError::TeamExists(_))) => {
            let failed = FailedTeam {
                error: e.to_string(),
                name: form.name.clone(),
            };
            render_overview(&req, &pool, Some(&u), &slug, None, Some(failed)).await
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Template)]
#[template(path = "join.html")]
struct JoinPage {
    layout: Layout,
    challenge: Challenge,
    team: accounts::Team,
    code: String,
    /// The visitor's team in this challenge, if they have one (then they cannot join).
    current: Option<accounts::Team>,
}

/// An invite link: the team's name and a Join button (for a visitor in no team of the challenge).
pub async fn join_form(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, PageError> {
    let (slug, code) = path.into_inner();
    let challenge = actions::challenge(&pool, &slug).await?;
    let team = actions::invited_team(&pool, &challenge, &code).await?;
    let current = match &user.0 {
        Some(u) => accounts::team_of_user(pool.get_ref(), challenge.id, u.id).await?,
        None => None,
    };
    let page = JoinPage {
        layout: Layout::new(&req, user.0.as_ref()),
        challenge,
        team,
        code,
        current,
    };
    Ok(private(html(page.render()?)))
}

/// Joins the team of an invite link, then shows the challenge page.
pub async fn join(
    pool: web::Data<PgPool>,
    path: web::Path<(String, String)>,
    Posted { by: Member(u), .. }: Posted<Member>,
) -> Result<HttpResponse, PageError> {
    let (slug, code) = path.into_inner();
    let challenge = actions::challenge(&pool, &slug).await?;
    actions::join_team(&pool, &challenge, &code, u.id).await?;
    Ok(to_challenge(&challenge))
}

#[derive(Template)]
#[template(path = "leave.html")]
struct LeavePage {
    layout: Layout,
    challenge: Challenge,
    team: accounts::Team,
    /// Nobody stays: every token of the team stops working.
    last: bool,
}

/// What leaving the team does, and the button that does it: leaving revokes tokens and replaces
/// the invite link, so it is never one click away.
pub async fn leave_form(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let Some(user) = user.0 else {
        return Ok(HttpResponse::SeeOther()
            .insert_header((
                actix_web::http::header::LOCATION,
                format!("/login?next=/c/{}/team/leave", challenge.slug),
            ))
            .finish());
    };
    let team = accounts::team_of_user(pool.get_ref(), challenge.id, user.id)
        .await?
        .ok_or(actions::ActionError::NotInTeam)?;
    let last = accounts::members_of_team(pool.get_ref(), team.id)
        .await?
        .len()
        <= 1;
    let page = LeavePage {
        layout: Layout::new(&req, Some(&user)),
        challenge,
        team,
        last,
    };
    Ok(private(html(page.render()?)))
}

/// Leaves the user's team of the challenge (the team's invite code changes).
pub async fn leave_team(
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted { by: Member(u), .. }: Posted<Member>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    actions::leave_team(&pool, &challenge, u.id).await?;
    Ok(to_challenge(&challenge))
}

/// Gives the user's team a new invite code; links with the old one stop working.
pub async fn renew_invite(
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted { by: Member(u), .. }: Posted<Member>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    actions::renew_invite(&pool, &challenge, u.id).await?;
    Ok(to_challenge(&challenge))
}

fn to_challenge(challenge: &Challenge) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((
            actix_web::http::header::LOCATION,
            format!("/c/{}", challenge.slug),
        ))
        .finish()
}

#[derive(Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    label: String,
}

pub async fn create_token(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    slug: web::Path<String>,
    Posted {
        by: Member(u),
        form,
    }: Posted<Member, TokenForm>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let team = accounts::team_of_user(pool.get_ref(), challenge.id, u.id)
        .await?
        .ok_or(PageError::Forbidden)?;
    let token = auth::new_token();
    let label: String = form.label.trim().chars().take(80).collect();
    let hash = auth::token_hash(&token);
    accounts::create_api_token(pool.get_ref(), team.id, Some(u.id), &hash, &label).await?;
    render_overview(&req, &pool, Some(&u), &slug, Some(token), None).await
}

/// Revokes one of the team's API tokens: it stops working at once.
pub async fn revoke_token(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    path: web::Path<(String, i64)>,
    Posted { by: Member(u), .. }: Posted<Member>,
) -> Result<HttpResponse, PageError> {
    let (slug, token_id) = path.into_inner();
    let challenge = actions::challenge(&pool, &slug).await?;
    let team = accounts::team_of_user(pool.get_ref(), challenge.id, u.id)
        .await?
        .ok_or(PageError::Forbidden)?;
    actions::revoke_token(&pool, Some(team.id), token_id).await?;
    render_overview(&req, &pool, Some(&u), &slug, None, None).await
}

#[derive(Deserialize)]
pub struct BoardQuery {
    split: Option<String>,
    sort: Option<String>,
}

/// The split a leaderboard shows: the one asked for, else the first revealed one, else the first.
async fn pick_split(
    pool: &PgPool,
    challenge: &Challenge,
    name: Option<&str>,
) -> Result<(Split, Vec<Split>), PageError> {
    let all = splits::list_current(pool, challenge.id).await?;
    let chosen = match name {
        Some(n) if !n.is_empty() => all
            .iter()
            .find(|s| s.name == n)
            .cloned()
            .ok_or(PageError::NotFound)?,
        _ => actions::default_split(&all)
            .cloned()
            .ok_or(PageError::NotFound)?,
    };
    Ok((chosen, all))
}

struct Row {
    submission_id: i64,
    /// The 95 % interval of the ranking column, "–" where there is none.
    interval: String,
    /// Not significantly different from the row above; `p` is the test's p-value.
    tied: bool,
    p: String,
    /// The comparison of the row above (A) with this one (B).
    compare: Option<String>,
    /// The rank, or "–" for an entry scored by another front end than the split's.
    rank: String,
    ranked: bool,
    /// The first row scored by another front end: a heading row goes before it.
    first_unranked: bool,
    /// The front end that scored the entry.
    front_end: String,
    kind: SubmissionKind,
    name: String,
    link: Option<String>,
    /// The method under the name, and its paper and code links, as the team gave them.
    method_name: Option<String>,
    paper_url: Option<String>,
    code_url: Option<String>,
    /// The row of the viewer's own team (marked "your team").
    own_team: bool,
    cells: Vec<Cell>,
    /// When the entry was scored (UTC day) and how many scored submissions its team has here.
    date: String,
    entries: String,
}

/// One score of a row: three decimals, or "–" with `undefined` saying why there is no number.
struct Cell {
    text: String,
    undefined: Option<String>,
    /// Why a SPICE score is exactly 0 (its tooltip), from the tuple counts.
    zero: Option<String>,
}

impl Cell {
    /// The engine stores an undefined F as NULL (NaN in `spice::score`: no image's references
    /// have a tuple of the kind, so there is nothing to recall); a stored 0 is a real 0.
    fn new(key: SortKey, entry: &Entry) -> Cell {
        let value = key.value(entry);
        let undefined = match value {
            Some(v) if v.is_finite() => None,
            _ if key == SortKey::Spice => Some(
                "undefined, not 0: the references of this entry's images have no tuples".into(),
            ),
            _ if key.is_spice() => Some(format!(
                "undefined, not 0: the references have no {} tuples, so there is nothing to find",
                key.title().to_lowercase()
            )),
            _ => Some(format!("{} was not computed for this entry", key.title())),
        };
        Cell {
            text: score(value),
            undefined,
            zero: Cell::why_zero(key, entry, value),
        }
    }

    /// A SPICE F of exactly 0 is a real score, but of two kinds the tuple counts tell apart.
    fn why_zero(key: SortKey, entry: &Entry, value: Option<f64>) -> Option<String> {
        let at = key.spice_index().filter(|_| value == Some(0.0))?;
        let count = |v: &[Option<i64>]| v.get(at).copied().flatten();
        let (tp, fp) = (count(&entry.tp)?, count(&entry.fp)?);
        let kind = match key {
            SortKey::Spice => String::new(),
            k => format!("{} ", k.title().to_lowercase()),
        };
        Some(match (tp, fp) {
            (0, 0) => format!(
                "0, a real score: the captions gave no {kind}tuples, the references have some"
            ),
            (0, n) => format!("0, a real score: none of the captions' {n} {kind}tuples matched"),
            _ => return None,
        })
    }
}

struct Column {
    key: &'static str,
    /// The short header and the full name (its tooltip and the key under the table).
    short: &'static str,
    title: &'static str,
    active: bool,
}

#[derive(Template)]
#[template(path = "leaderboard.html")]
struct Board {
    layout: Layout,
    challenge: Challenge,
    split: Split,
    splits: Vec<Split>,
    columns: Vec<Column>,
    rows: Vec<Row>,
    sort: &'static str,
    sort_title: &'static str,
    hidden_notice: bool,
    /// Entries may be compared (see `actions::compare`).
    comparable: bool,
    /// The viewer may see the split's metric agreement page (see `actions::agreement`).
    agreement: bool,
    /// The title of the challenge's ranking column (the default sort).
    ranking_title: &'static str,
    /// Entries scored by another front end than the split's (listed unranked).
    unranked: usize,
    /// Which kinds of rows the legend under the table explains.
    has_baseline: bool,
    has_human: bool,
    has_undefined: bool,
    has_own: bool,
    /// The best team entry over time (none while the table is empty).
    chart: Option<charts::Chart>,
}

/// The leaderboard's chart: the ranked team entries by the time they were scored, in the
/// challenge's ranking column, with the ranked Human and baseline rows as levels across.
fn best_over_time(challenge: &Challenge, split: &Split, entries: &[RankedEntry]) -> charts::Chart {
    let key = challenge.ranking_key();
    let ranked = entries
        .iter()
        .filter(|r| r.rank.is_some())
        .map(|r| &r.entry);
    let dated: Vec<charts::Dated<'_>> = ranked
        .clone()
        .filter(|e| e.kind == SubmissionKind::Team)
        .filter_map(|e| {
            Some(charts::Dated {
                name: &e.name,
                at: e.scored_at?,
                score: key.value(e),
            })
        })
        .collect();
    let levels: Vec<charts::Level<'_>> = ranked
        .filter_map(|e| {
            let (kind, name) = match e.kind {
                SubmissionKind::Human => ("Human", ""),
                SubmissionKind::Baseline => ("Baseline", e.name.as_str()),
                SubmissionKind::Team => return None,
            };
            Some(charts::Level {
                kind,
                name,
                score: key.value(e).filter(|v| v.is_finite())?,
            })
        })
        .collect();
    charts::best_over_time("best-chart", key.title(), &split.name, &dated, &levels)
}

/// Who is looking at a leaderboard: a session's user, or a team's API token.
async fn board_viewer(
    req: &HttpRequest,
    pool: &PgPool,
    user: &MaybeUser,
    challenge: &Challenge,
) -> Result<Viewer, PageError> {
    let mut viewer = viewer(pool, challenge, user.0.as_ref()).await?;
    if viewer.team_id.is_none() {
        if let Some(holder) = auth::team_from_bearer(pool, req).await? {
            if holder.team.challenge_id == challenge.id {
                viewer.team_id = Some(holder.team.id);
            }
        }
    }
    Ok(viewer)
}

async fn ranked(
    req: &HttpRequest,
    pool: &PgPool,
    user: &MaybeUser,
    slug: &str,
    q: &BoardQuery,
) -> Result<
    (
        Challenge,
        Split,
        Vec<Split>,
        Vec<RankedEntry>,
        SortKey,
        Viewer,
    ),
    PageError,
> {
    let challenge = actions::challenge(pool, slug).await?;
    let (split, all) = pick_split(pool, &challenge, q.split.as_deref()).await?;
    let viewer = board_viewer(req, pool, user, &challenge).await?;
    // No `sort=`: the column the organizers chose to rank the challenge.
    let sort = SortKey::parse_or(q.sort.as_deref(), challenge.ranking_key())
        .map_err(|e| PageError::BadRequest(e.to_string()))?;
    let rows = actions::leaderboard(pool, &split, sort, viewer).await?;
    Ok((challenge, split, all, rows, sort, viewer))
}

pub async fn leaderboard(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
    q: web::Query<BoardQuery>,
) -> Result<HttpResponse, PageError> {
    let (challenge, split, splits, entries, sort, viewer) =
        ranked(&req, &pool, &user, &slug, &q).await?;
    let classic = entries
        .iter()
        .any(|e| e.entry.scores.bleu_4.is_some() || e.entry.scores.cider_d.is_some());
    // METEOR only where the server computed it (it needs the data of scripts/fetch-data).
    let meteor = entries.iter().any(|e| e.entry.scores.meteor.is_some());
    let keys: Vec<SortKey> = SortKey::ALL
        .into_iter()
        .filter(|k| match k {
            SortKey::Meteor => meteor,
            SortKey::Bleu4 | SortKey::RougeL | SortKey::CiderD => classic,
            _ => true,
        })
        .collect();
    let uncertainty =
        actions::leaderboard_uncertainty(&pool, &split, viewer, &entries, sort).await?;
    let comparable = actions::shows_per_image(&split, viewer.organizer);
    let rows: Vec<Row> = entries
        .iter()
        .zip(&uncertainty)
        .enumerate()
        .map(|(k, (r, u))| {
            let own = viewer.organizer
                || (r.entry.team_id.is_some() && r.entry.team_id == viewer.team_id);
            Row {
                submission_id: r.entry.submission_id,
                interval: match u.interval {
                    Some((lo, hi)) => format!("{} – {}", score(Some(lo)), score(Some(hi))),
                    None => score(None),
                },
                tied: u.tied_with_above,
                p: format!("{:.2}", u.p_above.unwrap_or(f64::NAN)),
                compare: k
                    .checked_sub(1)
                    .filter(|&j| comparable && r.rank.is_some() && entries[j].rank.is_some())
                    .map(|j| {
                        format!(
                            "/c/{}/compare?split={}&a={}&b={}",
                            challenge.slug,
                            split.name,
                            entries[j].entry.submission_id,
                            r.entry.submission_id
                        )
                    }),
                rank: r.rank.map_or_else(|| "–".to_string(), |n| n.to_string()),
                ranked: r.rank.is_some(),
                first_unranked: r.rank.is_none() && (k == 0 || entries[k - 1].rank.is_some()),
                front_end: r.entry.front_end.clone(),
                kind: r.entry.kind,
                name: r.entry.name.clone(),
                link: (own || r.entry.kind != SubmissionKind::Team)
                    .then(|| format!("/s/{}", r.entry.submission_id)),
                method_name: r.entry.method_name.clone(),
                paper_url: r.entry.paper_url.clone(),
                code_url: r.entry.code_url.clone(),
                own_team: r.entry.team_id.is_some() && r.entry.team_id == viewer.team_id,
                cells: keys.iter().map(|k| Cell::new(*k, &r.entry)).collect(),
                date: r
                    .entry
                    .scored_at
                    .map(|t| t.format("%Y-%m-%d").to_string())
                    .unwrap_or_default(),
                entries: match r.entry.kind {
                    SubmissionKind::Team => r.entry.entries.to_string(),
                    _ => String::new(),
                },
            }
        })
        .collect();
    let columns = keys
        .iter()
        .map(|k| Column {
            key: k.name(),
            short: k.short_title(),
            title: k.title(),
            active: *k == sort,
        })
        .collect();
    let ranked = rows.iter().filter(|r| r.ranked).count();
    let chart = (!entries.is_empty()).then(|| best_over_time(&challenge, &split, &entries));
    let page = Board {
        chart,
        has_baseline: rows.iter().any(|r| r.kind == SubmissionKind::Baseline),
        has_human: rows.iter().any(|r| r.kind == SubmissionKind::Human),
        has_own: rows.iter().any(|r| r.own_team),
        has_undefined: rows
            .iter()
            .any(|r| r.cells.iter().any(|c| c.undefined.is_some())),
        layout: Layout::new(&req, user.0.as_ref()),
        hidden_notice: split.hidden && !viewer.organizer,
        comparable: comparable && ranked > 1,
        unranked: rows.len() - ranked,
        agreement: comparable,
        ranking_title: challenge.ranking_key().title(),
        challenge,
        split,
        splits,
        columns,
        rows,
        sort: sort.name(),
        sort_title: sort.title(),
    };
    Ok(html(page.render()?))
}

/// `leaderboard.csv`: columns `actions::CSV_COLUMNS`, ranked by `sort`.
pub async fn leaderboard_csv(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
    q: web::Query<BoardQuery>,
) -> Result<HttpResponse, PageError> {
    let (challenge, split, _, entries, _, _) = ranked(&req, &pool, &user, &slug, &q).await?;
    let body = actions::leaderboard_csv(&entries).map_err(|e| PageError::Internal(e.into()))?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!(
                "attachment; filename=\"{}-{}-leaderboard.csv\"",
                challenge.slug, split.name
            ),
        ))
        .body(body))
}

/// One entry of `leaderboard.json`: public fields only (a team's description and ids stay private).
#[derive(serde::Serialize)]
struct PublicEntry<'a> {
    #[serde(flatten)]
    scores: PublicScores<'a>,
    /// The 95 % bootstrap interval of the ranking column, `[low, high]`, or null.
    interval: Option<[f64; 2]>,
    /// The paired-bootstrap p-value of the difference from the entry above, where tested.
    p_above: Option<f64>,
    /// Not significantly different from the entry above (p >= 0.05).
    tied_with_above: bool,
}

#[derive(serde::Serialize)]
struct PublicScores<'a> {
    /// Null for an entry scored by another front end than the split's (listed, unranked).
    rank: Option<usize>,
    /// The front end that scored the entry.
    front_end: &'a str,
    kind: SubmissionKind,
    name: &'a str,
    submission_id: i64,
    scored_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The team's scored submissions on this split (0 for baseline and Human rows).
    entries: i64,
    #[serde(flatten)]
    scores: crate::storage::Scores,
    /// The method behind the entry and its links, as its team gave them (null: not given).
    method_name: Option<&'a str>,
    paper_url: Option<&'a str>,
    code_url: Option<&'a str>,
}

impl<'a> From<&'a RankedEntry> for PublicScores<'a> {
    fn from(r: &'a RankedEntry) -> Self {
        let e = &r.entry;
        PublicScores {
            rank: r.rank,
            front_end: &e.front_end,
            kind: e.kind,
            name: &e.name,
            submission_id: e.submission_id,
            scored_at: e.scored_at,
            entries: e.entries,
            scores: e.scores,
            method_name: e.method_name.as_deref(),
            paper_url: e.paper_url.as_deref(),
            code_url: e.code_url.as_deref(),
        }
    }
}

/// `leaderboard.json`: `{"challenge", "split", "split_version", "front_end", "hidden", "sort",
/// "columns", "entries": [{rank, front_end, kind, name, submission_id, scored_at, spice, object,
/// ..., method_name, paper_url, code_url, interval, p_above, tied_with_above}]}`; a missing score is `null`; `interval` is the
/// ranking column's (see `actions::leaderboard_uncertainty`); the split's `front_end` built its
/// reference graphs, and an entry scored by another has `rank` null (listed after the ranked ones).
pub async fn leaderboard_json(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
    q: web::Query<BoardQuery>,
) -> Result<HttpResponse, PageError> {
    let (challenge, split, _, entries, sort, viewer) =
        ranked(&req, &pool, &user, &slug, &q).await?;
    let uncertainty =
        actions::leaderboard_uncertainty(&pool, &split, viewer, &entries, sort).await?;
    let public: Vec<PublicEntry> = entries
        .iter()
        .zip(&uncertainty)
        .map(|(r, u)| PublicEntry {
            scores: PublicScores::from(r),
            interval: u.interval.map(|(lo, hi)| [lo, hi]),
            p_above: u.p_above,
            tied_with_above: u.tied_with_above,
        })
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "challenge": challenge.slug,
        "split": split.name,
        "split_version": split.version,
        "front_end": split.front_end,
        "hidden": split.hidden,
        "sort": sort.name(),
        "columns": actions::CSV_COLUMNS,
        "entries": public,
    })))
}

#[derive(Deserialize)]
pub struct CompareQuery {
    split: Option<String>,
    a: i64,
    b: i64,
}

struct DifferenceRow {
    title: &'static str,
    a: String,
    b: String,
    difference: String,
    interval: String,
    p: String,
    significant: bool,
}

struct ImageRow {
    image_id: i64,
    a: String,
    b: String,
    difference: String,
}

#[derive(Template)]
#[template(path = "compare.html")]
struct ComparePage {
    layout: Layout,
    challenge: Challenge,
    split: Split,
    a: String,
    b: String,
    images: usize,
    rows: Vec<DifferenceRow>,
    most_different: Vec<ImageRow>,
    /// The per-image SPICE differences as a histogram.
    chart: charts::Chart,
}

/// `/c/{slug}/compare?split=..&a=..&b=..`: two entries of a split's leaderboard, as the viewer
/// sees it, compared column by column (see `actions::compare`).
pub async fn compare(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
    q: web::Query<CompareQuery>,
    config: web::Data<crate::startup::AppConfig>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let (split, _) = pick_split(&pool, &challenge, q.split.as_deref()).await?;
    let viewer = board_viewer(&req, &pool, &user, &challenge).await?;
    let view = actions::compare(&pool, &split, viewer, q.a, q.b, &config.comparisons).await?;
    let c = &view.comparison;
    let rows = c
        .columns
        .iter()
        .filter(|d| d.a.is_some() || d.b.is_some())
        .map(|d| DifferenceRow {
            title: d.metric.title(),
            a: score(d.a),
            b: score(d.b),
            difference: signed(d.difference),
            interval: match d.low.zip(d.high) {
                Some((lo, hi)) => format!("{} – {}", signed(Some(lo)), signed(Some(hi))),
                None => score(None),
            },
            p: p_value(d.p),
            significant: d.p.is_some_and(|p| p < crate::domain::uncertainty::ALPHA),
        })
        .collect();
    let most_different = c
        .most_different
        .iter()
        .map(|i| ImageRow {
            image_id: i.image_id,
            a: score(Some(i.a)),
            b: score(Some(i.b)),
            difference: signed(Some(i.a - i.b)),
        })
        .collect();
    let chart = charts::histogram(
        "differences-chart",
        &view.a.entry.name,
        &view.b.entry.name,
        &c.spice_differences,
    );
    let page = ComparePage {
        layout: Layout::new(&req, user.0.as_ref()),
        chart,
        a: view.a.entry.name.clone(),
        b: view.b.entry.name.clone(),
        images: c.images,
        rows,
        most_different,
        challenge,
        split,
    };
    Ok(html(page.render()?))
}

#[derive(Deserialize)]
pub struct AgreementQuery {
    split: Option<String>,
}

/// One row of the agreement table as the page shows it.
pub struct AgreementLine {
    pub key: String,
    pub title: &'static str,
    pub ranking: bool,
    pub captions: usize,
    pub pairs: usize,
    pub tau_c: String,
    pub tau_b: String,
    pub spearman: String,
    pub entries: usize,
    pub pearson: String,
}

/// "0.452 [0.401, 0.498]", "–" when undefined.
fn estimate(e: Option<&crate::domain::judgments::Estimate>) -> String {
    match e {
        Some(e) => format!(
            "{} [{}, {}]",
            score(e.value),
            score(e.ci[0]),
            score(e.ci[1])
        ),
        None => score(None),
    }
}

/// The agreement table's rows, the challenge's ranking column marked.
pub fn agreement_lines(
    table: &crate::domain::judgments::AgreementTable,
    ranking: SortKey,
) -> Vec<AgreementLine> {
    table
        .rows
        .iter()
        .map(|r| {
            let key = SortKey::parse(Some(&r.metric)).ok();
            AgreementLine {
                key: r.metric.clone(),
                title: key.map_or("?", SortKey::title),
                ranking: key == Some(ranking),
                captions: r.captions,
                pairs: r.pairs,
                tau_c: estimate(r.tau_c.as_ref()),
                tau_b: estimate(r.tau_b.as_ref()),
                spearman: estimate(r.spearman.as_ref()),
                entries: r.entries,
                pearson: estimate(r.pearson_system.as_ref()),
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "agreement.html")]
struct AgreementPage {
    layout: Layout,
    challenge: Challenge,
    split: Split,
    splits: Vec<Split>,
    organizer: bool,
    ranking_title: &'static str,
    table: Option<crate::domain::judgments::AgreementTable>,
    uploaded: String,
    lines: Vec<AgreementLine>,
    /// Per column of the table, its score against the ratings: caption level, entry level.
    caption_charts: Vec<charts::Chart>,
    entry_charts: Vec<charts::Chart>,
    /// The judgments were uploaded before their scores were kept: no charts until uploaded again.
    charts_missing: bool,
}

/// The agreement page's scatter plots, one per row of its table: each (caption, rating) pair the
/// row's τ and ρ correlate, and each judged entry its Pearson r correlates.
fn agreement_charts(
    lines: &[AgreementLine],
    captions: &[JudgedCaption],
    entries: &[JudgedEntry],
) -> (Vec<charts::Chart>, Vec<charts::Chart>) {
    let value = |scores: &ScoreMap, key: &str| {
        scores
            .get(key)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(f64::NAN)
    };
    let caption_charts = lines
        .iter()
        .filter(|l| l.captions > 0)
        .map(|l| {
            let points: Vec<charts::Point<'_>> = captions
                .iter()
                .flat_map(|c| {
                    let score = c.scores.as_ref().map_or(f64::NAN, |m| value(m, &l.key));
                    c.ratings.iter().map(move |&rating| charts::Point {
                        score,
                        rating,
                        name: None,
                    })
                })
                .collect();
            let summary = format!("Kendall τ-c {}; Spearman ρ {}.", l.tau_c, l.spearman);
            let id = format!("scatter-{}", l.key);
            charts::scatter(&id, l.title, "(caption, rating) pairs", &points, &summary)
        })
        .collect();
    let entry_charts = lines
        .iter()
        .filter(|l| l.entries > 0)
        .map(|l| {
            // Entries left out of the correlation (scored by another front end) have no scores.
            let points: Vec<charts::Point<'_>> = entries
                .iter()
                .filter_map(|e| {
                    let scores = e.scores.as_ref().filter(|m| !m.is_empty())?;
                    Some(charts::Point {
                        score: value(scores, &l.key),
                        rating: e.rating,
                        name: Some(&e.name),
                    })
                })
                .collect();
            let summary = format!("Pearson r {}.", l.pearson);
            let id = format!("entry-scatter-{}", l.key);
            charts::scatter(&id, l.title, "judged entries", &points, &summary)
        })
        .collect();
    (caption_charts, entry_charts)
}

/// `/c/{slug}/agreement?split=..`: how each leaderboard column agrees with the organizers' human
/// judgments of the split (computed at upload; see `actions::import_judgments`).
pub async fn agreement(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
    q: web::Query<AgreementQuery>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let (split, all) = pick_split(&pool, &challenge, q.split.as_deref()).await?;
    let viewer = board_viewer(&req, &pool, &user, &challenge).await?;
    let stored = actions::agreement(&pool, &challenge, &split, viewer).await?;
    // The split links: only the splits this viewer may see the agreement of.
    let splits = all
        .into_iter()
        .filter(|s| actions::shows_per_image(s, viewer.organizer))
        .collect();
    let ranking = challenge.ranking_key();
    let lines = stored
        .as_ref()
        .map(|s| agreement_lines(&s.table, ranking))
        .unwrap_or_default();
    let (captions, entries) = match &stored {
        Some(s) => crate::storage::judgments::judged(&pool, s.set_id).await?,
        None => (Vec::new(), Vec::new()),
    };
    let charts_missing =
        captions.iter().any(|c| c.scores.is_none()) || entries.iter().any(|e| e.scores.is_none());
    let (caption_charts, entry_charts) = if charts_missing {
        (Vec::new(), Vec::new())
    } else {
        agreement_charts(&lines, &captions, &entries)
    };
    let page = AgreementPage {
        layout: Layout::new(&req, user.0.as_ref()),
        caption_charts,
        entry_charts,
        charts_missing,
        organizer: viewer.organizer,
        ranking_title: ranking.title(),
        uploaded: stored
            .as_ref()
            .map(|s| s.uploaded_at.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default(),
        lines,
        table: stored.map(|s| s.table),
        challenge,
        split,
        splits,
    };
    Ok(html(page.render()?))
}

/// `/c/{slug}/agreement.json?split=..`: the stored table, `{"challenge", "split", "split_version",
/// "ranking_metric", "agreement": null | {"caption_judgments", "ratings", "entry_judgments",
/// "resamples", "seed", "rows": [{"metric", "captions", "pairs", "tau_c": {"value", "ci"}, "tau_b",
/// "spearman", "entries", "pearson_system"}]}}`.
pub async fn agreement_json(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: MaybeUser,
    slug: web::Path<String>,
    q: web::Query<AgreementQuery>,
) -> Result<HttpResponse, PageError> {
    let challenge = actions::challenge(&pool, &slug).await?;
    let (split, _) = pick_split(&pool, &challenge, q.split.as_deref()).await?;
    let viewer = board_viewer(&req, &pool, &user, &challenge).await?;
    let stored = actions::agreement(&pool, &challenge, &split, viewer).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "challenge": challenge.slug,
        "split": split.name,
        "split_version": split.version,
        "ranking_metric": challenge.ranking_key().name(),
        "agreement": stored.map(|s| s.table),
    })))
}
