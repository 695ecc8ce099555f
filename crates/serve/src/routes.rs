//! The routes: the page and the JSON API, every one behind the token.

use std::path::Path;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use http_body_util::BodyExt;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::data::Cache;
use crate::files::{Places, Refused, Source};
use crate::jobs::Jobs;

/// What every request shares.
pub struct AppState {
    /// The access token.
    pub token: String,
    /// The files it may read.
    pub places: Places,
    /// The largest upload, in bytes.
    pub upload_limit: usize,
    /// Files loaded.
    pub cache: Cache,
    /// Experiments run.
    pub jobs: Jobs,
}

impl AppState {
    /// The state of a server with this token, these places and this upload limit.
    pub fn new(token: String, places: Places, upload_limit: usize) -> AppState {
        AppState {
            token,
            places,
            upload_limit,
            cache: Cache::default(),
            jobs: Jobs::default(),
        }
    }
}

/// The router: the page at `/`, the API under `/api/`, all behind the token.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/registries", get(registries))
        .route("/api/files", get(files))
        .route("/api/upload", post(upload))
        .route("/api/load", post(load))
        .route("/api/risk", post(risk))
        .route("/api/experiment", post(experiment))
        .route("/api/run", post(run))
        .route("/api/job/{id}", get(job))
        .route("/api/job/{id}/cancel", post(cancel))
        .route("/api/job/{id}/report.html", get(report))
        .route("/api/job/{id}/records", get(records))
        .layer(axum::middleware::from_fn_with_state(
            Arc::<str>::from(state.token.as_str()),
            crate::auth::require_token,
        ))
        .with_state(state)
}

/// An API error: a status and a message the page shows.
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    /// `{"error": message}` with the status.
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

impl From<anyhow::Error> for ApiError {
    /// A bad request, with the error and its causes.
    fn from(e: anyhow::Error) -> Self {
        let status = if e.downcast_ref::<Refused>().is_some() {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::BAD_REQUEST
        };
        ApiError(status, format!("{e:#}"))
    }
}

impl From<Refused> for ApiError {
    /// Forbidden: a path where the page may not read.
    fn from(e: Refused) -> Self {
        ApiError(StatusCode::FORBIDDEN, e.0)
    }
}

/// Runs blocking work (reading, measuring) off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

/// The page.
async fn page() -> Html<&'static str> {
    Html(crate::page::HTML)
}

/// Every family's registry, and each generator's files with their columns and roles.
async fn registries() -> Result<Json<Value>, ApiError> {
    blocking(|| {
        let mut v = intruder::methods::registries_json();
        v["generator_files"] = crate::page::generator_files();
        v["engines"] = json!(intruder_engine::in_process_engines());
        Ok(Json(v))
    })
    .await
}

/// The files the page may pick.
async fn files(State(s): State<Arc<AppState>>) -> Json<Value> {
    Json(s.places.list())
}

/// The query of an upload.
#[derive(Deserialize)]
struct UploadQuery {
    /// The file's name.
    name: String,
}

/// Stores the request's body as an upload: refused when larger than the limit (413, before
/// reading when the length is declared, at the limit when it is not), with a name that is not
/// a plain data file name, or when the body breaks off. A different file of a name already
/// uploaded is stored beside it under a new name (the answer's `path`).
async fn upload(
    State(s): State<Arc<AppState>>,
    Query(q): Query<UploadQuery>,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let path = s.places.upload_path(&q.name)?;
    let limit = s.upload_limit;
    // `n`: the declared length, or none when the body went past the limit as it came
    let too_big = |n: Option<u64>| {
        let what = match n {
            Some(n) => format!("{} is larger than", size_text(n)),
            None => "the upload went past".to_string(),
        };
        ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{}: {what} the upload limit of {} (start intruder serve with --root DIR to read large files where they are)",
                q.name,
                size_text(limit as u64)
            ),
        )
    };
    if let Some(n) = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        && n > limit as u64
    {
        return Err(too_big(Some(n)));
    }
    let part = s.places.upload_part(&path);
    let mut out = std::fs::File::create(&part)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let mut body = req.into_body();
    let mut written: u64 = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            let _ = std::fs::remove_file(&part);
            ApiError(
                StatusCode::BAD_REQUEST,
                format!("{}: the upload broke off: {e}", q.name),
            )
        })?;
        if let Ok(chunk) = frame.into_data() {
            written += chunk.len() as u64;
            if written > limit as u64 {
                let _ = std::fs::remove_file(&part);
                return Err(too_big(None));
            }
            use std::io::Write;
            out.write_all(&chunk)
                .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        }
    }
    drop(out);
    let path = s
        .places
        .store_upload(&part, &path)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Json(
        json!({"place": "upload", "path": name, "bytes": written}),
    ))
}

