//! The web viewer: an HTTP + WebSocket endpoint on the server's tokio runtime that
//! serves a self-contained WebGL2 page (web/viewer/, embedded in the binary).
//!
//! How it reads the world without touching the physics thread:
//! - geometry: `GET /api/world` = `WorldInfo` (the gRPC GetWorld reply) plus the shapes
//!   of every body, read from the immutable `Model` of the current `WorldView`;
//! - state: each page's WebSocket task wakes at `server.viewer_rate_hz` and copies the
//!   newest frame out of the state ring (the GetState path: a seqlock read, never a
//!   wait on the physics thread, which does not know the viewer exists). Frames
//!   published between two wake-ups are skipped — the decimation;
//! - stats (plots): GetStats four times a second, as the Prometheus endpoint does;
//! - buttons: pause / resume / step / reset go through the gRPC service methods
//!   themselves (same runtime paths, same bearer-token check).
//!
//! Protocol (JSON text frames). Server → page: `{"t":"state",...}` at the display
//! rate (bodies, contacts, joints, and the connected haptic devices' coupling as
//! their streams last reported it — see `state_json`), `{"t":"stats",...}` at 4 Hz, `{"t":"world","generation":g}` when a scene is
//! loaded, `{"t":"reply","cmd":...,"ok":...,"error":...,"tick":...}`. Page → server:
//! `{"cmd":"pause"|"resume"|"reset"}` or `{"cmd":"step","n":N}`.

use crate::runtime::Runtime;
use crate::server::auth::{Auth, Role};
use crate::server::pb;
use crate::server::pb::simulation_server::Simulation;
use crate::server::service::SimService;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub mod recording;

const INDEX_HTML: &str = include_str!("../../web/viewer/index.html");
const VIEWER_JS: &str = include_str!("../../web/viewer/viewer.js");

#[derive(Clone)]
struct Ctx {
    svc: Arc<SimService>,
    auth: bool,
    rate_hz: f64,
    record_dir: std::path::PathBuf,
    /// Role checks for the page's own commands (record needs admin, as StartRecording).
    roles: Arc<Auth>,
    /// The visual recording the page started (one at a time per server).
    recorder: Arc<tokio::sync::Mutex<Option<Recorder>>>,
}

/// A visual recording running on the tokio runtime: samples the state ring at its
/// rate (never the physics thread) until stopped or the world is replaced.
struct Recorder {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(u64, String), String>>,
    name: String,
}

/// Largest recording the viewer serves (the page holds it in memory).
const MAX_RECORDING_BYTES: u64 = 1 << 30;

/// Bind the viewer on `listen` and serve it in the background. Off-host addresses
/// follow the gRPC listener's rule, stricter: the viewer speaks plain HTTP, so a
/// non-loopback address needs `auth.allow_unauthenticated_remote = true`.
pub async fn spawn(rt: Runtime, listen: &str) -> anyhow::Result<SocketAddr> {
    let cfg = rt.shared.cfg.clone();
    let addr = check_listen(&cfg, listen)?;
    let auth = Auth::from_config(&cfg)?;
    let ctx = Ctx {
        roles: Arc::new(Auth::from_config(&cfg)?),
        recorder: Arc::new(tokio::sync::Mutex::new(None)),
        auth: auth.enabled(),
        svc: Arc::new(SimService::with_auth(rt, auth)),
        rate_hz: cfg.server.viewer_rate_hz,
        record_dir: cfg.server.record_dir.clone().into(),
    };
    let app = Router::new()
        .route("/", get(index))
        .route("/viewer.js", get(script))
        .route("/api/world", get(world))
        .route("/recordings/{name}", get(recording_file))
        .route("/ws", get(ws))
        .with_state(ctx);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!("viewer stopped: {e}");
        }
    });
    Ok(local)
}

/// The viewer's address, refused off loopback unless
/// `auth.allow_unauthenticated_remote` (the viewer speaks plain HTTP).
pub fn check_listen(cfg: &crate::config::Config, listen: &str) -> anyhow::Result<SocketAddr> {
    let addr: SocketAddr = listen
        .parse()
        .map_err(|_| anyhow::anyhow!("server.viewer_listen: not an address: {listen:?}"))?;
    if !addr.ip().is_loopback() && !cfg.auth.allow_unauthenticated_remote {
        anyhow::bail!(
            "refusing to serve the viewer on {addr} (not loopback): it speaks plain HTTP; \
             use a loopback address (and an SSH tunnel), --no-viewer, or set \
             auth.allow_unauthenticated_remote = true"
        );
    }
    Ok(addr)
}

