//! The `rtphys.v1.Simulation` service: thin handlers — validate, turn the request
//! into a runtime command, queue it, await the physics thread's reply, convert.

use super::auth::{Auth, Role};
use super::convert::{self, Selection};
use super::files::SceneRoots;
use super::netem::{self, Netem};
use super::pb::{self, simulation_server::Simulation};
use super::status::physics_gone;
use super::streams::{ControlStream, StateFeed, StateStream};
use crate::runtime::clock::mono_ns;
use crate::runtime::{Admin, Clear, FrameView, Input, Read, Runtime, Saved, SimError, Source};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::oneshot;
use tonic::{Request, Response, Status, Streaming};

#[derive(Clone)]
pub struct SimService {
    rt: Runtime,
    snapshots: Arc<Mutex<Snapshots>>,
    roots: Arc<SceneRoots>,
    auth: Arc<Auth>,
}

#[derive(Default)]
struct Snapshots {
    next_id: u64,
    map: BTreeMap<u64, Arc<Saved>>,
}

impl SimService {
    pub fn new(rt: Runtime) -> Self {
        Self::with_auth(rt, Auth::default())
    }

    /// A service that checks bearer tokens (see [`Auth`]).
    pub fn with_auth(rt: Runtime, auth: Auth) -> Self {
        SimService {
            auth: Arc::new(auth),
            roots: Arc::new(SceneRoots::new(&rt.shared.cfg)),
            rt,
            snapshots: Arc::new(Mutex::new(Snapshots {
                next_id: 1,
                map: BTreeMap::new(),
            })),
        }
    }

    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }

    fn cfg(&self) -> &crate::config::Config {
        &self.rt.shared.cfg
    }

    /// Queue an admin request and await its reply.
    async fn call<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Admin) -> Result<T, Status> {
        self.rt.shared.empty_trash();
        let (tx, rx) = oneshot::channel();
        self.rt.admin(make(tx))?;
        rx.await.map_err(physics_gone)
    }

    /// An input of the unary API, applied at the next tick boundary; replies once
    /// it is in effect.
    #[allow(clippy::too_many_arguments)]
    async fn submit(
        &self,
        gen: u64,
        header: Option<pb::CommandHeader>,
        recv_ns: i64,
        clear: Clear,
        wrenches: Vec<crate::runtime::WrenchCmd>,
        joints: Vec<crate::runtime::command::JointCmd>,
    ) -> Result<pb::CommandReply, Status> {
        let h = header.unwrap_or_default();
        let (tx, rx) = oneshot::channel();
        let input = Input {
            source: Source::Unary,
            gen,
            seq: h.seq,
            client_time_ns: h.client_time_ns,
            recv_ns,
            clear,
            wrenches,
            joints,
            reply: Some(tx),
        };
        self.rt.shared.empty_trash();
        self.rt.submit(input)?;
        let a = rx.await.map_err(physics_gone)??;
        Ok(pb::CommandReply {
            seq: h.seq,
            applied_tick: a.tick,
            sim_time: a.time,
            world_generation: a.gen,
        })
    }

    /// Read frame `f` (or the newest) of the current world as a State.
    fn read_state(&self, f: Option<u64>, sel: &Selection) -> Option<pb::State> {
        let view = self.rt.world();
        let mut buf = Vec::with_capacity(view.ring.words);
        let ok = match f {
            Some(f) if view.ring.read(f, &mut buf) == Read::Ok => true,
            _ => view.ring.read_latest(&mut buf).is_some(),
        };
        ok.then(|| {
            let mut st = convert::state_from_frame(&FrameView::new(&buf, &view.ring), sel);
            st.send_time_ns = mono_ns();
            st
        })
    }
}

#[tonic::async_trait]
impl Simulation for SimService {
    async fn get_world(
        &self,
        req: Request<pb::GetWorldRequest>,
    ) -> Result<Response<pb::WorldInfo>, Status> {
        self.auth.check(&req, Role::Observer)?;
        let view = self.rt.world();
        Ok(Response::new(convert::world_info(
            &view,
            &self.rt.status(),
            self.cfg(),
        )))
    }