/// A size in bytes for people (`256 MiB`).
pub fn size_text(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.0} MiB", n as f64 / f64::from(1 << 20))
    } else if n >= 1 << 10 {
        format!("{:.0} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

/// The body of a request naming a source.
#[derive(Deserialize)]
struct SourceBody {
    /// The data.
    source: Source,
}

/// A file's columns, types, roles and preview.
async fn load(
    State(s): State<Arc<AppState>>,
    Json(b): Json<SourceBody>,
) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let ds = s.cache.get(&s.places, &b.source)?;
        Ok(Json(crate::data::describe(&ds)))
    })
    .await
}

/// The body of a risk request.
#[derive(Deserialize)]
struct RiskBody {
    /// The data.
    source: Source,
    /// The measure's parameters, as in `[[risk]]`.
    params: Value,
}

/// A risk measure at once.
async fn risk(
    State(s): State<Arc<AppState>>,
    Json(b): Json<RiskBody>,
) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let params = toml_table(&b.params)?;
        let ds = s.cache.get(&s.places, &b.source)?;
        Ok(Json(crate::data::risk(&ds, params, "the data")?))
    })
    .await
}

/// A JSON object as a TOML table (`null` members left out).
pub fn toml_table(v: &Value) -> Result<toml::Table, ApiError> {
    let v = drop_nulls(v.clone());
    match toml::Value::try_from(v) {
        Ok(toml::Value::Table(t)) => Ok(t),
        Ok(_) => Err(ApiError(
            StatusCode::BAD_REQUEST,
            "expected an object".into(),
        )),
        Err(e) => Err(ApiError(StatusCode::BAD_REQUEST, format!("not TOML: {e}"))),
    }
}

/// `v` without its `null` members and array items (TOML has no null).
fn drop_nulls(v: Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k, drop_nulls(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.into_iter()
                .filter(|x| !x.is_null())
                .map(drop_nulls)
                .collect(),
        ),
        other => other,
    }
}

/// The body of a request to write an experiment.
#[derive(Deserialize)]
struct ExperimentBody {
    /// The data.
    source: Source,
    /// The session, shaped as the experiment file.
    experiment: Value,
}

/// The session as an experiment file: its TOML text and every problem the runner finds in it
/// (empty when it can run), or the plan when it has none.
async fn experiment(
    State(s): State<Arc<AppState>>,
    Json(b): Json<ExperimentBody>,
) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let table = toml_table(&b.experiment)?;
        let text = crate::page::experiment_text(&table)
            .map_err(|e| ApiError(StatusCode::BAD_REQUEST, e))?;
        let checked = check(&s, &text, &b.source);
        Ok(Json(match checked {
            Ok(exp) => json!({
                "toml": text,
                "problems": [],
                "settings": exp.defences.len(),
                "attacks": exp.attacks.len(),
            }),
            Err(problems) => json!({"toml": text, "problems": problems}),
        }))
    })
    .await
}

/// The experiment of `text` with data from `source`: its paths checked against the place, then
/// parsed and validated by the runner (every problem at once).
fn check(
    s: &AppState,
    text: &str,
    source: &Source,
) -> Result<intruder_runner::Experiment, Vec<String>> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| vec![format!("not valid TOML: {e}")])?;
    s.places.check_experiment(&doc, source)?;
    let (anchor, _) = s.places.anchor(source).map_err(|e| vec![e.0])?;
    intruder_runner::Experiment::from_toml(text, &anchor.join("session.toml")).map_err(
        |e| match e {
            intruder_runner::RunnerError::Spec { problems, .. } => {
                problems.iter().map(ToString::to_string).collect()
            }
            other => vec![other.to_string()],
        },
    )
}

