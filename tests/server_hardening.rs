//! Hardening of the server (issue 16), each over real gRPC on loopback to an
//! in-process server: LoadScene confined to the scene roots, scene magnitudes
//! bounded, a physics panic leaves a reported and recoverable world, the Control
//! stream protocol (hello first, increasing seq, malformed messages end the stream
//! with INVALID_ARGUMENT), stream slots reserved for controllers, Step honouring
//! its caller's deadline, wrenches on robot links, per-body wrench limits.

#[path = "server_common/mod.rs"]
mod common;

use common::*;
use rtphys::config::Mode;
use rtphys::server::client::{body, pb, wrench, Client};
use std::path::PathBuf;
use std::time::Duration;
use tokio_stream::StreamExt as _;
use tonic::Code;

fn load_path_req(p: &str) -> pb::LoadSceneRequest {
    pb::LoadSceneRequest {
        source: Some(pb::load_scene_request::Source::Path(p.to_string())),
        name: String::new(),
    }
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtphys-harden-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_scene_is_confined_to_the_scene_roots() {
    let root = scratch("roots");
    std::fs::write(root.join("fall.toml"), FALL).unwrap();
    std::fs::write(root.join("big.toml"), "#".repeat(8192)).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/passwd", root.join("passwd.toml")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.toml")).unwrap();
        let fifo = std::ffi::CString::new(root.join("fifo.toml").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    }
    let mut cf = cfg(Mode::Realtime);
    cf.server.scene_roots = vec![root.display().to_string()];
    cf.server.max_scene_bytes = 4096;
    let (srv, mut c) = start(cf, ZERO_G).await;
    let refused = [
        "/etc/passwd".to_string(),
        "/etc/shadow".to_string(),
        "/proc/self/environ".to_string(),
        "/dev/zero".to_string(),
        "../../../../../../../../etc/passwd".to_string(),
        format!("{}/../../../../../../etc/passwd", root.display()),
        "Cargo.toml".to_string(),
        // Symlinks inside the root that point out of it.
        root.join("passwd.toml").display().to_string(),
        "passwd.toml".to_string(),
        "zero.toml".to_string(),
    ];
    for p in &refused {
        let e = tokio::time::timeout(Duration::from_secs(20), c.raw.load_scene(load_path_req(p)))
            .await
            .unwrap_or_else(|_| panic!("LoadScene({p}) must answer at once"))
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{p}: {e:?}");
        assert!(
            e.message().contains("outside the scene roots"),
            "{p}: {}",
            e.message()
        );
        assert!(
            !e.message().contains("root:") && !e.message().contains("[package]"),
            "{p}: the error echoes file content: {}",
            e.message()
        );
    }
    // Inside the root but not a regular file, or too large: refused without reading.
    for (p, what) in [
        ("fifo.toml", "not a regular file"),
        ("big.toml", "max_scene_bytes"),
    ] {
        let e = tokio::time::timeout(
            Duration::from_secs(20),
            c.raw
                .load_scene(load_path_req(&root.join(p).display().to_string())),
        )
        .await
        .unwrap_or_else(|_| panic!("LoadScene({p}) must answer at once (FIFO: never opened)"))
        .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{p}: {e:?}");
        assert!(e.message().contains(what), "{p}: {}", e.message());
    }
    // A scene inside the root loads (absolute, or relative to the root).
    let w = c.raw.load_scene(load_path_req("fall.toml")).await.unwrap();
    assert_eq!(w.into_inner().bodies.len(), 2);
    let w = c
        .raw
        .load_scene(load_path_req(&root.join("fall.toml").display().to_string()))
        .await
        .unwrap();
    assert_eq!(w.into_inner().bodies.len(), 2);
    // An inline scene over the size bound.
    let big = format!("{FALL}\n{}", "#".repeat(5000));
    let e = c.load_scene_toml(&big, "big").await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("max_scene_bytes"), "{}", e.message());
    srv.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&root);
}