    async fn get_state(
        &self,
        req: Request<pb::GetStateRequest>,
    ) -> Result<Response<pb::State>, Status> {
        self.auth.check(&req, Role::Observer)?;
        let r = req.into_inner();
        let view = self.rt.world();
        let sel = convert::selection(&r.fields, &r.bodies, &view.model, "")?;
        self.read_state(None, &sel)
            .map(Response::new)
            .ok_or_else(|| Status::unavailable("no state published yet"))
    }

    async fn apply_wrench(
        &self,
        req: Request<pb::ApplyWrenchRequest>,
    ) -> Result<Response<pb::CommandReply>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let recv_ns = mono_ns();
        let r = req.into_inner();
        let view = self.rt.world();
        convert::check_generation(r.header.as_ref(), &view, "header")?;
        if r.wrenches.is_empty() {
            return Err(
                SimError::invalid("wrenches", "empty: give at least one BodyWrench").into(),
            );
        }
        let ws = convert::wrenches(&r.wrenches, &view, &self.cfg().limits)?;
        let reply = self
            .submit(view.gen, r.header, recv_ns, Clear::Nothing, ws, Vec::new())
            .await?;
        Ok(Response::new(reply))
    }

    async fn command_joints(
        &self,
        req: Request<pb::CommandJointsRequest>,
    ) -> Result<Response<pb::CommandReply>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let recv_ns = mono_ns();
        let r = req.into_inner();
        let view = self.rt.world();
        convert::check_generation(r.header.as_ref(), &view, "header")?;
        if r.joints.is_empty() {
            return Err(
                SimError::invalid("joints", "empty: give at least one JointCommand").into(),
            );
        }
        let js = convert::joint_commands(&r.joints, &view.model, &self.cfg().limits, "")?;
        let reply = self
            .submit(view.gen, r.header, recv_ns, Clear::Nothing, Vec::new(), js)
            .await?;
        Ok(Response::new(reply))
    }

    async fn clear_wrench(
        &self,
        req: Request<pb::ClearWrenchRequest>,
    ) -> Result<Response<pb::CommandReply>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let recv_ns = mono_ns();
        let r = req.into_inner();
        let view = self.rt.world();
        convert::check_generation(r.header.as_ref(), &view, "header")?;
        let clear = if r.bodies.is_empty() {
            Clear::All
        } else {
            let mut ids = Vec::with_capacity(r.bodies.len());
            for (i, b) in r.bodies.iter().enumerate() {
                ids.push(convert::body_id(Some(b), &view.model, &format!("bodies[{i}]"))? as u32);
            }
            Clear::Bodies(ids)
        };
        let reply = self
            .submit(view.gen, r.header, recv_ns, clear, Vec::new(), Vec::new())
            .await?;
        Ok(Response::new(reply))
    }

    async fn step(&self, req: Request<pb::StepRequest>) -> Result<Response<pb::StepReply>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let r = req.into_inner();
        let max = self.cfg().limits.max_step;
        if r.n == 0 || r.n > max {
            return Err(SimError::invalid(
                "n",
                format!("{} is out of range: 1 ≤ n ≤ {max} (limits.max_step)", r.n),
            )
            .into());
        }
        let view = self.rt.world();
        let sel = convert::selection(&r.fields, &[], &view.model, "")?;
        let n = r.n as u64;
        let a = self.call(|reply| Admin::Step { n, reply }).await??;
        let state = self.read_state(Some(a.frame), &sel);
        Ok(Response::new(pb::StepReply {
            tick: a.tick,
            sim_time: a.time,
            state,
        }))
    }

    async fn pause(
        &self,
        req: Request<pb::PauseRequest>,
    ) -> Result<Response<pb::RunStatus>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let s = self.call(Admin::Pause).await??;
        Ok(Response::new(convert::run_status(&s)))
    }

    async fn resume(
        &self,
        req: Request<pb::ResumeRequest>,
    ) -> Result<Response<pb::RunStatus>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let s = self.call(Admin::Resume).await??;
        Ok(Response::new(convert::run_status(&s)))
    }

    async fn set_mode(
        &self,
        req: Request<pb::SetModeRequest>,
    ) -> Result<Response<pb::RunStatus>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let r = req.into_inner();
        let mode = convert::mode_from_pb(r.mode, "mode")?;
        let rtf = r.realtime_factor;
        if !(rtf.is_finite() && (rtf == 0.0 || (1e-3..=1e3).contains(&rtf))) {
            return Err(SimError::invalid(
                "realtime_factor",
                format!("{rtf} is out of range: 0 (keep) or 0.001 ≤ realtime_factor ≤ 1000"),
            )
            .into());
        }
        let realtime_factor = (rtf != 0.0).then_some(rtf);
        let s = self
            .call(|reply| Admin::SetMode {
                mode,
                realtime_factor,
                reply,
            })
            .await??;
        self.rt.warn_if_not_realtime();
        Ok(Response::new(convert::run_status(&s)))
    }

    async fn reset(
        &self,
        req: Request<pb::ResetRequest>,
    ) -> Result<Response<pb::CommandReply>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let a = self.call(Admin::Reset).await??;
        Ok(Response::new(pb::CommandReply {
            seq: 0,
            applied_tick: a.tick,
            sim_time: a.time,
            world_generation: a.gen,
        }))
    }

    async fn save_snapshot(
        &self,
        req: Request<pb::SaveSnapshotRequest>,
    ) -> Result<Response<pb::SnapshotInfo>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let max = self.cfg().server.max_snapshots;
        if self.snapshots.lock().map.len() >= max {
            return Err(SimError::ResourceExhausted(format!(
                "{max} snapshots are kept (server.max_snapshots): delete one first"
            ))
            .into());
        }
        let into = self.rt.new_saved();
        let saved = self.call(|reply| Admin::Save { into, reply }).await??;
        let info = |id| pb::SnapshotInfo {
            snapshot_id: id,
            tick: saved.snap.tick,
            sim_time: saved.snap.time,
            world_generation: saved.gen,
        };
        let mut s = self.snapshots.lock();
        let id = s.next_id;
        s.next_id += 1;
        let reply = info(id);
        s.map.insert(id, Arc::new(*saved));
        Ok(Response::new(reply))
    }

    async fn restore_snapshot(
        &self,
        req: Request<pb::RestoreSnapshotRequest>,
    ) -> Result<Response<pb::CommandReply>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let id = req.into_inner().snapshot_id;
        let saved = self
            .snapshots
            .lock()
            .map
            .get(&id)
            .cloned()
            .ok_or_else(|| SimError::not_found("snapshot_id", format!("no snapshot {id}")))?;
        let from = Box::new((*saved).clone());
        let a = self.call(|reply| Admin::Restore { from, reply }).await??;
        Ok(Response::new(pb::CommandReply {
            seq: 0,
            applied_tick: a.tick,
            sim_time: a.time,
            world_generation: a.gen,
        }))
    }

    async fn delete_snapshot(
        &self,
        req: Request<pb::DeleteSnapshotRequest>,
    ) -> Result<Response<pb::SnapshotInfo>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let id = req.into_inner().snapshot_id;
        let saved = self
            .snapshots
            .lock()
            .map
            .remove(&id)
            .ok_or_else(|| SimError::not_found("snapshot_id", format!("no snapshot {id}")))?;
        Ok(Response::new(pb::SnapshotInfo {
            snapshot_id: id,
            tick: saved.snap.tick,
            sim_time: saved.snap.time,
            world_generation: saved.gen,
        }))
    }

    async fn load_scene(
        &self,
        req: Request<pb::LoadSceneRequest>,
    ) -> Result<Response<pb::WorldInfo>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let r = req.into_inner();
        let roots = self.roots.clone();
        let (field, name, loaded) = match r.source {
            Some(pb::load_scene_request::Source::Path(p)) => {
                let name = if r.name.is_empty() {
                    p.clone()
                } else {
                    r.name.clone()
                };
                // Confined to the scene roots; see src/server/files.rs.
                let res = tokio::task::spawn_blocking(move || {
                    let canon = roots.check(&p, None, "path")?;
                    let text = roots.read(&canon, &p, "path")?;
                    let dir = canon.parent().map(Path::to_path_buf).unwrap_or_default();
                    roots.check_references(&text, &dir, "path")?;
                    Ok::<_, SimError>(crate::model::scene::load_scene_str(&text, &p, &dir))
                })
                .await
                .map_err(|e| Status::internal(format!("scene loader failed: {e}")))??;
                ("path", name, res)
            }
            Some(pb::load_scene_request::Source::Toml(t)) => {
                let name = if r.name.is_empty() {
                    "inline".to_string()
                } else {
                    r.name.clone()
                };
                if t.len() as u64 > roots.max_bytes() {
                    return Err(SimError::invalid(
                        "toml",
                        format!(
                            "{} bytes; at most server.max_scene_bytes = {}",
                            t.len(),
                            roots.max_bytes()
                        ),
                    )
                    .into());
                }
                let n2 = name.clone();
                let res = tokio::task::spawn_blocking(move || {
                    // Relative URDF and mesh paths resolve against the first root.
                    let dir = roots
                        .first()
                        .map(Path::to_path_buf)
                        .unwrap_or_else(|| PathBuf::from("/nonexistent-scene-root"));
                    roots.check_references(&t, &dir, "toml")?;
                    Ok::<_, SimError>(crate::model::scene::load_scene_str(&t, &n2, &dir))
                })
                .await
                .map_err(|e| Status::internal(format!("scene loader failed: {e}")))??;
                ("toml", name, res)
            }
            None => return Err(SimError::invalid("source", "missing: give a path or toml").into()),
        };
        let model = loaded.map_err(|e| SimError::invalid(field, e.to_string()))?;
        if model.nbody() == 0 {
            return Err(SimError::invalid(field, "the scene has no bodies").into());
        }
        let world = self.rt.build_world(model, name);
        let (_applied, old) = self.call(|reply| Admin::Load { world, reply }).await??;
        drop(old);
        self.rt.warn_if_not_realtime();
        let view = self.rt.world();
        Ok(Response::new(convert::world_info(
            &view,
            &self.rt.status(),
            self.cfg(),
        )))
    }

    async fn get_stats(
        &self,
        req: Request<pb::GetStatsRequest>,
    ) -> Result<Response<pb::Stats>, Status> {
        self.auth.check(&req, Role::Observer)?;
        let reset = req.into_inner().reset;
        let buf = self.rt.new_stats_buf();
        let s = self
            .call(|reply| Admin::Stats { buf, reset, reply })
            .await?;
        Ok(Response::new(stats_reply(&self.rt, &s)))
    }

    type StreamStateStream = Netem<StateStream>;

    async fn stream_state(
        &self,
        req: Request<pb::StreamStateRequest>,
    ) -> Result<Response<Netem<StateStream>>, Status> {
        self.auth.check(&req, Role::Observer)?;
        let r = req.into_inner();
        let view = self.rt.world();
        let sel = convert::selection(&r.fields, &r.bodies, &view.model, "")?;
        check_decimation(r.decimation, self.cfg().limits.max_decimation, "decimation")?;
        let (_, state_net) = netem::from_pb(r.network.as_ref(), "")?;
        let sub = self.rt.open_observer()?;
        let feed = StateFeed::new(self.rt.clone(), sub, r.decimation, r.latest_only);
        Ok(Response::new(Netem::new(
            StateStream::new(feed, sel),
            state_net,
        )))
    }

    type ControlStream = Netem<ControlStream>;

    async fn control(
        &self,
        req: Request<Streaming<pb::ControlRequest>>,
    ) -> Result<Response<Netem<ControlStream>>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let mut inbound = req.into_inner();
        let first = first_message(&mut inbound).await?;
        let hello = match first.msg {
            Some(pb::control_request::Msg::Hello(h)) => h,
            Some(pb::control_request::Msg::Command(_)) => {
                return Err(Status::failed_precondition(
                    "hello: a Control stream starts with a ControlHello; no command is accepted before it",
                ))
            }
            None => return Err(SimError::invalid("msg", "empty ControlRequest").into()),
        };
        let cfg = self.cfg();
        let view = self.rt.world();
        let sel = convert::selection(&hello.fields, &hello.bodies, &view.model, "hello.")?;
        check_decimation(
            hello.decimation,
            cfg.limits.max_decimation,
            "hello.decimation",
        )?;
        let behavior = convert::behavior_from_pb(
            hello.safe_behavior,
            cfg.watchdog.safe_behavior,
            "hello.safe_behavior",
        )?;
        let wd = hello.watchdog_timeout_s;
        if !wd.is_finite() || wd > 3600.0 {
            return Err(SimError::invalid(
                "hello.watchdog_timeout_s",
                format!("{wd} is out of range: ≤ 3600 s (0 = server default, < 0 = off)"),
            )
            .into());
        }
        let watchdog_ns = if wd > 0.0 {
            (wd * 1e9) as i64
        } else if wd < 0.0 {
            0
        } else {
            (cfg.watchdog.timeout_ms * 1e6) as i64
        };
        let (cmd_net, state_net) = netem::from_pb(hello.network.as_ref(), "hello.")?;
        let name = if hello.name.is_empty() {
            "controller".to_string()
        } else {
            hello.name.clone()
        };
        let sub = self.rt.open_subscriber()?;
        let ctrl = self
            .rt
            .open_controller(&name, hello.lockstep, watchdog_ns, behavior)?;
        let feed = StateFeed::new(self.rt.clone(), sub, hello.decimation, hello.latest_only);
        let inbound: super::streams::Inbound = match cmd_net {
            None => Box::pin(inbound),
            Some(c) => Box::pin(Netem::new(inbound, Some(c))),
        };
        let stream = ControlStream::new(self.rt.clone(), inbound, ctrl, feed, sel);
        tracing::info!(stream_id = stream.stream_id(), name = %name, lockstep = hello.lockstep, "control stream opened");
        Ok(Response::new(Netem::new(stream, state_net)))
    }

    type HapticStream = Netem<super::streams::HapticStream>;

    async fn haptic(
        &self,
        req: Request<Streaming<pb::HapticRequest>>,
    ) -> Result<Response<Netem<super::streams::HapticStream>>, Status> {
        self.auth.check(&req, Role::Controller)?;
        let mut inbound = req.into_inner();
        let first = first_message(&mut inbound).await?;
        let hello = match first.msg {
            Some(pb::haptic_request::Msg::Hello(h)) => h,
            Some(pb::haptic_request::Msg::Sample(_)) => return Err(Status::failed_precondition(
                "hello: a Haptic stream starts with a HapticHello; no sample is accepted before it",
            )),
            None => return Err(SimError::invalid("msg", "empty HapticRequest").into()),
        };
        let view = self.rt.world();
        let device = convert::haptic_device(hello.device.as_ref(), &view.model)?;
        let (cmd_net, state_net) = netem::from_pb(hello.network.as_ref(), "hello.")?;
        if self.rt.shared.recording.lock().is_some() {
            return Err(Status::failed_precondition(
                "a recording is in progress: haptic device samples are not recorded \
                 (StopRecording first)",
            ));
        }
        let guard = self.rt.open_haptic(device, hello.lockstep)?;
        let inbound: super::streams::HapticInbound = match cmd_net {
            None => Box::pin(inbound),
            Some(c) => Box::pin(Netem::new(inbound, Some(c))),
        };
        tracing::info!(device, name = %view.model.haptics[device].name, lockstep = hello.lockstep, "haptic stream opened");
        let stream = super::streams::HapticStream::new(self.rt.clone(), inbound, guard);
        Ok(Response::new(Netem::new(stream, state_net)))
    }

    async fn start_recording(
        &self,
        req: Request<pb::StartRecordingRequest>,
    ) -> Result<Response<pb::RecordingInfo>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let r = req.into_inner();
        let path = record_path(&self.cfg().server.record_dir, &r.file)?;
        if self.rt.haptic_streams_open() {
            return Err(Status::failed_precondition(
                "a Haptic stream is open: haptic device samples are not recorded \
                 (close the device streams first)",
            ));
        }
        let tick = self.rt.start_recording(&path).await?;
        Ok(Response::new(pb::RecordingInfo {
            path: path.display().to_string(),
            start_tick: tick,
            ..Default::default()
        }))
    }

    async fn stop_recording(
        &self,
        req: Request<pb::StopRecordingRequest>,
    ) -> Result<Response<pb::RecordingInfo>, Status> {
        self.auth.check(&req, Role::Admin)?;
        let f = self.rt.stop_recording().await?;
        Ok(Response::new(pb::RecordingInfo {
            path: f.path.display().to_string(),
            start_tick: 0,
            end_tick: f.tick,
            state_hash: f.hash,
            records: f.records,
            lost: f.lost,
            bytes: f.bytes,
            ended: f.reason.name().to_string(),
        }))
    }
}

