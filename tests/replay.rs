//! Command-log record/replay over real gRPC: drive a world with streamed wrenches,
//! joint commands and unary calls (lockstep and realtime), record the inputs, replay
//! the log offline on the scene file and compare the states bit for bit (the hash of
//! every f64 of every body and joint).

mod server_common;

use rtphys::config::{Config, Mode};
use rtphys::math::SplitMix64;
use rtphys::runtime::replay::replay;
use rtphys::server::client::{body, effort, joint, pb, servo, wrench};
use rtphys::server::convert::state_hash;
use server_common::{cfg, start_file};
use std::path::PathBuf;

fn record_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtphys-replay-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn cfg_rec(mode: Mode, dir: &std::path::Path) -> Config {
    let mut c = cfg(mode);
    c.server.record_dir = dir.display().to_string();
    c.watchdog.safe_behavior = rtphys::config::SafeBehavior::Damp;
    c
}

fn rnd3(r: &mut SplitMix64, s: f64) -> [f64; 3] {
    [r.uniform(-s, s), r.uniform(-s, s), r.uniform(-s, s)]
}

/// Replay `log` on `scene` and check it against the recorded end and the server's
/// state (read over gRPC while the world was paused at the end tick).
fn check_replay(scene: &str, log: &str, info: &pb::RecordingInfo, server_state: &pb::State) {
    let model = rtphys::model::scene::load_scene_file(scene).expect("scene loads");
    let o = replay(model, std::path::Path::new(log), None).expect("replay runs");
    assert_eq!(info.lost, 0, "no record lost");
    assert!(o.recorded.is_some(), "the log has its end record");
    assert_eq!(o.tick, info.end_tick, "replay ends at the recorded tick");
    assert_eq!(
        o.hash, info.state_hash,
        "replayed state hash {:016x} vs the server's {:016x}",
        o.hash, info.state_hash
    );
    assert!(o.identical());
    assert_eq!(server_state.tick, info.end_tick);
    assert_eq!(
        state_hash(server_state),
        o.hash,
        "the state read over gRPC hashes to the replay's"
    );
    assert!(
        o.records > 10,
        "the log holds the run's inputs ({} records)",
        o.records
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lockstep_run_replays_bit_identically() {
    const SCENE: &str = "config/scenes/default.toml";
    let dir = record_dir("lockstep");
    let (h, mut c) = start_file(cfg_rec(Mode::Lockstep, &dir), SCENE).await;
    let start = c
        .start_recording("run.log")
        .await
        .expect("recording starts");
    assert_eq!(start.start_tick, 0, "the recording starts from the scene");
    // A second recording is refused while one runs; a path is refused.
    let e = c.start_recording("other.log").await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e:?}");
    let e = c.start_recording("../x.log").await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");

    let mut ctl = c
        .control(pb::ControlHello {
            name: "replay".into(),
            lockstep: true,
            watchdog_timeout_s: -1.0,
            ..Default::default()
        })
        .await
        .expect("control opens");
    ctl.next_state().await.unwrap();
    let mut r = SplitMix64::new(16);
    let bodies = ["red_box", "blue_box", "green_ball", "yellow_can"];
    for k in 0..600u32 {
        let b = bodies[(r.next_u64() % 4) as usize];
        let mut w = wrench(body(b), rnd3(&mut r, 2.0), rnd3(&mut r, 0.05));
        if k.is_multiple_of(7) {
            w.duration_s = 0.013;
        }
        if k.is_multiple_of(11) {
            w.point = rnd3(&mut r, 0.02).to_vec();
            w.frame = pb::Frame::Body as i32;
        }
        let seq = ctl.send(vec![w], k.is_multiple_of(50)).await.unwrap();
        ctl.wait_ack(seq).await.expect("ack");
        if k == 200 {
            // A unary wrench from another source, held for 40 ms.
            let mut u = wrench(body("red_box"), [0.0, 1.5, 0.0], [0.0; 3]);
            u.duration_s = 0.04;
            c.apply_wrench(u).await.expect("ApplyWrench");
        }
        if k == 400 {
            c.reset().await.expect("Reset is recorded too");
        }
    }
    c.pause().await.unwrap();
    let info = c.stop_recording().await.expect("recording stops");
    let st = c.state().await.unwrap();
    check_replay(SCENE, &info.path, &info, &st);
    assert_eq!(info.ended, "stopped");
    drop(ctl);
    h.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn realtime_robot_run_replays_bit_identically() {
    const SCENE: &str = "config/scenes/arm.toml";
    let dir = record_dir("realtime");
    let (h, mut c) = start_file(cfg_rec(Mode::Realtime, &dir), SCENE).await;
    c.start_recording("arm.log")
        .await
        .expect("recording starts");
    let mut ctl = c
        .control(pb::ControlHello {
            name: "arm".into(),
            watchdog_timeout_s: 0.05,
            latest_only: true,
            ..Default::default()
        })
        .await
        .expect("control opens");
    ctl.next_state().await.unwrap();
    let mut r = SplitMix64::new(7);
    let t0 = std::time::Instant::now();
    let mut n = 0u32;
    while t0.elapsed() < std::time::Duration::from_millis(700) {
        n += 1;
        let j = 1 + (r.next_u64() % 7);
        let cmd = if n.is_multiple_of(3) {
            servo(joint(&format!("arm/joint{j}")), r.uniform(-0.3, 0.3), 0.0)
        } else {
            effort(joint(&format!("arm/joint{j}")), r.uniform(-2.0, 2.0))
        };
        let w = wrench(body("arm/link7"), rnd3(&mut r, 3.0), rnd3(&mut r, 0.2));
        ctl.send_with_joints(vec![w], false, vec![cmd])
            .await
            .unwrap();
        if n == 300 {
            // Silence past the watchdog (damp) and back.
            tokio::time::sleep(std::time::Duration::from_millis(80)).await;
        }
        ctl.next_state().await.unwrap();
    }
    ctl.close();
    while ctl.next_state().await.ok().flatten().is_some() {}
    tokio::time::sleep(std::time::Duration::from_millis(30)).await;
    c.pause().await.unwrap();
    let info = c.stop_recording().await.expect("recording stops");
    let st = c.state().await.unwrap();
    assert!(
        info.end_tick > 300,
        "ran in real time: {} ticks",
        info.end_tick
    );
    check_replay(SCENE, &info.path, &info, &st);
    h.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recording_ends_at_a_scene_load_and_replay_refuses_another_scene() {
    const SCENE: &str = "config/scenes/default.toml";
    let dir = record_dir("load");
    let (h, mut c) = start_file(cfg_rec(Mode::Lockstep, &dir), SCENE).await;
    c.start_recording("a.log").await.unwrap();
    c.apply_wrench(wrench(body("blue_box"), [1.0, 0.0, 0.0], [0.0; 3]))
        .await
        .unwrap();
    c.step(100).await.unwrap();
    let text = std::fs::read_to_string(SCENE).unwrap();
    c.raw
        .load_scene(pb::LoadSceneRequest {
            source: Some(pb::load_scene_request::Source::Toml(text)),
            name: "again".into(),
        })
        .await
        .expect("LoadScene");
    // The physics thread ended the recording at the load; Stop collects it.
    let info = c
        .stop_recording()
        .await
        .expect("the ended recording is reported");
    assert_eq!(info.ended, "a scene was loaded");
    assert_eq!(info.end_tick, 100);
    let model = rtphys::model::scene::load_scene_file(SCENE).unwrap();
    let o = replay(model, std::path::Path::new(&info.path), None).unwrap();
    assert!(o.identical(), "{o:?} vs {info:?}");
    // Not recording now.
    let e = c.stop_recording().await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    // A log of another scene is refused by replay.
    let other = rtphys::model::scene::load_scene_file("config/scenes/arm.toml").unwrap();
    let e = replay(other, std::path::Path::new(&info.path), None).unwrap_err();
    assert!(e.to_string().contains("recorded on another scene"), "{e}");
    h.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The commands: `rtphys serve --record-inputs FILE` (lockstep, driven over gRPC,
/// stopped by SIGTERM), then `rtphys replay SCENE FILE` prints "identical".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_record_inputs_then_rtphys_replay_is_identical() {
    use std::io::BufRead;
    let bin = env!("CARGO_BIN_EXE_rtphys");
    let dir = record_dir("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("cli.log");
    let mut srv = std::process::Command::new(bin)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--mode",
            "lockstep",
            "--record-inputs",
        ])
        .arg(&log)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rtphys serve starts");
    let mut lines = std::io::BufReader::new(srv.stdout.take().unwrap()).lines();
    let addr = lines
        .find_map(|l| {
            l.ok()?
                .strip_prefix("rtphys listening on ")
                .map(str::to_string)
        })
        .expect("listening line");
    let mut c = rtphys::server::client::Client::connect(&addr)
        .await
        .unwrap();
    c.apply_wrench(wrench(body("red_box"), [0.0, 2.0, 0.0], [0.0, 0.0, 0.1]))
        .await
        .unwrap();
    c.step(300).await.unwrap();
    c.clear_wrenches(vec![]).await.unwrap();
    c.step(200).await.unwrap();
    drop(c);
    unsafe { libc::kill(srv.id() as i32, libc::SIGTERM) };
    assert!(srv.wait().unwrap().success(), "serve exits 0 on SIGTERM");
    let out = std::process::Command::new(bin)
        .args(["replay", "config/scenes/default.toml"])
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("to tick 500") && text.contains("identical"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