async fn index() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        VIEWER_JS,
    )
}

/// A gRPC request carrying the page's token (if any) as a bearer token.
fn request<T>(msg: T, token: Option<&String>) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    if let Some(t) = token {
        if let Ok(v) = format!("Bearer {t}").parse() {
            r.metadata_mut().insert("authorization", v);
        }
    }
    r
}

fn status_response(s: tonic::Status) -> Response {
    let code = match s.code() {
        tonic::Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        tonic::Code::PermissionDenied => StatusCode::FORBIDDEN,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    };
    (code, s.message().to_string()).into_response()
}

async fn world(State(ctx): State<Ctx>, Query(q): Query<HashMap<String, String>>) -> Response {
    match world_json(&ctx, q.get("token")).await {
        Ok(v) => axum::Json(v).into_response(),
        Err(s) => status_response(s),
    }
}

/// `GET /recordings/NAME`: a visual recording (docs/RECORDING.md) from
/// `server.record_dir`, for `/?recording=/recordings/NAME`. Bare file names only;
/// with `[auth]`, the page's token must allow observing.
async fn recording_file(
    State(ctx): State<Ctx>,
    axum::extract::Path(name): axum::extract::Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    if ctx.auth {
        if let Err(s) = ctx
            .svc
            .get_world(request(pb::GetWorldRequest {}, q.get("token")))
            .await
        {
            return status_response(s);
        }
    }
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', '\0']) {
        return (
            StatusCode::BAD_REQUEST,
            format!("recording {name:?}: a bare file name in server.record_dir is needed"),
        )
            .into_response();
    }
    let path = ctx.record_dir.join(&name);
    let read = tokio::task::spawn_blocking(move || -> std::io::Result<Option<Vec<u8>>> {
        let len = std::fs::metadata(&path)?.len();
        if len > MAX_RECORDING_BYTES {
            return Ok(None);
        }
        std::fs::read(&path).map(Some)
    })
    .await;
    match read {
        Ok(Ok(Some(bytes))) => {
            ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
        }
        Ok(Ok(None)) => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("recording {name:?} is larger than {MAX_RECORDING_BYTES} bytes"),
        )
            .into_response(),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => (
            StatusCode::NOT_FOUND,
            format!("no recording {name:?} in server.record_dir"),
        )
            .into_response(),
        Ok(Err(e)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("recording {name:?}: {e}"),
        )
            .into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

/// WorldInfo (bodies, ids, names) and every body's shapes in its body frame.
async fn world_json(ctx: &Ctx, token: Option<&String>) -> Result<Value, tonic::Status> {
    let info = ctx
        .svc
        .get_world(request(pb::GetWorldRequest {}, token))
        .await?
        .into_inner();
    let view = ctx.svc.runtime().world();
    let geoms = recording::geoms_json(&view.model);
    let bodies = recording::bodies_json(&view.model);
    Ok(json!({
        "generation": info.world_generation,
        "scene": info.scene_name,
        "dt": info.dt,
        "rate_hz": info.rate_hz,
        "method": info.method,
        "gravity": info.gravity,
        "paused": info.paused,
        "version": info.server_version,
        "bodies": bodies,
        "geoms": geoms,
        "joints": info.joints.iter().map(|j| json!({
            "id": j.id, "name": j.name, "type": j.r#type,
            "parent": j.parent_body, "child": j.child_body,
        })).collect::<Vec<_>>(),
        "haptic_devices": info.haptic_devices.iter().map(|d| json!({
            "id": d.id, "name": d.name, "tool_body": d.tool_body_id, "dof": d.dof,
            "scale": d.scale, "offset": d.offset, "rotation": d.rotation,
            "workspace_min": d.workspace_min, "workspace_max": d.workspace_max,
        })).collect::<Vec<_>>(),
    }))
}

async fn ws(
    State(ctx): State<Ctx>,
    Query(q): Query<HashMap<String, String>>,
    up: WebSocketUpgrade,
) -> Response {
    let token = q.get("token").cloned();
    // Refuse before the upgrade when the token does not allow observing.
    if ctx.auth {
        if let Err(s) = ctx
            .svc
            .get_world(request(pb::GetWorldRequest {}, token.as_ref()))
            .await
        {
            return status_response(s);
        }
    }
    up.on_upgrade(move |sock| session(ctx, sock, token))
}