/// `StartRecording{file}`: a bare file name inside `server.record_dir` (created if
/// missing); never a path, never an existing file (checked when it is created).
fn record_path(dir: &str, file: &str) -> Result<PathBuf, SimError> {
    let bad = |m: &str| SimError::invalid("file", format!("{file:?}: {m}"));
    if file.is_empty() || file.len() > 255 {
        return Err(bad("a file name of 1 to 255 bytes is needed"));
    }
    if file == "." || file == ".." || file.contains(['/', '\\', '\0']) {
        return Err(bad(
            "must be a bare file name (no directory), written in server.record_dir",
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| SimError::invalid("file", format!("server.record_dir {dir:?}: {e}")))?;
    Ok(Path::new(dir).join(file))
}

fn check_decimation(d: u32, max: u32, field: &str) -> Result<(), SimError> {
    if d > max {
        return Err(SimError::invalid(
            field,
            format!("{d} is out of range: ≤ {max} (limits.max_decimation)"),
        ));
    }
    Ok(())
}

/// Stats reply: the physics thread's figures plus the network side's counters.
pub fn stats_reply(rt: &Runtime, s: &crate::runtime::StatsBuf) -> pb::Stats {
    use std::sync::atomic::Ordering;
    let sh = &rt.shared;
    let mut out = convert::stats(s);
    out.command_queue_full = sh.queue_full.load(Ordering::Relaxed);
    out.state_frames_dropped = sh.frames_dropped.load(Ordering::Relaxed);
    out.subscribers = sh
        .subscribers
        .iter()
        .filter(|x| x.in_use.load(Ordering::Relaxed))
        .count() as u32;
    for (i, c) in s.ctrl.iter().enumerate() {
        if c.stream_id == 0 {
            continue;
        }
        out.controllers += 1;
        out.controller.push(pb::ControllerStats {
            stream_id: c.stream_id,
            name: sh.controllers[i].name.lock().clone(),
            lockstep: c.lockstep,
            commands_applied: c.commands,
            commands_rejected: sh.controllers[i].rejected.load(Ordering::Relaxed),
            watchdog: Some(pb::WatchdogStatus {
                enabled: c.watchdog_ns > 0,
                tripped: c.tripped,
                trips: c.trips,
                timeout_s: c.watchdog_ns.max(0) as f64 * 1e-9,
                behavior: convert::behavior_to_pb(c.behavior) as i32,
            }),
            receive_to_apply: Some(convert::hist(&c.receive_to_apply)),
        });
    }
    out.realtime_notes = sh.notes.lock().clone();
    if sh.faulted.load(Ordering::SeqCst) {
        out.fault = sh.fault.lock().clone();
    }
    out.faults = sh.faults.load(Ordering::Relaxed);
    out.stale_seq = sh.stale_seq.load(Ordering::Relaxed);
    out.connections = sh.net.connections.load(Ordering::Relaxed);
    out.connections_refused = sh.net.refused.load(Ordering::Relaxed);
    out.connections_idle_closed = sh.net.idle_closed.load(Ordering::Relaxed);
    out.rate_limited = sh.net.rate_limited.load(Ordering::Relaxed);
    out
}

/// The first message of a bidirectional stream (its hello): a status if the stream
/// fails or closes before it.
async fn first_message<T>(inbound: &mut Streaming<T>) -> Result<T, Status> {
    inbound
        .message()
        .await
        .map_err(super::streams::inbound_error)?
        .ok_or_else(|| {
            Status::invalid_argument("hello: the stream closed before its first message")
        })
}
