//! Connections (issue 16): 200 silent TCP connections do not lock a new client out
//! (a connection limit and an idle timeout; the server runs as its own process with
//! a low file-descriptor limit, as an attacked server would), silent sockets are
//! closed, the per-connection request rate limit. Real gRPC over loopback.

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;
use rtphys::server::client::Client;
use std::io::{BufRead as _, Read as _};
use std::time::Duration;
use tonic::Code;

/// `rtphys serve` under `ulimit -n 128` with `config`; returns the child and its address.
fn serve_limited(config: &str) -> (std::process::Child, String) {
    let dir = std::env::temp_dir().join(format!("rtphys-conn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("server.toml");
    std::fs::write(&cfg, config).unwrap();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 128 && exec {} serve --config {} --listen 127.0.0.1:0",
            env!("CARGO_BIN_EXE_rtphys"),
            cfg.display()
        ))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut addr = None;
    for _ in 0..100 {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if let Some(a) = line.trim().strip_prefix("rtphys listening on ") {
            addr = Some(a.to_string());
            break;
        }
    }
    let addr = addr.expect("the server prints its address");
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = out.read_to_end(&mut sink);
    });
    (child, addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_do_not_lock_out_a_new_client() {
    // The default idle timeout (60 s) is longer than the wait below: the new client
    // gets in by evicting the longest-silent connection at the limit.
    let (mut child, addr) = serve_limited("[server]\nmax_connections = 64\n");
    // 200 connections that never speak (more than the server's descriptors).
    let mut silent = Vec::new();
    for _ in 0..200 {
        silent.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    // A new client gets served (retrying while the silent ones are being closed).
    let mut served = false;
    let t = std::time::Instant::now();
    while t.elapsed() < Duration::from_secs(30) {
        let attempt = async {
            let mut c = Client::connect(&format!("http://{addr}")).await?;
            c.world().await?;
            c.stats(false).await.map_err(anyhow::Error::from)
        };
        if let Ok(Ok(st)) = tokio::time::timeout(Duration::from_secs(5), attempt).await {
            assert!(
                st.connections_refused + st.connections_idle_closed > 0,
                "{st:?}"
            );
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    drop(silent);
    assert!(
        served,
        "a new client was locked out for 30 s by 200 silent connections"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_and_excess_connections_are_closed() {
    let mut cf = cfg(Mode::Lockstep);
    cf.server.max_connections = 4;
    cf.server.idle_timeout_s = 0.5;
    let (srv, c) = start(cf, ZERO_G).await;
    drop(c);
    let addr = srv.addr;
    // Closed by the peer: read returns 0 bytes or an error (reset).
    let closed = |mut s: std::net::TcpStream| {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut b = [0u8; 64];
        loop {
            match s.read(&mut b) {
                Ok(0) => return true,
                Ok(_) => continue, // the server's HTTP/2 preface
                Err(e) => {
                    return !matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    )
                }
            }
        }
    };
    let socks: Vec<_> = (0..6)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    let results =
        tokio::task::spawn_blocking(move || socks.into_iter().map(closed).collect::<Vec<_>>())
            .await
            .unwrap();
    assert!(results.iter().all(|&c| c), "{results:?}");
    let mut c = Client::connect(&srv.url()).await.unwrap();
    let st = c.stats(false).await.unwrap();
    // Each silent socket was closed: refused at the limit, evicted as the longest
    // silent, or closed by the idle timeout (which one depends on scheduling).
    assert!(
        st.connections_refused + st.connections_idle_closed >= 6,
        "{st:?}"
    );
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_beyond_the_rate_limit_are_refused() {
    let mut cf = cfg(Mode::Lockstep);
    cf.server.rate_limit_per_s = 1.0;
    cf.server.rate_limit_burst = 2.0;
    let (srv, mut c) = start(cf, ZERO_G).await;
    let mut limited = 0;
    for _ in 0..20 {
        match c.world().await {
            Ok(_) => {}
            Err(e) => {
                assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
                assert!(e.message().contains("rate_limit_per_s"), "{}", e.message());
                limited += 1;
            }
        }
    }
    // At most the burst (2) plus one per second elapsed get through.
    assert!(limited >= 5, "{limited} of 20 refused");
    // Another connection has its own bucket.
    let mut d = Client::connect(&srv.url()).await.unwrap();
    d.world().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let st = d.stats(false).await.unwrap();
    assert!(st.rate_limited >= limited, "{st:?}");
    srv.shutdown().await.unwrap();
}