/// One state frame for the page: bodies `[x y z qw qx qy qz vx vy vz wx wy wz]`,
/// contacts `[point normal force depth a b]`, joints `[q τ]` (τ = the actuator
/// effort applied), and per connected haptic device `[id target(7) tool(7)
/// force(3) contact]` (world; force = the force rendered to the device, mapped back).
fn state_json(s: &pb::State, haptic: &[(usize, crate::runtime::HapticView)]) -> Value {
    let bodies: Vec<Value> = s
        .bodies
        .iter()
        .map(|b| {
            let mut v = Vec::with_capacity(13);
            v.extend_from_slice(&b.position);
            v.extend_from_slice(&b.orientation);
            v.extend_from_slice(&b.linear_velocity);
            v.extend_from_slice(&b.angular_velocity);
            json!(v)
        })
        .collect();
    let contacts: Vec<Value> = s
        .contacts
        .iter()
        .map(|c| {
            let mut v = Vec::with_capacity(12);
            v.extend_from_slice(&c.point);
            v.extend_from_slice(&c.normal);
            v.extend_from_slice(&c.force);
            v.push(c.depth);
            v.push(c.body_a as f64);
            v.push(c.body_b as f64);
            json!(v)
        })
        .collect();
    let joints: Vec<Value> = s
        .joints
        .iter()
        .map(|j| json!([j.position, j.effort]))
        .collect();
    let haptic: Vec<Value> = haptic
        .iter()
        .filter(|(_, h)| h.gen == s.world_generation)
        .map(|(id, h)| {
            let mut v = Vec::with_capacity(19);
            v.push(*id as f64);
            v.extend_from_slice(&h.target);
            v.extend_from_slice(&h.tool);
            v.extend_from_slice(&h.force);
            v.push(if h.contact { 1.0 } else { 0.0 });
            json!(v)
        })
        .collect();
    json!({
        "t": "state", "tick": s.tick, "time": s.sim_time, "generation": s.world_generation,
        "paused": s.paused, "mode": s.mode, "faulted": s.faulted,
        "bodies": bodies, "contacts": contacts, "joints": joints, "haptic": haptic,
    })
}

fn stats_json(s: &pb::Stats) -> Value {
    let h = |h: &Option<pb::LatencyHistogram>| {
        let h = (*h).unwrap_or_default();
        json!([h.p50_us, h.p99_us])
    };
    let p = s.physics.clone().unwrap_or_default();
    json!({
        "t": "stats", "tick": s.tick, "uptime": s.uptime_s,
        "lateness_us": h(&s.tick_lateness), "compute_us": h(&s.tick_compute),
        "rtf": s.realtime_factor_recent, "overruns": s.overruns,
        "dropped": s.state_frames_dropped, "kinetic_energy": p.kinetic_energy_j,
        "contact_points": p.contact_points, "max_penetration": p.max_penetration_m,
        "paused": s.paused,
    })
}

async fn command(ctx: &Ctx, v: &Value, token: Option<&String>) -> Value {
    let cmd = v.get("cmd").and_then(Value::as_str).unwrap_or("");
    let svc = &ctx.svc;
    let r: Result<u64, tonic::Status> = match cmd {
        "pause" => svc
            .pause(request(pb::PauseRequest {}, token))
            .await
            .map(|r| r.into_inner().tick),
        "resume" => svc
            .resume(request(pb::ResumeRequest {}, token))
            .await
            .map(|r| r.into_inner().tick),
        "reset" => svc
            .reset(request(pb::ResetRequest {}, token))
            .await
            .map(|r| r.into_inner().applied_tick),
        "step" => {
            let n = v.get("n").and_then(Value::as_u64).unwrap_or(1);
            match u32::try_from(n) {
                Ok(n) => svc
                    .step(request(
                        pb::StepRequest {
                            n,
                            fields: vec![pb::StateField::Pose as i32],
                        },
                        token,
                    ))
                    .await
                    .map(|r| r.into_inner().tick),
                Err(_) => Err(tonic::Status::invalid_argument("n: out of range")),
            }
        }
        "record" => return record(ctx, v, token).await,
        "stop_record" => return stop_record(ctx, token).await,
        other => Err(tonic::Status::invalid_argument(format!(
            "cmd: unknown command {other:?} (pause, resume, step, reset, record, stop_record)"
        ))),
    };
    match r {
        Ok(tick) => json!({"t": "reply", "cmd": cmd, "ok": true, "tick": tick}),
        Err(e) => json!({"t": "reply", "cmd": cmd, "ok": false, "error": e.message()}),
    }
}

