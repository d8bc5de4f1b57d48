//! A device loop over the `Haptic` stream (used by the tests, the benchmarks and
//! `clients/rust/examples/haptic_device.rs`): a thread runs the device's period
//! (≥ 1 kHz) — read the adapter, send the sample, render the latest local model
//! through the device's own port, write the force — while a task reads the
//! feedback and hands the newest local model to the loop.
//!
//! The simulated device advances by exactly one period per iteration (its
//! physics do not depend on the host's timing); the network is real.
//!
//! `lockstep` (a server in lockstep mode, `HapticHello.lockstep`): no pacing —
//! each iteration sends its sample, waits for the feedback of the tick that
//! applied it and renders that; the samples carry the device's own time. Same
//! scene + same device → bit-identical runs whatever the host's load.

use super::client::{pb, Client};
use crate::haptics::device_loop::{DeviceAdapter, DeviceLoop, Reading, RenderMode};
use crate::haptics::local::LocalModel;
use crate::haptics::passivity::PortParams;
use crate::math::{Mat3, Vec3};
use crate::runtime::clock::mono_ns;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How to run a device loop.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    /// Device name (WorldInfo.haptic_devices).
    pub device: String,
    pub rate_hz: f64,
    pub duration_s: f64,
    /// Samples are sent until this time (s), then the device falls silent (the
    /// stream stays open): the server's watchdog acts.
    pub send_until_s: f64,
    pub mode: RenderMode,
    pub port: PortParams,
    pub network: Option<pb::NetworkConditions>,
    /// Send the measured velocity with each sample.
    pub send_velocity: bool,
    /// Drive a lockstep server (module doc): one tick per sample.
    pub lockstep: bool,
}

impl LoopConfig {
    pub fn new(device: &str, duration_s: f64, port: PortParams) -> Self {
        LoopConfig {
            device: device.to_string(),
            rate_hz: 1000.0,
            duration_s,
            send_until_s: f64::INFINITY,
            mode: RenderMode::Local,
            port,
            network: None,
            send_velocity: true,
            lockstep: false,
        }
    }

    /// The loop for a device listed in `WorldInfo`, rendering through a port with
    /// the device's own force and rate limits and the passivity controller on.
    pub fn for_device(d: &pb::HapticDeviceInfo, duration_s: f64) -> Self {
        Self::new(
            &d.name,
            duration_s,
            PortParams {
                max_force: d.max_force_n,
                max_rate: d.max_rate_n_per_s,
                passivity_control: true,
            },
        )
    }
}

/// One period of the loop.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoopRow {
    /// Device time, s.
    pub t: f64,
    pub x: Vec3,
    pub v: Vec3,
    /// Force written to the device, N.
    pub f: Vec3,
    /// The device port's observed energy, J.
    pub energy: f64,
    /// Of the newest feedback: the server's force (after its port), the
    /// environment force, contact, watchdog gain and trip, its sample's seq.
    pub fb_force: Vec3,
    pub fb_force_env: Vec3,
    pub fb_contact: bool,
    pub fb_gain: f64,
    pub fb_tripped: bool,
    pub fb_seq: u64,
    pub fb_tick: u64,
    pub fb_tool_x: Vec3,
    /// Position sent with sample `seq` (the row's own).
    pub seq: u64,
}

/// What a loop did.
#[derive(Debug, Default)]
pub struct LoopReport {
    pub rows: Vec<LoopRow>,
    /// Sample → feedback round trips (client clock), ns.
    pub rtt_ns: Vec<i64>,
    pub feedbacks: u64,
    pub errors: Vec<pb::CommandError>,
    /// Periods that started more than one period late.
    pub late: u64,
    /// Iterations per wall-clock second.
    pub achieved_hz: f64,
    pub last: Option<pb::HapticFeedback>,
    /// The stream's end status, if it ended with an error.
    pub status: Option<tonic::Status>,
}