/// The URDFs a scene names must be inside the roots too; an inline scene resolves
/// relative URDF paths against the first root (config/scenes by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scene_references_are_confined_too() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    let arm = std::fs::read_to_string("config/scenes/arm.toml").unwrap();
    assert!(arm.contains("urdf = \"../robots/arm7.urdf\""));
    // Relative to the first root: config/scenes/../robots/arm7.urdf.
    let w = c.load_scene_toml(&arm, "arm").await.unwrap();
    assert_eq!(w.joints.len(), 7);
    // The shipped scene by its path (relative to the working directory).
    let w = c
        .raw
        .load_scene(load_path_req("config/scenes/arm.toml"))
        .await
        .unwrap();
    assert_eq!(w.into_inner().joints.len(), 7);
    for u in ["/etc/passwd", "../../../../../../etc/passwd", "/dev/zero"] {
        let text = arm.replace("../robots/arm7.urdf", u);
        let e = tokio::time::timeout(Duration::from_secs(20), c.load_scene_toml(&text, "x"))
            .await
            .expect("answers at once")
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{u}: {e:?}");
        assert!(
            e.message().contains("robot[0].urdf")
                && e.message().contains("outside the scene roots"),
            "{u}: {}",
            e.message()
        );
        assert!(!e.message().contains("root:"), "{}", e.message());
    }
    srv.shutdown().await.unwrap();
}

/// Huge but finite values are refused with file:line: key (they used to panic the
/// contact code: `rtphys run` exited 101).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_scene_values_are_refused_with_file_line_key() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    let cases = [
        (
            FALL.replace(
                "position = [0.0, 0.0, 10.0]",
                "position = [0.0, 0.0, -1e308]",
            ),
            ":17: body[1] ('box').position",
        ),
        (
            FALL.replace(
                "gravity = [0.0, 0.0, -9.81]",
                "gravity = [0.0, 0.0, -1e308]",
            ),
            ":3: world.gravity",
        ),
        (
            FALL.replace("mass = 1.0", "mass = 1e300"),
            ":16: body[1] ('box').mass",
        ),
        (
            FALL.replace(
                "half_extents = [0.1, 0.1, 0.1]",
                "half_extents = [1e300, 0.1, 0.1]",
            ),
            ":15: body[1] ('box').shape",
        ),
        (
            FALL.replace("mass = 1.0", "density = 1e-12"),
            ":16: body[1] ('box').density",
        ),
    ];
    for (text, want) in &cases {
        let e = c.load_scene_toml(text, "huge").await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{want}: {e:?}");
        assert!(
            e.message().contains(want),
            "want {want:?} in {}",
            e.message()
        );
    }
    // A URDF cylinder of length 1e308, through a scene inside the roots.
    let dir = PathBuf::from("config/robots");
    let urdf = std::fs::read_to_string(dir.join("arm7.urdf")).unwrap();
    let re = urdf.find("length=\"").expect("the arm has a cylinder");
    let end = re + 8 + urdf[re + 8..].find('"').unwrap();
    let bad = format!("{}length=\"1e308{}", &urdf[..re], &urdf[end..]);
    let name = format!("_huge_{}.urdf", std::process::id());
    std::fs::write(dir.join(&name), bad).unwrap();
    let scene = std::fs::read_to_string("config/scenes/arm.toml")
        .unwrap()
        .replace("arm7.urdf", &name);
    let e = c.load_scene_toml(&scene, "huge_urdf").await.unwrap_err();
    let _ = std::fs::remove_file(dir.join(&name));
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(
        e.message().contains(&name)
            && e.message().contains("length")
            && e.message().contains("out of range"),
        "{}",
        e.message()
    );
    srv.shutdown().await.unwrap();
}

/// A model built without the scene loader's bounds (a box 1e308 m under the plane):
/// the contact code panics in the physics thread.
/// A box above a plane; the test injects the panic (`Shared::inject_panic`): every
/// input that reaches physics is validated, so no scene is known to panic the step.
fn box_on_plane_model() -> rtphys::Model {
    use rtphys::collision::Shape;
    use rtphys::math::{Pose, Vec3};
    use rtphys::model::{BodySpec, ModelBuilder, Options};
    let mut b = ModelBuilder::new(Options::default());
    b.add_body(BodySpec::fixed("ground", Shape::plane(), Pose::identity()));
    let mut bx = BodySpec::free("box", Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)).unwrap());
    bx.position = Vec3::new(0.0, 0.0, 1.0);
    b.add_body(bx);
    b.finalize().unwrap()
}

async fn health(url: &str, service: &str) -> i32 {
    let ch = tonic::transport::Endpoint::from_shared(url.to_string())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut h = tonic_health::pb::health_client::HealthClient::new(ch);
    h.check(tonic_health::pb::HealthCheckRequest {
        service: service.to_string(),
    })
    .await
    .unwrap()
    .into_inner()
    .status
}