/// The body of a run request.
#[derive(Deserialize)]
struct RunBody {
    /// The data.
    source: Source,
    /// The experiment file's text.
    toml: String,
}

/// Starts running an experiment; answers with its job number.
async fn run(
    State(s): State<Arc<AppState>>,
    Json(b): Json<RunBody>,
) -> Result<Json<Value>, ApiError> {
    let exp = check(&s, &b.toml, &b.source).map_err(|p| {
        ApiError(
            StatusCode::BAD_REQUEST,
            format!("the experiment has problems:\n  - {}", p.join("\n  - ")),
        )
    })?;
    let id = s
        .jobs
        .start(exp, &s.places.runs())
        .map_err(|e| ApiError(StatusCode::CONFLICT, e))?;
    Ok(Json(json!({"job": id})))
}

/// A job's state (and results when done).
async fn job(
    State(s): State<Arc<AppState>>,
    UrlPath(id): UrlPath<u64>,
) -> Result<Json<Value>, ApiError> {
    let job = find_job(&s, id)?;
    Ok(Json(job.status_json(id)))
}

/// Asks a job to stop.
async fn cancel(
    State(s): State<Arc<AppState>>,
    UrlPath(id): UrlPath<u64>,
) -> Result<Json<Value>, ApiError> {
    let job = find_job(&s, id)?;
    job.watch.cancel();
    Ok(Json(json!({"id": id, "cancelling": true})))
}

/// A finished job's `report.html`, as a download.
async fn report(
    State(s): State<Arc<AppState>>,
    UrlPath(id): UrlPath<u64>,
) -> Result<Response, ApiError> {
    let job = find_job(&s, id)?;
    let text = read_report(&job.report)?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"report.html\"",
            ),
        ],
        Body::from(text),
    )
        .into_response())
}

/// The text of a report, or 404 when the job has not written it.
fn read_report(path: &Path) -> Result<String, ApiError> {
    std::fs::read_to_string(path).map_err(|_| {
        ApiError(
            StatusCode::NOT_FOUND,
            "no report: the experiment has not finished".into(),
        )
    })
}

/// The parameters a records request may give.
const RECORDS_PARAMS: [&str; 6] = [
    "setting",
    "replicate",
    "attack",
    "status",
    "offset",
    "limit",
];

/// The records of one attack of a finished job, paged: `setting` (label; default the first),
/// `replicate` (1-based; default 1), `attack` (name; default the first), `status` (`correct`,
/// `wrong`, `not-linked` or `all`, the default), `offset` (default 0) and `limit` (default 50,
/// at most [`crate::records::MAX_PAGE`]). The attack is redone once per setting, replicate and
/// attack; pages come from memory.
async fn records(
    State(s): State<Arc<AppState>>,
    UrlPath(id): UrlPath<u64>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let job = find_job(&s, id)?;
    blocking(move || records_page(&job, &q).map(Json)).await
}

/// A bad request with `message`.
fn bad(message: String) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, message)
}

/// Which records a request asks for, checked: the status (`None`: all), offset, limit and the
/// replicate (1-based); the setting and attack names are checked against the job.
struct RecordsQuery {
    status: Option<crate::records::Status>,
    offset: usize,
    limit: usize,
    replicate: usize,
}

