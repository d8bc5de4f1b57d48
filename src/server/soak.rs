//! `rtphys soak`: drive a server over real gRPC for a while — closed-loop control
//! streams all the time and, with `--faults`, controllers killed mid-stream
//! (their connection dropped), controllers that stop sending (watchdog), state
//! subscribers that never read, and floods of silent TCP connections — then print a
//! report: commands sent/applied/lost/duplicated, round trips, tick overruns,
//! watchdog latency, RSS growth. Without `--addr` the server runs in this process
//! (on loopback, default settings), so its RSS is this process's.

use super::client::{body_id, pb, Client, ControlSession};
use hdrhistogram::Histogram;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `rtphys soak` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct SoakArgs {
    /// How long: e.g. 500ms, 30s, 5m, 1h.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Server to soak (host:port); without it, an in-process server on loopback.
    #[arg(long)]
    pub addr: Option<String>,
    /// Bearer token for --addr.
    #[arg(long)]
    pub token: Option<String>,
    /// Scene of the in-process server (default: the embedded default scene).
    #[arg(long)]
    pub scene: Option<PathBuf>,
    /// Process id of the --addr server, for its RSS (/proc/PID/status).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Closed-loop control streams running the whole time.
    #[arg(long, default_value_t = 2)]
    pub controllers: usize,
    /// Fault injection: killed and stopped controllers, stalled subscribers,
    /// connection floods.
    #[arg(long)]
    pub faults: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

impl Default for SoakArgs {
    fn default() -> Self {
        SoakArgs {
            duration: Duration::from_secs(60),
            addr: None,
            token: None,
            scene: None,
            server_pid: None,
            controllers: 2,
            faults: false,
            json: false,
        }
    }
}

/// "500ms", "30s", "5m", "1h", or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, mul) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: expected e.g. 500ms, 30s, 5m, 1h"))?;
    if !v.is_finite() || v <= 0.0 || v * mul > 30.0 * 86400.0 {
        return Err(format!("{s:?}: must be positive and at most 30 days"));
    }
    Ok(Duration::from_secs_f64(v * mul))
}

/// Resident set size of a process, kB (Linux; None elsewhere).
pub fn rss_kb(pid: Option<u32>) -> Option<u64> {
    let p = match pid {
        Some(p) => format!("/proc/{p}/status"),
        None => "/proc/self/status".into(),
    };
    let s = std::fs::read_to_string(p).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// The counts of one closed-loop controller.
#[derive(Default, Clone, Copy, Debug)]
struct CtrlCount {
    sent: u64,
    applied: u64,
    last_seq: u64,
    duplicated: u64,
    rejected: u64,
}

/// The report of a soak run.
#[derive(Clone, Debug)]
pub struct Report {
    pub value: Value,
    pub sent: u64,
    pub applied: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub rejected: u64,
    pub rss_growth_kb: Option<i64>,
    pub ticks: u64,
    pub faults: u64,
    pub watchdog_trips: u64,
    pub killed: u64,
    pub round_trip_p99_us: f64,
}

fn hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("histogram bounds are valid")
}

fn pct(h: &Histogram<u64>, q: f64) -> f64 {
    if h.is_empty() {
        0.0
    } else {
        h.value_at_quantile(q) as f64 / 1e3
    }
}

/// Bodies a soak may push (free bodies, not robot links).
async fn free_bodies(c: &mut Client) -> anyhow::Result<Vec<u32>> {
    let w = c.world().await?;
    let v: Vec<u32> = w
        .bodies
        .iter()
        .filter(|b| !b.is_static && !b.name.contains('/'))
        .map(|b| b.id)
        .collect();
    anyhow::ensure!(!v.is_empty(), "the world has no free body to push");
    Ok(v)
}

fn push_cmd(b: u32, k: u64) -> pb::BodyWrench {
    // Small alternating pushes: the bodies wander but stay.
    let f = if k.is_multiple_of(2) { 0.3 } else { -0.3 };
    super::client::wrench(body_id(b), [f, 0.0, 0.0], [0.0; 3])
}

