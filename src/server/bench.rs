//! Transport benchmarks: command -> state round trip through a control stream,
//! tick start lateness in realtime mode, and fan-out to many subscribers. All on
//! loopback against an in-process server. Exposed as a library function (wired to
//! `rtphys bench transport` by the CLI) and as `clients/rust/examples/transport_bench.rs`.

use super::client::{body, pb, Client};
use crate::config::{Config, Mode};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What to run and for how long.
#[derive(Clone, Debug)]
pub struct TransportBenchOpts {
    /// Round trips per round-trip scenario (the issue asks for 20,000).
    pub messages: usize,
    /// Client command rate, Hz.
    pub rate_hz: f64,
    /// Seconds of tick-lateness measurement per rate (1 kHz and 10 kHz).
    pub lateness_secs: f64,
    /// Subscribers of the fan-out scenario and its duration, s.
    pub fanout_subscribers: usize,
    pub fanout_secs: f64,
    /// Physics-thread settings for the realtime scenarios.
    pub spin_us: u64,
    pub lockstep_spin_us: u64,
    /// SCHED_FIFO priority of the physics thread (0 = normal scheduling) and CPU pin (-1 = none).
    pub fifo_priority: i32,
    pub cpu: i32,
}

impl Default for TransportBenchOpts {
    fn default() -> Self {
        TransportBenchOpts {
            messages: 20_000,
            rate_hz: 1000.0,
            lateness_secs: 60.0,
            fanout_subscribers: 16,
            fanout_secs: 10.0,
            spin_us: 60,
            lockstep_spin_us: 0,
            fifo_priority: 0,
            cpu: -1,
        }
    }
}