fn reply_err(cmd: &str, e: impl std::fmt::Display) -> Value {
    json!({"t": "reply", "cmd": cmd, "ok": false, "error": e.to_string()})
}

/// `{"cmd":"record","file":NAME,"rate_hz":R}` (admin): a visual recording of the
/// live world into server.record_dir/NAME, R frames per wall-clock second (default
/// 30, at most 1000) read from the state ring; `{"cmd":"stop_record"}` ends it.
async fn record(ctx: &Ctx, v: &Value, token: Option<&String>) -> Value {
    const CMD: &str = "record";
    if let Err(e) = ctx.roles.check(&request((), token), Role::Admin) {
        return reply_err(CMD, e.message());
    }
    let name = v.get("file").and_then(Value::as_str).unwrap_or("");
    if name.is_empty()
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0'])
        || name.len() > 255
    {
        return reply_err(
            CMD,
            format!("file: {name:?}: a bare file name (written in server.record_dir) is needed"),
        );
    }
    let rate = v.get("rate_hz").and_then(Value::as_f64).unwrap_or(30.0);
    if !(rate > 0.0 && rate <= 1000.0) {
        return reply_err(
            CMD,
            format!("rate_hz: {rate} is out of range: 0 < rate_hz ≤ 1000"),
        );
    }
    let mut slot = ctx.recorder.lock().await;
    if slot.as_ref().is_some_and(|r| !r.task.is_finished()) {
        return reply_err(
            CMD,
            "a visual recording is already running (stop_record first)",
        );
    }
    if let Err(e) = std::fs::create_dir_all(&ctx.record_dir) {
        return reply_err(CMD, format!("server.record_dir {:?}: {e}", ctx.record_dir));
    }
    let path = ctx.record_dir.join(name);
    let file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(f) => f,
        Err(e) => return reply_err(CMD, format!("file: {}: {e}", path.display())),
    };
    let view = ctx.svc.runtime().world();
    let writer = match recording::RecordingWriter::new(
        std::io::BufWriter::new(file),
        &view.model,
        &view.name,
        rate,
    ) {
        Ok(w) => w,
        Err(e) => return reply_err(CMD, format!("file: {}: {e}", path.display())),
    };
    let (stop, mut stopped) = tokio::sync::oneshot::channel();
    let svc = ctx.svc.clone();
    let tok = token.cloned();
    let generation = view.gen;
    let shown = path.display().to_string();
    // The file is written on a blocking thread, never on the async runtime: the
    // sampling task hands it frames through a bounded queue (a frame that finds
    // the queue full — the disk behind — is skipped; frames carry their tick).
    let (tx, rx) = std::sync::mpsc::sync_channel::<(u64, f64, Vec<[f64; 7]>)>(256);
    let sink_name = shown.clone();
    let sink = tokio::task::spawn_blocking(move || -> Result<u64, String> {
        let mut w = writer;
        for (tick, time, poses) in rx {
            w.frame_poses(tick, time, poses.into_iter())
                .map_err(|e| format!("{sink_name}: {e}"))?;
        }
        let frames = w.frames();
        w.finish().map_err(|e| format!("{sink_name}: {e}"))?;
        Ok(frames)
    });
    let task = tokio::spawn(async move {
        let mut iv = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
        iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut last = u64::MAX;
        loop {
            tokio::select! {
                _ = &mut stopped => break,
                _ = iv.tick() => {}
            }
            if svc.runtime().shared.is_shutting_down() {
                break;
            }
            let req = request(
                pb::GetStateRequest {
                    fields: vec![pb::StateField::Pose as i32],
                    bodies: vec![],
                },
                tok.as_ref(),
            );
            let Ok(s) = svc.get_state(req).await else {
                continue;
            };
            let s = s.into_inner();
            if s.world_generation != generation {
                break; // another scene: this recording's header no longer describes it
            }
            if s.frame == last {
                continue;
            }
            last = s.frame;
            let poses = s.bodies.iter().map(|b| {
                let p = |v: &Vec<f64>, i: usize| v.get(i).copied().unwrap_or(f64::NAN);
                [
                    p(&b.position, 0),
                    p(&b.position, 1),
                    p(&b.position, 2),
                    p(&b.orientation, 0),
                    p(&b.orientation, 1),
                    p(&b.orientation, 2),
                    p(&b.orientation, 3),
                ]
            });
            if let Err(std::sync::mpsc::TrySendError::Disconnected(_)) =
                tx.try_send((s.tick, s.sim_time, poses.collect()))
            {
                break; // the writer failed: its error is the result
            }
        }
        drop(tx);
        let frames = sink.await.map_err(|e| e.to_string())??;
        Ok((frames, shown))
    });
    *slot = Some(Recorder {
        stop,
        task,
        name: name.to_string(),
    });
    json!({"t": "reply", "cmd": CMD, "ok": true, "file": name, "rate_hz": rate})
}