/// One closed-loop controller: send, wait for the ack, repeat until `stop`; then
/// close and read the final ack.
async fn controller(
    mut c: Client,
    name: String,
    bodies: Vec<u32>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<(CtrlCount, Histogram<u64>)> {
    let mut ctl = c
        .control(pb::ControlHello {
            name,
            watchdog_timeout_s: 2.0,
            fields: vec![pb::StateField::Acks as i32],
            ..Default::default()
        })
        .await?;
    ctl.next_state().await?;
    let mut n = CtrlCount::default();
    let mut h = hist();
    let mut k = 0u64;
    while !stop.load(Ordering::Relaxed) {
        k += 1;
        let b = bodies[(k as usize) % bodies.len()];
        let t0 = Instant::now();
        let seq = ctl.send(vec![push_cmd(b, k)], false).await?;
        n.sent += 1;
        loop {
            let s = ctl
                .next_state()
                .await?
                .ok_or_else(|| anyhow::anyhow!("control stream ended early"))?;
            n.rejected += s.errors.len() as u64;
            if s.errors.iter().any(|e| e.seq == seq) {
                break;
            }
            if let Some(a) = ctl.own_ack(&s) {
                if a.seq < n.last_seq || a.seq > n.sent || a.commands_applied > n.sent {
                    n.duplicated += 1;
                }
                n.last_seq = a.seq;
                n.applied = a.commands_applied;
                if a.seq >= seq {
                    let _ = h.record((t0.elapsed().as_nanos() as u64).max(1));
                    break;
                }
            }
        }
    }
    ctl.close();
    final_acks(&mut ctl, &mut n).await?;
    Ok((n, h))
}

async fn final_acks(ctl: &mut ControlSession, n: &mut CtrlCount) -> anyhow::Result<()> {
    while let Some(s) = ctl.next_state().await? {
        if let Some(a) = ctl.own_ack(&s) {
            n.last_seq = a.seq;
            n.applied = a.commands_applied;
        }
    }
    Ok(())
}

/// A controller killed mid-stream: its connection is dropped while commands flow.
async fn killed_controller(url: String, token: Option<String>, bodies: Vec<u32>) -> u64 {
    let Ok(mut c) = Client::connect_with_token(&url, token.as_deref()).await else {
        return 0;
    };
    let Ok(mut ctl) = c
        .control(pb::ControlHello {
            name: "killed".into(),
            fields: vec![pb::StateField::Acks as i32],
            latest_only: true,
            ..Default::default()
        })
        .await
    else {
        return 0;
    };
    let mut sent = 0;
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(300) {
        if ctl
            .send(vec![push_cmd(bodies[0], sent)], false)
            .await
            .is_err()
        {
            break;
        }
        sent += 1;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    // Dropping the session and the client (its only channel) resets the stream
    // and closes the connection, as a killed process would.
    drop(ctl);
    drop(c);
    sent
}

/// A controller that stops sending: time from its last command until a state shows
/// its watchdog tripped, beyond the timeout.
async fn stopped_controller(
    mut c: Client,
    bodies: Vec<u32>,
    stop: Arc<AtomicBool>,
    lat: Arc<parking_lot::Mutex<Histogram<u64>>>,
    trips: Arc<AtomicU64>,
) -> anyhow::Result<()> {
    const TIMEOUT: f64 = 0.02;
    let mut ctl = c
        .control(pb::ControlHello {
            name: "stopper".into(),
            watchdog_timeout_s: TIMEOUT,
            fields: vec![pb::StateField::Acks as i32],
            latest_only: true,
            ..Default::default()
        })
        .await?;
    ctl.next_state().await?;
    let mut k = 0;
    while !stop.load(Ordering::Relaxed) {
        let t0 = Instant::now();
        let mut last = Instant::now();
        while t0.elapsed() < Duration::from_millis(150) {
            k += 1;
            let seq = ctl.send(vec![push_cmd(bodies[0], k)], false).await?;
            last = Instant::now();
            ctl.wait_ack(seq).await?;
        }
        // Silence.
        loop {
            let s = ctl
                .next_state()
                .await?
                .ok_or_else(|| anyhow::anyhow!("stopper stream ended"))?;
            let tripped = ctl
                .own_ack(&s)
                .and_then(|a| a.watchdog)
                .is_some_and(|w| w.tripped);
            if tripped {
                let beyond = last.elapsed().as_secs_f64() - TIMEOUT;
                let _ = lat.lock().record(((beyond.max(0.0)) * 1e9) as u64 + 1);
                trips.fetch_add(1, Ordering::Relaxed);
                break;
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
    }
    ctl.close();
    let mut n = CtrlCount::default();
    final_acks(&mut ctl, &mut n).await?;
    Ok(())
}

/// Run a soak against `url`; `server_pid` None = this process.
pub async fn soak(a: &SoakArgs, url: &str, server_pid: Option<u32>) -> anyhow::Result<Report> {
    let token = a.token.clone();
    let connect = || Client::connect_with_token(url, token.as_deref());
    let mut admin = connect().await?;
    let bodies = free_bodies(&mut admin).await?;
    admin.stats(true).await?;
    let tick0 = admin.state().await?.tick;
    let rss0 = rss_kb(server_pid);
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut ctrls = Vec::new();
    for i in 0..a.controllers {
        let c = connect().await?;
        ctrls.push(tokio::spawn(controller(
            c,
            format!("soak-{i}"),
            bodies.clone(),
            stop.clone(),
        )));
    }
    let wd_lat = Arc::new(parking_lot::Mutex::new(hist()));
    let trips = Arc::new(AtomicU64::new(0));
    let killed = Arc::new(AtomicU64::new(0));
    let killed_sent = Arc::new(AtomicU64::new(0));
    let floods = Arc::new(AtomicU64::new(0));
    let mut extra = Vec::new();
    let mut stalled = Vec::new();
    if a.faults {
        // Subscribers that never read: opened, then left alone for the whole run.
        let mut sc = connect().await?;
        for _ in 0..4 {
            stalled.push(
                sc.watch(pb::StreamStateRequest {
                    ..Default::default()
                })
                .await?,
            );
        }
        stalled_keep(&mut stalled);
        let c = connect().await?;
        let (b, st, l, t) = (bodies.clone(), stop.clone(), wd_lat.clone(), trips.clone());
        extra.push(tokio::spawn(async move {
            stopped_controller(c, b, st, l, t).await
        }));
        let (u, tk, b, st, k, ks) = (
            url.to_string(),
            token.clone(),
            bodies.clone(),
            stop.clone(),
            killed.clone(),
            killed_sent.clone(),
        );
        extra.push(tokio::spawn(async move {
            while !st.load(Ordering::Relaxed) {
                let n = killed_controller(u.clone(), tk.clone(), b.clone()).await;
                k.fetch_add(1, Ordering::Relaxed);
                ks.fetch_add(n, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(700)).await;
            }
            Ok(())
        }));
        let addr = url.trim_start_matches("http://").to_string();
        let (st, fl) = (stop.clone(), floods.clone());
        extra.push(tokio::spawn(async move {
            while !st.load(Ordering::Relaxed) {
                let mut socks = Vec::new();
                for _ in 0..100 {
                    if let Ok(s) = tokio::net::TcpStream::connect(&addr).await {
                        socks.push(s);
                    }
                }
                fl.fetch_add(socks.len() as u64, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(500)).await;
                drop(socks);
                tokio::time::sleep(Duration::from_millis(1500)).await;
            }
            Ok(())
        }));
    }
    // RSS after a second of warm-up (allocator arenas, first streams).
    let warm = Duration::from_secs(1).min(a.duration / 4);
    tokio::time::sleep(warm).await;
    let rss_warm = rss_kb(server_pid).or(rss0);
    let mut rss_max = rss_warm.unwrap_or(0);
    while started.elapsed() < a.duration {
        let left = a.duration.saturating_sub(started.elapsed());
        tokio::time::sleep(left.min(Duration::from_millis(500))).await;
        rss_max = rss_max.max(rss_kb(server_pid).unwrap_or(0));
    }
    stop.store(true, Ordering::SeqCst);
    let mut total = CtrlCount::default();
    let mut rt = hist();
    for t in ctrls {
        let (n, h) = t.await??;
        total.sent += n.sent;
        total.applied += n.applied;
        total.duplicated += n.duplicated;
        total.rejected += n.rejected;
        // The final ack must carry the last command sent.
        if n.last_seq != n.sent {
            total.duplicated += n.last_seq.saturating_sub(n.sent);
        }
        let _ = rt.add(&h);
    }
    for t in extra {
        t.await??;
    }
    drop(stalled);
    let elapsed = started.elapsed().as_secs_f64();
    let stats = admin.stats(false).await?;
    let tick1 = admin.state().await?.tick;
    let rss1 = rss_kb(server_pid);
    let lost = total.sent.saturating_sub(total.applied);
    let dup = total.duplicated + total.applied.saturating_sub(total.sent);
    let growth = match (rss_warm, rss1) {
        (Some(a), Some(b)) => Some(b as i64 - a as i64),
        _ => None,
    };
    let wd = wd_lat.lock().clone();
    let lateness = stats.tick_lateness.unwrap_or_default();
    let compute = stats.tick_compute.unwrap_or_default();
    let value = json!({
        "duration_s": elapsed,
        "ticks": tick1.saturating_sub(tick0),
        "controllers": a.controllers,
        "commands": {
            "sent": total.sent, "applied": total.applied, "lost": lost,
            "duplicated": dup, "rejected": total.rejected,
        },
        "round_trip_us": { "p50": pct(&rt, 0.5), "p99": pct(&rt, 0.99), "max": pct(&rt, 1.0) },
        "ticks_overrun": stats.overruns,
        "ticks_skipped": stats.skipped_ticks,
        "tick_lateness_us": { "p99": lateness.p99_us, "max": lateness.max_us },
        "tick_compute_us": { "p99": compute.p99_us, "max": compute.max_us },
        "faults": {
            "enabled": a.faults,
            "killed_controllers": killed.load(Ordering::Relaxed),
            "killed_commands_sent": killed_sent.load(Ordering::Relaxed),
            "watchdog_trips": trips.load(Ordering::Relaxed),
            "watchdog_latency_beyond_timeout_us": { "p50": pct(&wd, 0.5), "p99": pct(&wd, 0.99), "max": pct(&wd, 1.0) },
            "stalled_subscribers": if a.faults { 4 } else { 0 },
            "flood_connections": floods.load(Ordering::Relaxed),
            "connections_refused": stats.connections_refused,
            "connections_idle_closed": stats.connections_idle_closed,
            "physics_faults": stats.faults,
        },
        "state_frames_dropped": stats.state_frames_dropped,
        "rss_kb": { "after_warmup": rss_warm, "max": rss_max, "end": rss1, "growth": growth,
                    "of": if server_pid.is_some() { "server process" } else { "this process (in-process server + clients)" } },
    });
    Ok(Report {
        value,
        sent: total.sent,
        applied: total.applied,
        lost,
        duplicated: dup,
        rejected: total.rejected,
        rss_growth_kb: growth,
        ticks: tick1.saturating_sub(tick0),
        faults: stats.faults,
        watchdog_trips: trips.load(Ordering::Relaxed),
        killed: killed.load(Ordering::Relaxed),
        round_trip_p99_us: pct(&rt, 0.99),
    })
}

/// The stalled subscribers are kept open (never polled) until the run ends.
fn stalled_keep(_s: &mut [tonic::Streaming<pb::State>]) {}

/// Entry point of `rtphys soak`.
pub fn soak_main(a: SoakArgs) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("rtphys-soak")
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let (report, handle) = match &a.addr {
            Some(addr) => {
                let url = if addr.contains("://") {
                    addr.clone()
                } else {
                    format!("http://{addr}")
                };
                (soak(&a, &url, a.server_pid).await?, None)
            }
            None => {
                let cfg = crate::config::Config::default();
                let (model, name) = super::load_scene(a.scene.as_deref(), &cfg)?;
                let h = super::spawn(cfg, model, &name, "127.0.0.1:0").await?;
                let url = h.url();
                (soak(&a, &url, None).await?, Some(h))
            }
        };
        if let Some(h) = handle {
            h.shutdown().await?;
        }
        if a.json {
            println!("{}", serde_json::to_string_pretty(&report.value)?);
        } else {
            print_report(&report.value);
        }
        anyhow::ensure!(
            report.lost == 0 && report.duplicated == 0 && report.faults == 0,
            "soak failed: {} lost, {} duplicated, {} physics faults",
            report.lost,
            report.duplicated,
            report.faults
        );
        Ok(())
    })
}

fn print_report(v: &Value) {
    let g = |p: &str| v.pointer(p).cloned().unwrap_or(Value::Null);
    println!(
        "soak: {:.1} s, {} ticks, {} controllers",
        g("/duration_s").as_f64().unwrap_or(0.0),
        g("/ticks"),
        g("/controllers")
    );
    println!(
        "commands: sent {} applied {} lost {} duplicated {} rejected {}",
        g("/commands/sent"),
        g("/commands/applied"),
        g("/commands/lost"),
        g("/commands/duplicated"),
        g("/commands/rejected")
    );
    println!(
        "round trip (send -> ack in a state): p50 {:.0} us, p99 {:.0} us, max {:.0} us",
        g("/round_trip_us/p50").as_f64().unwrap_or(0.0),
        g("/round_trip_us/p99").as_f64().unwrap_or(0.0),
        g("/round_trip_us/max").as_f64().unwrap_or(0.0)
    );
    println!(
        "ticks: overruns {} skipped {}; lateness p99 {} us max {} us; compute p99 {} us",
        g("/ticks_overrun"),
        g("/ticks_skipped"),
        g("/tick_lateness_us/p99"),
        g("/tick_lateness_us/max"),
        g("/tick_compute_us/p99")
    );
    println!("faults: {}", g("/faults"));
    println!("rss: {}", g("/rss_kb"));
}