impl RecordsQuery {
    /// Reads the query's numbers and status; an unknown parameter, a number that is not one
    /// or out of range, an unknown status are bad requests that say so.
    fn parse(q: &std::collections::HashMap<String, String>) -> Result<RecordsQuery, ApiError> {
        use crate::records::{MAX_PAGE, Status};
        let mut unknown: Vec<&String> = q
            .keys()
            .filter(|k| !RECORDS_PARAMS.contains(&k.as_str()) && k.as_str() != "token")
            .collect();
        unknown.sort();
        if let Some(k) = unknown.first() {
            return Err(bad(format!(
                "unknown parameter '{k}' (known: {})",
                RECORDS_PARAMS.join(", ")
            )));
        }
        let number = |name: &str, default: usize| -> Result<usize, ApiError> {
            match q.get(name) {
                None => Ok(default),
                Some(v) => v
                    .parse::<usize>()
                    .map_err(|_| bad(format!("{name}: '{v}' is not a whole number ≥ 0"))),
            }
        };
        let limit = number("limit", 50)?;
        if limit == 0 || limit > MAX_PAGE {
            return Err(bad(format!(
                "limit: {limit} is out of range: ask for 1 to {MAX_PAGE} records a page"
            )));
        }
        Ok(RecordsQuery {
            status: match q.get("status").map(String::as_str) {
                None | Some("all") => None,
                Some(name) => Some(Status::parse(name).map_err(bad)?),
            },
            offset: number("offset", 0)?,
            limit,
            replicate: number("replicate", 1)?,
        })
    }
}

/// The page of records that `q` asks for of `job` ([`records`]).
fn records_page(
    job: &crate::jobs::Job,
    q: &std::collections::HashMap<String, String>,
) -> Result<Value, ApiError> {
    let RecordsQuery {
        status,
        offset,
        limit,
        replicate,
    } = RecordsQuery::parse(q)?;
    let Some(plan) = job.plan() else {
        return Err(ApiError(
            StatusCode::CONFLICT,
            "the experiment has not finished: its records are shown once it is done".into(),
        ));
    };
    let exp = &job.exp;
    let quoted = |names: &mut dyn Iterator<Item = &str>| {
        names
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let setting = match q.get("setting") {
        None => 0,
        Some(label) => plan
            .settings
            .iter()
            .position(|x| &x.label == label)
            .ok_or_else(|| {
                bad(format!(
                    "setting: no setting '{label}' (the experiment has {})",
                    quoted(&mut plan.settings.iter().map(|x| x.label.as_str()))
                ))
            })?,
    };
    let attack = match q.get("attack") {
        None => exp.attacks.first().ok_or_else(|| {
            bad("the experiment has no attack: add one to see the records it re-identifies".into())
        })?,
        Some(name) => exp
            .attacks
            .iter()
            .find(|a| &a.name == name)
            .ok_or_else(|| {
                bad(format!(
                    "attack: no attack '{name}' (the experiment has {})",
                    quoted(&mut exp.attacks.iter().map(|a| a.name.as_str()))
                ))
            })?,
    };
    if replicate == 0 || replicate > exp.replicates as usize {
        return Err(bad(format!(
            "replicate: {replicate} is out of range: the experiment has replicates 1 to {}",
            exp.replicates
        )));
    }
    let rep = (replicate - 1) as u32;
    let run = plan
        .runs
        .iter()
        .find(|r| r.setting == setting && r.replicate == rep)
        .ok_or_else(|| bad(format!("no run of setting {setting} replicate {replicate}")))?;
    let label = plan.settings[setting].label.clone();
    if !job
        .out
        .join("runs")
        .join(format!("{}.json", run.id))
        .is_file()
    {
        return Err(bad(format!(
            "setting '{label}', replicate {replicate} failed as a whole: it has no records (see the experiment's warnings)"
        )));
    }
    let key = (label.clone(), replicate as u32, attack.name.clone());
    let view = job
        .records(key, || {
            let data = job.data()?;
            let out = intruder_runner::attack_records(exp, plan, run, &data, &attack.name)
                .map_err(|e| e.to_string())?;
            Ok(crate::records::RecordsView::new(
                label.clone(),
                replicate as u32,
                attack.name.clone(),
                attack.method.clone(),
                out,
            ))
        })
        .map_err(|e| {
            bad(format!(
                "setting '{label}', replicate {replicate}, attack '{}': {e}",
                attack.name
            ))
        })?;
    Ok(view.page(status, offset, limit))
}

/// The job numbered `id`, or 404.
fn find_job(s: &AppState, id: u64) -> Result<Arc<crate::jobs::Job>, ApiError> {
    s.jobs
        .get(id)
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no job {id}")))
}