async fn wait_for<F: std::future::Future<Output = bool>>(what: &str, mut f: impl FnMut() -> F) {
    for _ in 0..600 {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

const SERVING: i32 = 1;
const NOT_SERVING: i32 = 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_physics_panic_is_reported_and_recoverable() {
    let mut cf = cfg(Mode::Realtime);
    cf.physics.start_paused = true;
    let srv = rtphys::server::spawn(cf, box_on_plane_model(), "panics", "127.0.0.1:0")
        .await
        .unwrap();
    let url = srv.url();
    let mut c = Client::connect(&url).await.unwrap();
    assert_eq!(health(&url, "").await, SERVING);
    // The step panics: reported to the caller, in the state, in stats, in health.
    srv.runtime
        .shared
        .inject_panic
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let e = c.step(1).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("panicked"), "{}", e.message());
    let st = c.stats(false).await.unwrap();
    assert!(st.fault.contains("panicked at tick 0"), "{:?}", st.fault);
    assert_eq!(st.faults, 1);
    assert!(c.state().await.unwrap().faulted);
    wait_for("NOT_SERVING", || {
        let url = url.clone();
        async move { health(&url, "").await == NOT_SERVING }
    })
    .await;
    assert_eq!(health(&url, "rtphys.v1.Simulation").await, NOT_SERVING);
    // Resume and Step are refused (the state may be half-updated).
    let e = c.resume().await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().contains("Reset or LoadScene"),
        "{}",
        e.message()
    );
    // Reset: back to the state before the fault (paused), serving.
    c.reset().await.unwrap();
    let st = c.stats(false).await.unwrap();
    assert!(st.fault.is_empty(), "{:?}", st.fault);
    assert!(st.paused);
    assert!(!c.state().await.unwrap().faulted);
    wait_for("SERVING after Reset", || {
        let url = url.clone();
        async move { health(&url, "").await == SERVING }
    })
    .await;
    // The next step panics again; LoadScene brings a good world, running.
    srv.runtime
        .shared
        .inject_panic
        .store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        c.step(1).await.unwrap_err().code(),
        Code::FailedPrecondition
    );
    assert_eq!(c.stats(false).await.unwrap().faults, 2);
    c.load_scene_toml(FALL, "fall").await.unwrap();
    c.resume().await.unwrap();
    let t0 = c.state().await.unwrap().tick;
    wait_for("ticks after LoadScene", || {
        let mut c = c.clone();
        async move { c.state().await.unwrap().tick > t0 + 10 }
    })
    .await;
    wait_for("SERVING after LoadScene", || {
        let url = url.clone();
        async move { health(&url, "rtphys.v1.Simulation").await == SERVING }
    })
    .await;
    let st = c.stats(false).await.unwrap();
    assert!(st.fault.is_empty() && !st.paused, "{st:?}");
    srv.shutdown().await.unwrap();
}