fn pct(v: &mut [f64]) -> Value {
    if v.is_empty() {
        return json!(null);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    json!({
        "n": v.len(),
        "p50_us": q(0.5), "p99_us": q(0.99), "p999_us": q(0.999), "max_us": v[v.len() - 1],
        "mean_us": v.iter().sum::<f64>() / v.len() as f64,
    })
}

fn hist_json(h: &Option<pb::LatencyHistogram>) -> Value {
    let h = (*h).unwrap_or_default();
    json!({"n": h.count, "p50_us": h.p50_us, "p99_us": h.p99_us, "p999_us": h.p999_us, "max_us": h.max_us, "mean_us": h.mean_us})
}

/// Round trips through one control stream: send command seq i at an absolute
/// 1/rate pace, wait for the state that acknowledges it.
async fn round_trips(addr: &str, n: usize, rate_hz: f64, lockstep: bool) -> anyhow::Result<Value> {
    let mut c = Client::connect(addr).await?;
    let mut ctl = c
        .control(pb::ControlHello {
            name: "bench".into(),
            lockstep,
            fields: vec![pb::StateField::Pose as i32],
            bodies: vec![body("red_box")],
            watchdog_timeout_s: -1.0,
            ..Default::default()
        })
        .await?;
    ctl.next_state().await?;
    let period = Duration::from_secs_f64(1.0 / rate_hz);
    let mut rtt = Vec::with_capacity(n);
    let mut apply = Vec::with_capacity(n);
    let warm = n / 20;
    let t0 = Instant::now();
    for i in 0..n + warm {
        let deadline = t0 + period * i as u32;
        let now = Instant::now();
        if deadline > now {
            spin_sleep::sleep(deadline - now);
        }
        let t = Instant::now();
        let seq = ctl
            .send(
                vec![pb::BodyWrench {
                    body: Some(body("red_box")),
                    force: vec![0.0, 0.0, 0.0],
                    ..Default::default()
                }],
                false,
            )
            .await?;
        let s = ctl.wait_ack(seq).await?;
        let dt = t.elapsed().as_secs_f64() * 1e6;
        if i >= warm {
            rtt.push(dt);
            if let Some(a) = ctl.own_ack(&s) {
                apply.push((a.server_apply_ns - a.server_receive_ns) as f64 * 1e-3);
            }
        }
    }
    Ok(json!({"round_trip": pct(&mut rtt), "server_receive_to_apply": pct(&mut apply)}))
}

fn server_cfg(mode: Mode, o: &TransportBenchOpts) -> Config {
    let mut cfg = Config::default();
    cfg.physics.mode = mode;
    cfg.physics.spin_us = o.spin_us;
    cfg.physics.lockstep_spin_us = o.lockstep_spin_us;
    cfg.server.max_streams = 64;
    cfg.realtime.fifo_priority = o.fifo_priority;
    cfg.realtime.cpu = o.cpu;
    cfg
}

/// Run the transport benchmarks; returns the figures as JSON.
pub fn transport_bench(o: &TransportBenchOpts) -> anyhow::Result<Value> {
    let (model, _) = super::load_scene(None, &Config::default())?;
    // The server runs on its own runtime; clients on another, as separate processes would.
    let srv_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let cli_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut out = json!({
        "machine": { "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) },
        "options": { "messages": o.messages, "rate_hz": o.rate_hz, "lateness_secs": o.lateness_secs,
                     "fanout_subscribers": o.fanout_subscribers, "fanout_secs": o.fanout_secs,
                     "spin_us": o.spin_us, "lockstep_spin_us": o.lockstep_spin_us,
                     "fifo_priority": o.fifo_priority, "cpu": o.cpu },
    });

    // 1. Lockstep round trip: the command itself triggers the tick (HIL contract).
    if o.messages > 0 {
        let h = srv_rt.block_on(super::spawn(
            server_cfg(Mode::Lockstep, o),
            model.clone(),
            "bench",
            "127.0.0.1:0",
        ))?;
        let url = h.url();
        out["rtt_lockstep"] = cli_rt.block_on(round_trips(&url, o.messages, o.rate_hz, true))?;
        srv_rt.block_on(h.shutdown())?;
        // 2. Realtime 1 kHz: the command waits for the next tick boundary.
        let h = srv_rt.block_on(super::spawn(
            server_cfg(Mode::Realtime, o),
            model.clone(),
            "bench",
            "127.0.0.1:0",
        ))?;
        let url = h.url();
        out["rtt_realtime_1khz"] =
            cli_rt.block_on(round_trips(&url, o.messages, o.rate_hz, false))?;
        let st = cli_rt.block_on(async {
            Client::connect(&url)
                .await?
                .stats(false)
                .await
                .map_err(anyhow::Error::from)
        })?;
        out["rtt_realtime_1khz"]["overruns"] = json!(st.overruns);
        srv_rt.block_on(h.shutdown())?;
    }

    // 3. Tick start lateness at 1 kHz and 10 kHz.
    if o.lateness_secs > 0.0 {
        let h = srv_rt.block_on(super::spawn(
            server_cfg(Mode::Realtime, o),
            model.clone(),
            "bench",
            "127.0.0.1:0",
        ))?;
        let url = h.url();
        for (key, rtf) in [("lateness_1khz", 1.0), ("lateness_10khz", 10.0)] {
            let st = cli_rt.block_on(async {
                let mut c = Client::connect(&url).await?;
                c.set_mode(pb::RunMode::Realtime, rtf).await?;
                tokio::time::sleep(Duration::from_millis(200)).await;
                c.stats(true).await?;
                tokio::time::sleep(Duration::from_secs_f64(o.lateness_secs)).await;
                c.stats(false).await.map_err(anyhow::Error::from)
            })?;
            out[key] = json!({
                "rate_hz": st.rate_hz, "ticks": st.ticks, "overruns": st.overruns, "skipped": st.skipped_ticks,
                "lateness": hist_json(&st.tick_lateness), "compute": hist_json(&st.tick_compute),
                "realtime_factor": st.realtime_factor_total,
            });
        }
        srv_rt.block_on(h.shutdown())?;
    }

    // 4. Fan-out: N subscribers on their own connections, every tick at 1 kHz.
    if o.fanout_subscribers > 0 && o.fanout_secs > 0.0 {
        let h = srv_rt.block_on(super::spawn(
            server_cfg(Mode::Realtime, o),
            model.clone(),
            "bench",
            "127.0.0.1:0",
        ))?;
        let url = h.url();
        let n = o.fanout_subscribers;
        let secs = o.fanout_secs;
        let res = cli_rt.block_on(async {
            let mut c = Client::connect(&url).await?;
            let mut tasks = Vec::new();
            for _ in 0..n {
                let mut sc = Client::connect(&url).await?;
                let mut s = sc.watch(pb::StreamStateRequest::default()).await?;
                tasks.push(tokio::spawn(async move {
                    let end = Instant::now() + Duration::from_secs_f64(secs);
                    let (mut got, mut dropped, mut lag) = (0u64, 0u64, Vec::new());
                    while Instant::now() < end {
                        match s.message().await {
                            Ok(Some(st)) => {
                                got += 1;
                                dropped = st.dropped;
                                lag.push((crate::runtime::clock::mono_ns() - st.server_time_ns) as f64 * 1e-3);
                            }
                            _ => break,
                        }
                    }
                    (got, dropped, lag)
                }));
            }
            c.stats(true).await?;
            let mut got = Vec::new();
            let mut dropped = 0;
            let mut lag = Vec::new();
            for t in tasks {
                let (g, d, l) = t.await?;
                got.push(g);
                dropped += d;
                lag.extend(l);
            }
            let st = c.stats(false).await?;
            anyhow::Ok(json!({
                "subscribers": n, "secs": secs,
                "states_per_subscriber_min": got.iter().min(), "states_per_subscriber_max": got.iter().max(),
                "dropped_total": dropped, "overruns": st.overruns,
                "tick_to_client": pct(&mut lag),
                "lateness": hist_json(&st.tick_lateness), "compute": hist_json(&st.tick_compute),
            }))
        })?;
        out["fanout"] = res;
        srv_rt.block_on(h.shutdown())?;
    }
    Ok(out)
}
