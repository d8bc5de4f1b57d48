//! A minimal Prometheus text endpoint (GET /metrics), off unless
//! `server.metrics_listen` is set. Hand-written to keep the dependency tree small.

use crate::runtime::{Admin, Runtime};
use std::fmt::Write as _;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub async fn spawn(rt: Runtime, addr: SocketAddr) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                continue;
            };
            let rt = rt.clone();
            tokio::spawn(async move {
                let mut req = [0u8; 1024];
                let _ =
                    tokio::time::timeout(std::time::Duration::from_secs(2), sock.read(&mut req))
                        .await;
                let body = render(&rt)
                    .await
                    .unwrap_or_else(|| "# physics thread not running\n".into());
                let resp = format!(
                    "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\n\r\n{}",
                    body.len(),
                    body
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    Ok(())
}

async fn render(rt: &Runtime) -> Option<String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    rt.admin(Admin::Stats {
        buf: rt.new_stats_buf(),
        reset: false,
        reply: tx,
    })
    .ok()?;
    let s = rx.await.ok()?;
    let p = super::service::stats_reply(rt, &s);
    let mut o = String::new();
    let mut g = |name: &str, help: &str, v: f64| {
        let _ = writeln!(
            o,
            "# HELP rtphys_{name} {help}\n# TYPE rtphys_{name} gauge\nrtphys_{name} {v}"
        );
    };
    g("tick", "Completed ticks of the world.", p.tick as f64);
    g("sim_time_seconds", "Simulated time.", p.sim_time);
    g(
        "realtime_factor_recent",
        "Simulated over wall time, last second.",
        p.realtime_factor_recent,
    );
    g(
        "overruns_total",
        "Ticks that ended after the next deadline.",
        p.overruns as f64,
    );
    g(
        "skipped_ticks_total",
        "Deadlines skipped after overruns.",
        p.skipped_ticks as f64,
    );
    g(
        "command_queue_full_total",
        "Commands refused on a full queue.",
        p.command_queue_full as f64,
    );
    g(
        "state_frames_dropped_total",
        "States lost by slow subscribers.",
        p.state_frames_dropped as f64,
    );
    g("subscribers", "Open streams.", p.subscribers as f64);
    g("controllers", "Open control streams.", p.controllers as f64);
    g(
        "faulted",
        "1 while a caught physics panic has the world paused (Reset/LoadScene recover).",
        if p.fault.is_empty() { 0.0 } else { 1.0 },
    );
    g("faults_total", "Physics panics caught.", p.faults as f64);
    g(
        "stale_seq_total",
        "Control commands refused for a non-increasing seq.",
        p.stale_seq as f64,
    );
    g("connections", "Open TCP connections.", p.connections as f64);
    g(
        "connections_refused_total",
        "Connections closed at once: server.max_connections reached.",
        p.connections_refused as f64,
    );
    g(
        "connections_idle_closed_total",
        "Connections closed after server.idle_timeout_s of silence.",
        p.connections_idle_closed as f64,
    );
    g(
        "rate_limited_total",
        "Requests refused by server.rate_limit_per_s.",
        p.rate_limited as f64,
    );
    for (name, h) in [
        ("tick_compute", p.tick_compute),
        ("tick_lateness", p.tick_lateness),
    ] {
        let h = h.unwrap_or_default();
        for (q, v) in [
            ("0.5", h.p50_us),
            ("0.99", h.p99_us),
            ("0.999", h.p999_us),
            ("1", h.max_us),
        ] {
            let _ = writeln!(o, "rtphys_{name}_seconds{{quantile=\"{q}\"}} {}", v * 1e-6);
        }
        let _ = writeln!(o, "rtphys_{name}_seconds_count {}", h.count);
    }
    Some(o)
}