async fn stop_record(ctx: &Ctx, token: Option<&String>) -> Value {
    const CMD: &str = "stop_record";
    if let Err(e) = ctx.roles.check(&request((), token), Role::Admin) {
        return reply_err(CMD, e.message());
    }
    let Some(r) = ctx.recorder.lock().await.take() else {
        return reply_err(CMD, "no visual recording is running");
    };
    let _ = r.stop.send(());
    match r.task.await {
        Ok(Ok((frames, path))) => {
            json!({"t": "reply", "cmd": CMD, "ok": true, "file": r.name, "path": path, "frames": frames})
        }
        Ok(Err(e)) => reply_err(CMD, e),
        Err(e) => reply_err(CMD, e),
    }
}

async fn session(ctx: Ctx, mut sock: WebSocket, token: Option<String>) {
    let token = token.as_ref();
    let mut frame_iv = tokio::time::interval(Duration::from_secs_f64(1.0 / ctx.rate_hz));
    frame_iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut stats_iv = tokio::time::interval(Duration::from_millis(250));
    stats_iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_frame = u64::MAX;
    let mut last_haptic: Vec<(usize, u64, u64)> = Vec::new();
    let mut generation = None;
    let fields = vec![
        pb::StateField::Pose as i32,
        pb::StateField::Velocity as i32,
        pb::StateField::Contacts as i32,
        pb::StateField::Joints as i32,
    ];
    loop {
        let out = tokio::select! {
            _ = frame_iv.tick() => {
                if ctx.svc.runtime().shared.is_shutting_down() {
                    break;
                }
                let req = request(pb::GetStateRequest { fields: fields.clone(), bodies: vec![] }, token);
                match ctx.svc.get_state(req).await {
                    Ok(s) => {
                        let s = s.into_inner();
                        if generation.is_some_and(|g| g != s.world_generation) {
                            let _ = sock
                                .send(Message::text(json!({"t": "world", "generation": s.world_generation}).to_string()))
                                .await;
                        }
                        generation = Some(s.world_generation);
                        // A device's stream may report a tick after its frame went out:
                        // a changed coupling is sent even when the frame is the same.
                        let rt = ctx.svc.runtime();
                        let ndev = rt.world().model.haptics.len();
                        let haptic: Vec<_> = (0..ndev)
                            .filter_map(|d| rt.haptic_view(d).map(|v| (d, v)))
                            .collect();
                        let hkey: Vec<(usize, u64, u64)> =
                            haptic.iter().map(|(d, v)| (*d, v.tick, v.seq)).collect();
                        if s.frame == last_frame && hkey == last_haptic {
                            continue;
                        }
                        last_frame = s.frame;
                        last_haptic = hkey;
                        state_json(&s, &haptic)
                    }
                    Err(_) => continue,
                }
            }
            _ = stats_iv.tick() => {
                match ctx.svc.get_stats(request(pb::GetStatsRequest { reset: false }, token)).await {
                    Ok(s) => stats_json(&s.into_inner()),
                    Err(_) => continue,
                }
            }
            msg = sock.recv() => match msg {
                Some(Ok(Message::Text(t))) => match serde_json::from_str::<Value>(t.as_str()) {
                    Ok(v) => command(&ctx, &v, token).await,
                    Err(e) => json!({"t": "reply", "ok": false, "error": format!("not JSON: {e}")}),
                },
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => continue,
            },
        };
        if sock.send(Message::text(out.to_string())).await.is_err() {
            break;
        }
    }
}