#[derive(Default)]
struct Inbox {
    latest: Option<pb::HapticFeedback>,
    fresh: bool,
    rtt_ns: Vec<i64>,
    feedbacks: u64,
    errors: Vec<pb::CommandError>,
    last_seq: u64,
    status: Option<tonic::Status>,
    /// The feedback stream ended.
    closed: bool,
}

fn v3(v: &[f64]) -> Vec3 {
    if v.len() == 3 {
        Vec3::new(v[0], v[1], v[2])
    } else {
        Vec3::zeros()
    }
}

fn m3(v: &[f64]) -> Mat3 {
    if v.len() == 9 {
        Mat3::from_row_slice(v)
    } else {
        Mat3::zeros()
    }
}

/// A feedback's local model.
pub fn local_from_pb(l: &pb::LocalModel) -> LocalModel {
    LocalModel {
        f0: v3(&l.f0),
        x0: v3(&l.x0),
        k: m3(&l.stiffness),
        b: m3(&l.damping),
        unilateral: (l.normal.len() == 3).then(|| v3(&l.normal)),
    }
}

/// Open a Haptic stream for `cfg.device` and run the device loop on `adapter`
/// for `cfg.duration_s`; returns the report and the adapter.
pub async fn run_device_loop<A: DeviceAdapter + 'static>(
    client: &mut Client,
    cfg: LoopConfig,
    adapter: A,
) -> anyhow::Result<(LoopReport, A)> {
    let (tx, rx) = mpsc::channel::<pb::HapticRequest>(8192);
    tx.send(pb::HapticRequest {
        msg: Some(pb::haptic_request::Msg::Hello(pb::HapticHello {
            device: Some(pb::haptic_hello::Device::Name(cfg.device.clone())),
            network: cfg.network,
            lockstep: cfg.lockstep,
        })),
    })
    .await
    .map_err(|_| anyhow::anyhow!("haptic channel closed"))?;
    let mut feedback = client
        .raw
        .haptic(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await?
        .into_inner();
    let inbox = Arc::new(Mutex::new(Inbox::default()));
    let lockstep = cfg.lockstep;
    let reader = {
        let inbox = inbox.clone();
        tokio::spawn(async move {
            loop {
                match feedback.message().await {
                    Ok(Some(fb)) => {
                        let now = mono_ns();
                        let mut i = inbox.lock();
                        i.feedbacks += 1;
                        if fb.seq > i.last_seq && fb.client_time_ns > 0 {
                            i.last_seq = fb.seq;
                            // (Lockstep samples carry the device's time.)
                            if !lockstep {
                                i.rtt_ns.push(now - fb.client_time_ns);
                            }
                        }
                        i.errors.extend(fb.errors.iter().cloned());
                        i.latest = Some(fb);
                        i.fresh = true;
                    }
                    Ok(None) => {
                        inbox.lock().closed = true;
                        break;
                    }
                    Err(s) => {
                        let mut i = inbox.lock();
                        i.status = Some(s);
                        i.closed = true;
                        break;
                    }
                }
            }
        })
    };
    let inbox2 = inbox.clone();
    let (rows, adapter, late, hz) =
        tokio::task::spawn_blocking(move || device_thread(cfg, adapter, tx, inbox2)).await?;
    let _ = reader.await;
    let mut i = inbox.lock();
    Ok((
        LoopReport {
            rows,
            rtt_ns: std::mem::take(&mut i.rtt_ns),
            feedbacks: i.feedbacks,
            errors: std::mem::take(&mut i.errors),
            late,
            achieved_hz: hz,
            last: i.latest.take(),
            status: i.status.take(),
        },
        adapter,
    ))
}

/// Lockstep: wait until the feedback of the tick that applied sample `seq` is in
/// (false if the stream ended, or no tick came within `LOCKSTEP_WAIT` — a
/// rejected sample, reported in the stream's errors, leaves the world waiting).
fn await_tick_of(inbox: &Mutex<Inbox>, seq: u64) -> bool {
    let t0 = Instant::now();
    loop {
        {
            let mut i = inbox.lock();
            if i.latest.as_ref().is_some_and(|fb| fb.seq >= seq) {
                return true;
            }
            if i.closed {
                return false;
            }
            if t0.elapsed() > LOCKSTEP_WAIT {
                i.errors.push(pb::CommandError {
                    seq,
                    code: tonic::Code::DeadlineExceeded as i32,
                    message: format!(
                        "lockstep: no tick applied sample {seq} within {} s",
                        LOCKSTEP_WAIT.as_secs_f64()
                    ),
                });
                return false;
            }
        }
        std::thread::sleep(Duration::from_micros(20));
    }
}

/// How long a lockstep device loop waits for the tick of its sample.
const LOCKSTEP_WAIT: Duration = Duration::from_secs(5);

fn device_thread<A: DeviceAdapter>(
    cfg: LoopConfig,
    mut adapter: A,
    tx: mpsc::Sender<pb::HapticRequest>,
    inbox: Arc<Mutex<Inbox>>,
) -> (Vec<LoopRow>, A, u64, f64) {
    let dt = 1.0 / cfg.rate_hz;
    let n = (cfg.duration_s * cfg.rate_hz).round() as usize;
    let mut rows = Vec::with_capacity(n);
    let mut lp = DeviceLoop::new(cfg.mode, cfg.port);
    let period = Duration::from_secs_f64(dt);
    let start = Instant::now();
    let mut late = 0;
    let mut fb_row = LoopRow::default();
    for k in 0..n {
        let deadline = start + period * k as u32;
        let now = Instant::now();
        if cfg.lockstep {
            // Unpaced: the server's ticks are the clock.
        } else if now < deadline {
            let left = deadline - now;
            if left > Duration::from_micros(300) {
                std::thread::sleep(left - Duration::from_micros(200));
            }
            while Instant::now() < deadline {
                std::hint::spin_loop();
            }
        } else if now - deadline > period {
            late += 1;
        }
        let t = k as f64 * dt;
        let r: Reading = adapter.read();
        let seq = k as u64 + 1;
        if t < cfg.send_until_s {
            let s = pb::DeviceSample {
                seq,
                client_time_ns: if cfg.lockstep {
                    (seq as f64 * dt * 1e9).round() as i64
                } else {
                    mono_ns()
                },
                position: r.x.iter().copied().collect(),
                orientation: vec![r.q.w, r.q.i, r.q.j, r.q.k],
                linear_velocity: if cfg.send_velocity {
                    r.v.iter().copied().collect()
                } else {
                    Vec::new()
                },
                angular_velocity: Vec::new(),
                buttons: 0,
            };
            let _ = tx.try_send(pb::HapticRequest {
                msg: Some(pb::haptic_request::Msg::Sample(s)),
            });
            if cfg.lockstep && !await_tick_of(&inbox, seq) {
                break;
            }
        }
        {
            let mut i = inbox.lock();
            if i.fresh {
                i.fresh = false;
                if let Some(fb) = &i.latest {
                    let local = fb
                        .local_model
                        .as_ref()
                        .map(local_from_pb)
                        .unwrap_or_default();
                    lp.update(local, v3(&fb.force_env));
                    fb_row.fb_force = v3(&fb.force);
                    fb_row.fb_force_env = v3(&fb.force_env);
                    fb_row.fb_contact = fb.contact;
                    fb_row.fb_gain = fb.watchdog_gain;
                    fb_row.fb_tripped = fb.watchdog_tripped;
                    fb_row.fb_seq = fb.seq;
                    fb_row.fb_tick = fb.tick;
                    fb_row.fb_tool_x = v3(&fb.tool_position);
                }
            }
        }
        let f = lp.render(&r, dt);
        adapter.write(&f, &Vec3::zeros());
        adapter.advance(dt);
        rows.push(LoopRow {
            t,
            x: r.x,
            v: r.v,
            f,
            energy: lp.port.state.energy,
            seq,
            ..fb_row
        });
    }
    let hz = n as f64 / start.elapsed().as_secs_f64();
    drop(tx);
    (rows, adapter, late, hz)
}
