//! The short soak of CI: `rtphys soak --duration 4s --faults` in process, over real
//! gRPC on loopback — closed-loop controllers, controllers killed mid-stream and
//! stopped (watchdog), subscribers that never read, floods of silent connections.
//! No command may be lost or duplicated, the physics must not fault, RSS stays bounded.
//! The long run is a command: `rtphys soak --duration 1h --faults` (docs/SERVER.md).

use rtphys::server::soak::{soak, SoakArgs};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_soak_with_faults_loses_and_duplicates_nothing() {
    let secs: f64 = std::env::var("RTPHYS_SOAK_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4.0);
    let cfg = rtphys::config::Config::default();
    let (model, name) = rtphys::server::load_scene(None, &cfg).unwrap();
    let h = rtphys::server::spawn(cfg, model, &name, "127.0.0.1:0")
        .await
        .unwrap();
    let a = SoakArgs {
        duration: Duration::from_secs_f64(secs),
        faults: true,
        ..Default::default()
    };
    let r = soak(&a, &h.url(), None).await.expect("soak runs");
    println!("{}", serde_json::to_string_pretty(&r.value).unwrap());
    assert!(r.sent > 100, "controllers ran: {} commands", r.sent);
    assert_eq!(r.lost, 0, "lost commands: {}", r.value);
    assert_eq!(r.duplicated, 0, "duplicated commands: {}", r.value);
    assert_eq!(r.rejected, 0, "rejected commands: {}", r.value);
    assert_eq!(r.faults, 0, "physics faults: {}", r.value);
    assert!(
        r.ticks as f64 > 0.25 * 1000.0 * secs,
        "the world kept ticking: {}",
        r.value
    );
    assert!(r.killed >= 2, "controllers were killed: {}", r.value);
    assert!(
        r.watchdog_trips >= 2,
        "the stopped controller tripped its watchdog: {}",
        r.value
    );
    if let Some(g) = r.rss_growth_kb {
        assert!(g < 64 * 1024, "RSS grew by {g} kB: {}", r.value);
    }
    // The server still serves.
    let mut c = rtphys::server::client::Client::connect(&h.url())
        .await
        .unwrap();
    assert!(c.stats(false).await.unwrap().fault.is_empty());
    h.shutdown().await.unwrap();
}