/// What a Control stream's client can send: a hello, a command, or junk whose
/// field 2 does not decode as a ControlCommand.
#[derive(Clone, PartialEq, prost::Message)]
struct RawControl {
    #[prost(bytes = "vec", optional, tag = "1")]
    hello: Option<Vec<u8>>,
    #[prost(uint64, optional, tag = "2")]
    junk: Option<u64>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_stream_protocol_errors_end_with_a_status() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    // A message that does not decode, after a valid hello: INVALID_ARGUMENT, not OK.
    let ch = tonic::transport::Endpoint::from_shared(srv.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut g = tonic::client::Grpc::new(ch.clone());
    g.ready().await.unwrap();
    let msgs = vec![
        RawControl {
            hello: Some(Vec::new()),
            junk: None,
        },
        RawControl {
            hello: None,
            junk: Some(7),
        },
    ];
    let path =
        tonic::codegen::http::uri::PathAndQuery::from_static("/rtphys.v1.Simulation/Control");
    let codec = tonic_prost::ProstCodec::<RawControl, pb::State>::default();
    let r = g
        .streaming(
            tonic::Request::new(tokio_stream::iter(msgs).chain(tokio_stream::pending())),
            path,
            codec,
        )
        .await;
    let status = match r {
        Err(e) => e,
        Ok(resp) => {
            let mut s = resp.into_inner();
            loop {
                match tokio::time::timeout(Duration::from_secs(20), s.message())
                    .await
                    .expect("the stream ends")
                {
                    Ok(Some(_)) => continue,
                    Ok(None) => panic!("the stream ended with OK"),
                    Err(e) => break e,
                }
            }
        }
    };
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().contains("malformed"),
        "{}",
        status.message()
    );
    // A second hello ends the stream the same way.
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    let hello = || pb::ControlRequest {
        msg: Some(pb::control_request::Msg::Hello(pb::ControlHello::default())),
    };
    tx.send(hello()).await.unwrap();
    tx.send(hello()).await.unwrap();
    let mut s = c
        .raw
        .control(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let e = loop {
        match tokio::time::timeout(Duration::from_secs(20), s.message())
            .await
            .expect("the stream ends")
        {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended with OK"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("hello"), "{}", e.message());
    drop(tx);
    // A command before any hello is refused.
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tx.send(pb::ControlRequest {
        msg: Some(pb::control_request::Msg::Command(pb::ControlCommand {
            header: Some(pb::CommandHeader {
                seq: 1,
                ..Default::default()
            }),
            wrenches: vec![wrench(body("probe"), [1.0, 0.0, 0.0], [0.0; 3])],
            ..Default::default()
        })),
    })
    .await
    .unwrap();
    let e = c
        .raw
        .control(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("ControlHello"), "{}", e.message());
    drop(tx);
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_seq_must_strictly_increase() {
    let (srv, mut c) = start(cfg(Mode::Lockstep), ZERO_G).await;
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tx.send(pb::ControlRequest {
        msg: Some(pb::control_request::Msg::Hello(pb::ControlHello {
            watchdog_timeout_s: -1.0,
            ..Default::default()
        })),
    })
    .await
    .unwrap();
    let mut s = c
        .raw
        .control(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let cmd = |seq| pb::ControlRequest {
        msg: Some(pb::control_request::Msg::Command(pb::ControlCommand {
            header: Some(pb::CommandHeader {
                seq,
                ..Default::default()
            }),
            wrenches: vec![wrench(body("probe"), [1.0, 0.0, 0.0], [0.0; 3])],
            ..Default::default()
        })),
    };
    for seq in [5, 3, 5, 0, 6] {
        tx.send(cmd(seq)).await.unwrap();
    }
    let mut stale = std::collections::BTreeSet::new();
    let mut last_ack = 0;
    while !(stale.len() == 3 && last_ack == 6) {
        let st = tokio::time::timeout(Duration::from_secs(20), s.message())
            .await
            .expect("states keep coming")
            .unwrap()
            .unwrap();
        for e in &st.errors {
            assert_eq!(e.code, Code::FailedPrecondition as i32, "{e:?}");
            assert!(e.message.contains("strictly increase"), "{}", e.message);
            stale.insert(e.seq);
        }
        if let Some(a) = st.acks.iter().find(|a| a.stream_id == st.stream_id) {
            assert!(
                a.seq >= last_ack,
                "acks go back: {} after {last_ack}",
                a.seq
            );
            last_ack = a.seq;
        }
        if last_ack < 6 && stale.len() == 3 {
            // Lockstep: tick so the queued commands apply.
            c.step(1).await.unwrap();
        }
    }
    assert_eq!(stale, [0, 3, 5].into_iter().collect());
    let stats = c.stats(false).await.unwrap();
    assert_eq!(stats.stale_seq, 3);
    assert_eq!(stats.controller[0].commands_rejected, 3);
    assert_eq!(stats.controller[0].commands_applied, 2);
    drop(tx);
    srv.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_subscribers_cannot_take_the_controller_slots() {
    let mut cf = cfg(Mode::Lockstep);
    cf.server.max_streams = 6;
    cf.server.max_controllers = 2;
    cf.server.reserved_controller_streams = 2;
    let (srv, mut c) = start(cf, ZERO_G).await;
    let mut watchers = Vec::new();
    for _ in 0..4 {
        watchers.push(c.watch(pb::StreamStateRequest::default()).await.unwrap());
    }
    let e = c
        .watch(pb::StreamStateRequest::default())
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(
        e.message().contains("reserved_controller_streams"),
        "{}",
        e.message()
    );
    // Both controllers still get in.
    let a = c.control(pb::ControlHello::default()).await.unwrap();
    let b = c.control(pb::ControlHello::default()).await.unwrap();
    drop((a, b, watchers));
    srv.shutdown().await.unwrap();
}

/// `Step(1e6)` whose caller gives up stops; the next Step is not stuck behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_honours_the_callers_deadline() {
    let (srv, mut c) = start_default(cfg(Mode::Lockstep)).await;
    let mut req = tonic::Request::new(pb::StepRequest {
        n: 1_000_000,
        ..Default::default()
    });
    req.set_timeout(Duration::from_millis(300));
    let e = c.raw.step(req).await.unwrap_err();
    assert!(
        matches!(e.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{e:?}"
    );
    let r = tokio::time::timeout(Duration::from_secs(60), c.step(1))
        .await
        .expect("the next Step is not stuck behind the abandoned one")
        .unwrap();
    assert!(
        r.tick < 1_000_000,
        "the abandoned Step(1e6) ran on: next Step answered at tick {}",
        r.tick
    );
    // And the world stops there: no more ticks without a Step.
    let t = c.state().await.unwrap().tick;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(c.state().await.unwrap().tick, t);
    srv.shutdown().await.unwrap();
}

fn body_named(w: &pb::WorldInfo, name: &str) -> u32 {
    w.bodies
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no body {name}"))
        .id
}

/// A wrench on the arm's last link moves it (links are bodies that accept wrenches).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrench_on_a_robot_link_moves_it() {
    let (srv, mut c) = start_file(cfg(Mode::Lockstep), "config/scenes/arm.toml").await;
    let w = c.world().await.unwrap();
    let id = body_named(&w, "arm/link7");
    let info = w.bodies.iter().find(|b| b.id == id).unwrap();
    assert!(!info.is_static);
    let snap = c.save().await.unwrap();
    let p0 = bs(&c.step(200).await.unwrap().state.unwrap(), id)
        .position
        .clone();
    c.restore(snap.snapshot_id).await.unwrap();
    c.apply_wrench(wrench(body("arm/link7"), [0.0, 10.0, 0.0], [0.0; 3]))
        .await
        .unwrap();
    let p1 = bs(&c.step(200).await.unwrap().state.unwrap(), id)
        .position
        .clone();
    let d = ((p1[0] - p0[0]).powi(2) + (p1[1] - p0[1]).powi(2) + (p1[2] - p0[2]).powi(2)).sqrt();
    assert!(d > 1e-4, "link7 moved {d} m under 10 N for 0.2 s");
    assert!(p1[1] > p0[1], "pushed along +y: {p0:?} -> {p1:?}");
    // A static body still refuses wrenches.
    let ground = w.bodies.iter().find(|b| b.is_static).map(|b| b.id);
    if let Some(g) = ground {
        let e = c
            .apply_wrench(wrench(
                rtphys::server::client::body_id(g),
                [1.0, 0.0, 0.0],
                [0.0; 3],
            ))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().contains("static"), "{}", e.message());
    }
    srv.shutdown().await.unwrap();
}

/// Wrench limits per body: 1e5 N·m on the 0.3 kg box, or 1e5 N applied 1e4 m from
/// its centre, used to freeze it until Reset; now refused, naming the limit, and
/// the largest legal wrench leaves the body unfrozen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrench_limits_are_per_body_and_a_legal_wrench_does_not_freeze() {
    let (srv, mut c) = start_default(cfg(Mode::Lockstep)).await;
    let w = c.world().await.unwrap();
    let id = body_named(&w, "red_box");
    let info = w.bodies.iter().find(|b| b.id == id).unwrap().clone();
    let e = c
        .apply_wrench(wrench(body("red_box"), [0.0; 3], [1e5, 0.0, 0.0]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("max_angular_accel"), "{}", e.message());
    let mut far = wrench(body("red_box"), [0.0, 0.0, 1.0], [0.0; 3]);
    far.point = vec![1e4, 0.0, 0.0];
    let e = c.apply_wrench(far).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("r × force"), "{}", e.message());
    let e = c
        .apply_wrench(wrench(body("red_box"), [1e5, 0.0, 0.0], [0.0; 3]))
        .await
        .unwrap_err();
    assert!(e.message().contains("max_linear_accel"), "{}", e.message());
    // The largest legal wrench (just under both bounds), held for 100 ticks.
    let m = info.mass;
    let i = &info.inertia;
    let lmin = [i[0], i[4], i[8]].into_iter().fold(f64::INFINITY, f64::min);
    let f = 0.999 * m * 1e4;
    let t = 0.999 * lmin * 1e4;
    c.apply_wrench(wrench(body("red_box"), [f, 0.0, 0.0], [0.0, 0.0, t]))
        .await
        .unwrap();
    for _ in 0..100 {
        let s = c.step(1).await.unwrap().state.unwrap();
        assert!(
            !bs(&s, id).frozen,
            "legal wrench froze the box at tick {}",
            s.tick
        );
    }
    srv.shutdown().await.unwrap();
}

/// Bearer tokens by role: observer reads, controller commands, admin loads scenes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_roles_are_enforced() {
    let dir = scratch("auth");
    let f = dir.join("tokens.toml");
    std::fs::write(
        &f,
        "observer = [\"observer-token-0123456789\"]\n\
         controller = [\"controller-token-0123456789\"]\n\
         admin = [\"admin-token-0123456789abcdef\"]\n",
    )
    .unwrap();
    let mut cf = cfg(Mode::Lockstep);
    cf.auth.tokens_file = f.display().to_string();
    let (srv, mut anon) = start(cf, ZERO_G).await;
    let url = srv.url();
    let e = anon.world().await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let mut bad = Client::connect_with_token(&url, Some("not-a-known-token-xxxxx"))
        .await
        .unwrap();
    assert_eq!(bad.world().await.unwrap_err().code(), Code::Unauthenticated);
    let push = || wrench(body("probe"), [1.0, 0.0, 0.0], [0.0; 3]);
    let mut obs = Client::connect_with_token(&url, Some("observer-token-0123456789"))
        .await
        .unwrap();
    obs.world().await.unwrap();
    obs.state().await.unwrap();
    let mut w = obs.watch(pb::StreamStateRequest::default()).await.unwrap();
    w.message().await.unwrap().unwrap();
    let e = obs.apply_wrench(push()).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert!(e.message().contains("controller"), "{}", e.message());
    assert_eq!(
        obs.control(pb::ControlHello::default())
            .await
            .map(|_| ())
            .unwrap_err()
            .code(),
        Code::PermissionDenied
    );
    let mut ctl = Client::connect_with_token(&url, Some("controller-token-0123456789"))
        .await
        .unwrap();
    ctl.apply_wrench(push()).await.unwrap();
    ctl.step(1).await.unwrap();
    let s = ctl.control(pb::ControlHello::default()).await.unwrap();
    drop(s);
    let e = ctl.load_scene_toml(FALL, "x").await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert_eq!(
        ctl.reset().await.unwrap_err().code(),
        Code::PermissionDenied
    );
    let mut adm = Client::connect_with_token(&url, Some("admin-token-0123456789abcdef"))
        .await
        .unwrap();
    adm.load_scene_toml(FALL, "x").await.unwrap();
    adm.reset().await.unwrap();
    adm.apply_wrench(wrench(body("box"), [1.0, 0.0, 0.0], [0.0; 3]))
        .await
        .unwrap();
    drop(w);
    srv.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without tokens, a non-loopback listen address is refused at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_tokens_no_remote_listen() {
    let model =
        rtphys::model::scene::load_scene_str(ZERO_G, "t.toml", std::path::Path::new(".")).unwrap();
    let cf = cfg(Mode::Lockstep);
    let h = rtphys::server::spawn(cf.clone(), model, "t", "0.0.0.0:0")
        .await
        .unwrap();
    let r = tokio::time::timeout(Duration::from_secs(20), h.shutdown())
        .await
        .expect("the server task ends");
    let e = r.unwrap_err().to_string();
    assert!(e.contains("without authentication"), "{e}");
}

/// `rtphys run` on a scene with a box at z = -1e308 used to panic (exit 101 in
/// `contact::friction::tangential_forces_at`); now it is refused with file:line: key.
#[test]
fn rtphys_run_refuses_huge_values_instead_of_panicking() {
    let dir = scratch("run");
    let scene = dir.join("huge.toml");
    std::fs::write(
        &scene,
        FALL.replace(
            "position = [0.0, 0.0, 10.0]",
            "position = [0.0, 0.0, -1e308]",
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rtphys"))
        .args(["run", scene.to_str().unwrap(), "--steps", "10", "--out"])
        .arg(dir.join("out.csv"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("huge.toml:17: body[1] ('box').position"),
        "{err}"
    );
    assert!(!dir.join("out.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A throwaway CA, a server certificate for localhost/127.0.0.1 and a client
/// certificate, made with the openssl command-line tool.
fn make_certs(dir: &std::path::Path) -> bool {
    let run = |args: &[&str]| {
        std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    std::fs::write(
        dir.join("srv.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("cli.ext"),
        "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
    )
    .unwrap();
    let mut ok = run(&[
        &["req", "-x509"][..],
        &ec,
        &[
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=rtphys test CA",
        ],
    ]
    .concat());
    for (n, cn) in [("srv", "localhost"), ("cli", "controller")] {
        ok &= run(&[
            &["req"][..],
            &ec,
            &[
                "-keyout",
                &format!("{n}.key"),
                "-out",
                &format!("{n}.csr"),
                "-subj",
                &format!("/CN={cn}"),
            ],
        ]
        .concat());
        ok &= run(&[
            "x509",
            "-req",
            "-in",
            &format!("{n}.csr"),
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &format!("{n}.pem"),
            "-days",
            "2",
            "-extfile",
            &format!("{n}.ext"),
        ]);
    }
    ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_and_mutual_tls_end_to_end() {
    use tonic::transport::{Certificate, ClientTlsConfig, Identity};
    let dir = scratch("tls");
    assert!(
        make_certs(&dir),
        "openssl could not make the test certificates"
    );
    let rd = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let ca = || Certificate::from_pem(rd("ca.pem"));
    let tls = || {
        ClientTlsConfig::new()
            .ca_certificate(ca())
            .domain_name("localhost")
    };
    // TLS only.
    let mut cf = cfg(Mode::Lockstep);
    cf.tls.cert_file = dir.join("srv.pem").display().to_string();
    cf.tls.key_file = dir.join("srv.key").display().to_string();
    let (srv, _) = {
        let model =
            rtphys::model::scene::load_scene_str(ZERO_G, "t.toml", std::path::Path::new("."))
                .unwrap();
        (
            rtphys::server::spawn(cf.clone(), model, "t", "127.0.0.1:0")
                .await
                .unwrap(),
            (),
        )
    };
    let addr = srv.addr.to_string();
    let mut c = Client::connect_with(&addr, None, Some(tls()))
        .await
        .unwrap();
    assert_eq!(c.world().await.unwrap().bodies.len(), 2);
    c.step(3).await.unwrap();
    // A plain-text client gets nowhere.
    let plain = async {
        let mut p = Client::connect(&addr).await?;
        p.world().await.map_err(anyhow::Error::from)
    };
    assert!(tokio::time::timeout(Duration::from_secs(20), plain)
        .await
        .map(|r| r.is_err())
        .unwrap_or(true));
    srv.shutdown().await.unwrap();
    // Mutual TLS: a client certificate is required.
    cf.tls.client_ca_file = dir.join("ca.pem").display().to_string();
    let model =
        rtphys::model::scene::load_scene_str(ZERO_G, "t.toml", std::path::Path::new(".")).unwrap();
    let srv = rtphys::server::spawn(cf, model, "t", "127.0.0.1:0")
        .await
        .unwrap();
    let addr = srv.addr.to_string();
    let anon = async {
        let mut p = Client::connect_with(&addr, None, Some(tls())).await?;
        p.world().await.map_err(anyhow::Error::from)
    };
    assert!(
        tokio::time::timeout(Duration::from_secs(20), anon)
            .await
            .map(|r| r.is_err())
            .unwrap_or(true),
        "a client without a certificate was served"
    );
    let id = Identity::from_pem(rd("cli.pem"), rd("cli.key"));
    let mut c = Client::connect_with(&addr, None, Some(tls().identity(id)))
        .await
        .unwrap();
    assert_eq!(c.world().await.unwrap().bodies.len(), 2);
    let mut ctl = c.control(pb::ControlHello::default()).await.unwrap();
    let seq = ctl
        .send(
            vec![wrench(body("probe"), [1.0, 0.0, 0.0], [0.0; 3])],
            false,
        )
        .await
        .unwrap();
    ctl.wait_ack(seq).await.unwrap();
    drop(ctl);
    srv.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
