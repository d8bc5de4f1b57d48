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
//! rate, `{"t":"stats",...}` at 4 Hz, `{"t":"world","generation":g}` when a scene is
//! loaded, `{"t":"reply","cmd":...,"ok":...,"error":...,"tick":...}`. Page → server:
//! `{"cmd":"pause"|"resume"|"reset"}` or `{"cmd":"step","n":N}`.

use crate::collision::shape::Shape;
use crate::runtime::Runtime;
use crate::server::auth::Auth;
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

const INDEX_HTML: &str = include_str!("../../web/viewer/index.html");
const VIEWER_JS: &str = include_str!("../../web/viewer/viewer.js");

#[derive(Clone)]
struct Ctx {
    svc: Arc<SimService>,
    auth: bool,
    rate_hz: f64,
}

/// Bind the viewer on `listen` and serve it in the background. Off-host addresses
/// follow the gRPC listener's rule, stricter: the viewer speaks plain HTTP, so a
/// non-loopback address needs `auth.allow_unauthenticated_remote = true`.
pub async fn spawn(rt: Runtime, listen: &str) -> anyhow::Result<SocketAddr> {
    let cfg = rt.shared.cfg.clone();
    let addr = check_listen(&cfg, listen)?;
    let auth = Auth::from_config(&cfg)?;
    let ctx = Ctx {
        auth: auth.enabled(),
        svc: Arc::new(SimService::with_auth(rt, auth)),
        rate_hz: cfg.server.viewer_rate_hz,
    };
    let app = Router::new()
        .route("/", get(index))
        .route("/viewer.js", get(script))
        .route("/api/world", get(world))
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

fn pose_json(p: &crate::math::Pose) -> Value {
    let t = p.translation.vector;
    let q = p.rotation.quaternion();
    json!([t.x, t.y, t.z, q.w, q.i, q.j, q.k])
}

/// WorldInfo (bodies, ids, names) and every body's shapes in its body frame.
async fn world_json(ctx: &Ctx, token: Option<&String>) -> Result<Value, tonic::Status> {
    let info = ctx
        .svc
        .get_world(request(pb::GetWorldRequest {}, token))
        .await?
        .into_inner();
    let view = ctx.svc.runtime().world();
    let m = &view.model;
    let geoms: Vec<Value> = m
        .geoms
        .iter()
        .map(|g| {
            let shape = match &g.shape {
                Shape::Plane => json!({"type": "plane"}),
                Shape::Sphere { radius } => json!({"type": "sphere", "radius": radius}),
                Shape::Box { half, .. } => json!({"type": "box", "half": [half.x, half.y, half.z]}),
                Shape::Capsule {
                    radius,
                    half_length,
                } => json!({"type": "capsule", "radius": radius, "half_length": half_length}),
                Shape::Cylinder {
                    radius,
                    half_length,
                } => json!({"type": "cylinder", "radius": radius, "half_length": half_length}),
                Shape::Polytope(p) => json!({
                    "type": "polytope",
                    "vertices": p.vertices.iter().flat_map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>(),
                    "faces": p.faces.iter().map(|f| f.vertices.clone()).collect::<Vec<_>>(),
                }),
            };
            json!({"body": g.body, "pose": pose_json(&g.x_bg), "shape": shape})
        })
        .collect();
    let bodies: Vec<Value> = info
        .bodies
        .iter()
        .map(|b| {
            json!({
                "id": b.id, "name": b.name, "static": b.is_static, "mass": b.mass,
                "position": b.position, "orientation": b.orientation,
                "link": m.bodies.get(b.id as usize).is_some_and(|mb| mb.is_link()),
            })
        })
        .collect();
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

fn state_json(s: &pb::State) -> Value {
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
    json!({
        "t": "state", "tick": s.tick, "time": s.sim_time, "generation": s.world_generation,
        "paused": s.paused, "mode": s.mode, "faulted": s.faulted,
        "bodies": bodies, "contacts": contacts,
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
        other => Err(tonic::Status::invalid_argument(format!(
            "cmd: unknown command {other:?} (pause, resume, step, reset)"
        ))),
    };
    match r {
        Ok(tick) => json!({"t": "reply", "cmd": cmd, "ok": true, "tick": tick}),
        Err(e) => json!({"t": "reply", "cmd": cmd, "ok": false, "error": e.message()}),
    }
}

async fn session(ctx: Ctx, mut sock: WebSocket, token: Option<String>) {
    let token = token.as_ref();
    let mut frame_iv = tokio::time::interval(Duration::from_secs_f64(1.0 / ctx.rate_hz));
    frame_iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut stats_iv = tokio::time::interval(Duration::from_millis(250));
    stats_iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_frame = u64::MAX;
    let mut generation = None;
    let fields = vec![
        pb::StateField::Pose as i32,
        pb::StateField::Velocity as i32,
        pb::StateField::Contacts as i32,
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
                        if s.frame == last_frame {
                            continue;
                        }
                        last_frame = s.frame;
                        state_json(&s)
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
