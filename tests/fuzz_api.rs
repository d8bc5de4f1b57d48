//! Fuzzing the API in-tree (stable Rust, seeded, deterministic inputs): random and
//! mutated request messages of every kind — NaN/±inf/±1e308 numbers, vectors of the
//! wrong length, unknown names, ids out of range, unknown enum values, huge step
//! counts, hostile paths, mutated inline scenes — sent over real gRPC on loopback to
//! an in-process server, plus control streams with random hellos and commands
//! (stale and repeated sequence numbers included), plus random and bit-flipped bytes
//! through prost's decoders. Every reply must be OK or a client-error status with a
//! message (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, RESOURCE_EXHAUSTED,
//! OUT_OF_RANGE) — never INTERNAL/UNKNOWN, never a dropped connection — and the
//! server must publish only finite numbers and stay healthy.
//!
//! Counts: `RTPHYS_FUZZ_CALLS` (default 20000 unary calls), `RTPHYS_FUZZ_STREAMS`
//! (default 600 control streams of up to 40 commands), `RTPHYS_FUZZ_DECODES`
//! (default 30000), seed `RTPHYS_FUZZ_SEED` (default 16). Longer:
//! `RTPHYS_FUZZ_CALLS=200000 RTPHYS_FUZZ_STREAMS=5000 cargo test --release --test fuzz_api -- --nocapture`.

mod server_common;

use prost::Message;
use rtphys::config::Mode;
use rtphys::math::SplitMix64;
use rtphys::server::client::{pb, Client};
use server_common::{cfg, start_default};
use std::time::Duration;
use tonic::Code;

fn env_n(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(d)
}

struct Gen(SplitMix64);

impl Gen {
    fn n(&mut self, k: u64) -> u64 {
        self.0.next_u64() % k.max(1)
    }
    fn coin(&mut self, p: f64) -> bool {
        self.0.next_f64() < p
    }
    fn f(&mut self) -> f64 {
        const POOL: &[f64] = &[
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e308,
            -1e308,
            f64::MAX,
            f64::MIN_POSITIVE,
            1e-310,
            100001.0,
            1e5,
            1e4,
            -1e4,
            0.0,
            -0.0,
            1.0,
            -1.0,
            3601.0,
        ];
        if self.coin(0.5) {
            POOL[self.n(POOL.len() as u64) as usize]
        } else {
            self.0.uniform(-50.0, 50.0)
        }
    }
    fn vec(&mut self) -> Vec<f64> {
        let len = [0, 3, 3, 3, 1, 2, 4, 7][self.n(8) as usize];
        (0..len).map(|_| self.f()).collect()
    }
    fn small_vec(&mut self, s: f64) -> Vec<f64> {
        (0..3).map(|_| self.0.uniform(-s, s)).collect()
    }
    fn name(&mut self) -> String {
        const NAMES: &[&str] = &[
            "red_box",
            "blue_box",
            "green_ball",
            "yellow_can",
            "table",
            "floor",
            "",
            "nope",
            "arm/link7",
            "red_box\u{0}",
            "🦀",
            "../etc/passwd",
        ];
        if self.coin(0.05) {
            "x".repeat(100_000)
        } else {
            NAMES[self.n(NAMES.len() as u64) as usize].to_string()
        }
    }
    fn body(&mut self) -> Option<pb::BodyRef> {
        if self.coin(0.05) {
            return None;
        }
        Some(if self.coin(0.5) {
            pb::BodyRef {
                r#ref: Some(pb::body_ref::Ref::Name(self.name())),
            }
        } else {
            let ids = [0, 1, 2, 3, 4, 5, 6, 7, 100, u32::MAX];
            pb::BodyRef {
                r#ref: Some(pb::body_ref::Ref::Id(
                    ids[self.n(ids.len() as u64) as usize],
                )),
            }
        })
    }
    fn enum_i32(&mut self) -> i32 {
        [0, 1, 2, 3, 4, 5, -1, 99, i32::MAX, i32::MIN][self.n(10) as usize]
    }
    fn wrench(&mut self) -> pb::BodyWrench {
        // Half plausible (so some are accepted and applied), half hostile.
        if self.coin(0.5) {
            pb::BodyWrench {
                body: self.body(),
                force: self.small_vec(2.0),
                torque: self.small_vec(0.05),
                frame: self.n(2) as i32,
                point: if self.coin(0.3) {
                    self.small_vec(0.02)
                } else {
                    vec![]
                },
                duration_s: if self.coin(0.5) {
                    0.0
                } else {
                    self.0.uniform(0.0, 0.05)
                },
            }
        } else {
            pb::BodyWrench {
                body: self.body(),
                force: self.vec(),
                torque: self.vec(),
                frame: self.enum_i32(),
                point: self.vec(),
                duration_s: self.f(),
            }
        }
    }
    fn wrenches(&mut self) -> Vec<pb::BodyWrench> {
        let n = [0, 1, 1, 2, 3, 17][self.n(6) as usize];
        (0..n).map(|_| self.wrench()).collect()
    }
    fn joint_cmd(&mut self) -> pb::JointCommand {
        pb::JointCommand {
            joint: Some(pb::JointRef {
                r#ref: Some(if self.coin(0.5) {
                    pb::joint_ref::Ref::Name(self.name())
                } else {
                    pb::joint_ref::Ref::Id(self.n(10) as u32)
                }),
            }),
            effort: self.f(),
            servo: self.coin(0.3).then(|| pb::ServoCommand {
                enabled: self.coin(0.5),
                position: self.f(),
                velocity: self.f(),
                torque: self.f(),
            }),
        }
    }
    fn header(&mut self) -> Option<pb::CommandHeader> {
        self.coin(0.8).then(|| pb::CommandHeader {
            seq: self.0.next_u64() % 1000,
            client_time_ns: self.0.next_u64() as i64,
            world_generation: [0, 0, 0, 1, 2, u64::MAX][self.n(6) as usize],
        })
    }
    fn fields(&mut self) -> Vec<i32> {
        (0..self.n(4)).map(|_| self.enum_i32()).collect()
    }
    fn bodies(&mut self) -> Vec<pb::BodyRef> {
        (0..self.n(3)).filter_map(|_| self.body()).collect()
    }
    fn network(&mut self) -> Option<pb::NetworkConditions> {
        self.coin(0.2).then(|| pb::NetworkConditions {
            command_delay_s: if self.coin(0.5) { self.f() } else { 0.0 },
            command_jitter_s: 0.0,
            command_loss: if self.coin(0.5) { self.f() } else { 0.0 },
            state_delay_s: 0.0,
            state_jitter_s: if self.coin(0.5) { self.f() } else { 0.0 },
            state_loss: 0.0,
            seed: self.0.next_u64(),
        })
    }
    fn scene_text(&mut self) -> String {
        let t = rtphys::server::DEFAULT_SCENE;
        let nums: Vec<(usize, usize)> = t
            .match_indices(|c: char| c.is_ascii_digit())
            .map(|(i, _)| (i, i + 1))
            .collect();
        let (a, b) = nums[self.n(nums.len() as u64) as usize];
        let x = ["1e308", "nan", "-1e308", "inf", "0", "1e7"][self.n(6) as usize];
        format!("{}{}{}", &t[..a], x, &t[b..])
    }
}

/// A request with a 2 s deadline.
fn timeout<T>(m: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(m);
    r.set_timeout(Duration::from_secs(2));
    r
}

fn client_error(c: Code) -> bool {
    matches!(
        c,
        Code::InvalidArgument
            | Code::NotFound
            | Code::FailedPrecondition
            | Code::ResourceExhausted
            | Code::OutOfRange
    )
}

fn check<T: std::fmt::Debug>(
    what: &str,
    case: u64,
    r: Result<T, tonic::Status>,
    codes: &mut [u64; 17],
) {
    match r {
        Ok(_) => codes[0] += 1,
        Err(s) => {
            codes[s.code() as usize] += 1;
            assert!(
                client_error(s.code()) && !s.message().is_empty(),
                "case {case}: {what} answered {:?} {:?}",
                s.code(),
                s.message()
            );
        }
    }
}

fn finite_state(s: &pb::State) -> bool {
    s.bodies.iter().all(|b| {
        b.position
            .iter()
            .chain(&b.orientation)
            .chain(&b.linear_velocity)
            .chain(&b.angular_velocity)
            .chain(&b.force)
            .chain(&b.torque)
            .all(|x| x.is_finite())
    })
}

async fn unary_case(c: &mut Client, g: &mut Gen, case: u64, codes: &mut [u64; 17]) {
    let raw = &mut c.raw;
    let k = g.n(16);
    let what = format!("call {k}");
    if std::env::var("RTPHYS_FUZZ_VERBOSE").is_ok() {
        eprintln!("case {case}: call {k}");
    }
    match k {
        0..=2 => {
            let req = pb::ApplyWrenchRequest {
                header: g.header(),
                wrenches: g.wrenches(),
            };
            // Through the decoder too: the bytes as sent, one bit flipped.
            let mut bytes = req.encode_to_vec();
            if !bytes.is_empty() && g.coin(0.3) {
                let i = g.n(bytes.len() as u64) as usize;
                bytes[i] ^= 1 << g.n(8);
            }
            let req = pb::ApplyWrenchRequest::decode(bytes.as_slice()).unwrap_or(req);
            if std::env::var("RTPHYS_FUZZ_VERBOSE").is_ok() {
                eprintln!("{req:?}");
            }
            check(&what, case, raw.apply_wrench(timeout(req)).await, codes);
        }
        3 => {
            let req = pb::ClearWrenchRequest {
                header: g.header(),
                bodies: g.bodies(),
            };
            check(&what, case, raw.clear_wrench(timeout(req)).await, codes);
        }
        4 => {
            let req = pb::CommandJointsRequest {
                header: g.header(),
                joints: (0..g.n(3)).map(|_| g.joint_cmd()).collect(),
            };
            check(&what, case, raw.command_joints(timeout(req)).await, codes);
        }
        5 => {
            let req = pb::GetStateRequest {
                fields: g.fields(),
                bodies: g.bodies(),
            };
            let r = raw.get_state(timeout(req)).await;
            if let Ok(s) = &r {
                assert!(
                    finite_state(s.get_ref()),
                    "case {case}: non-finite state published"
                );
            }
            check(&what, case, r, codes);
        }
        6 => {
            let n = [0u32, 1, 2, 5, 1_000_001, u32::MAX][g.n(6) as usize];
            let req = pb::StepRequest {
                n,
                fields: g.fields(),
            };
            check(&what, case, raw.step(timeout(req)).await, codes);
        }
        7 => {
            let req = pb::SetModeRequest {
                mode: g.enum_i32(),
                realtime_factor: g.f(),
            };
            let r = raw.set_mode(timeout(req)).await;
            check(&what, case, r, codes);
            // Back to lockstep for the Step cases.
            let _ = raw
                .set_mode(pb::SetModeRequest {
                    mode: pb::RunMode::Lockstep as i32,
                    realtime_factor: 1.0,
                })
                .await;
        }
        8 => check(
            &what,
            case,
            raw.save_snapshot(pb::SaveSnapshotRequest {}).await,
            codes,
        ),
        9 => {
            let id = [0, 1, 2, 3, 1000, u64::MAX][g.n(6) as usize];
            check(
                &what,
                case,
                raw.restore_snapshot(pb::RestoreSnapshotRequest { snapshot_id: id })
                    .await,
                codes,
            );
            check(
                &what,
                case,
                raw.delete_snapshot(pb::DeleteSnapshotRequest { snapshot_id: id })
                    .await,
                codes,
            );
        }
        10 => {
            let source = if g.coin(0.5) {
                let paths = [
                    "/etc/passwd",
                    "../../../../etc/shadow",
                    "/dev/zero",
                    "/proc/self/environ",
                    "config/scenes/default.toml",
                    "config/scenes/nope.toml",
                    "",
                    "config/robots",
                ];
                pb::load_scene_request::Source::Path(paths[g.n(paths.len() as u64) as usize].into())
            } else {
                pb::load_scene_request::Source::Toml(g.scene_text())
            };
            let req = pb::LoadSceneRequest {
                source: Some(source),
                name: g.name().chars().take(64).collect(),
            };
            let r = raw.load_scene(timeout(req)).await;
            check(&what, case, r, codes);
        }
        11 => check(
            &what,
            case,
            raw.get_stats(pb::GetStatsRequest { reset: g.coin(0.1) })
                .await,
            codes,
        ),
        12 => {
            check(&what, case, raw.pause(pb::PauseRequest {}).await, codes);
            check(&what, case, raw.resume(pb::ResumeRequest {}).await, codes);
        }
        13 => check(&what, case, raw.reset(pb::ResetRequest {}).await, codes),
        14 => {
            let req = pb::StreamStateRequest {
                decimation: [0, 1, 7, 100_001, u32::MAX][g.n(5) as usize],
                fields: g.fields(),
                bodies: g.bodies(),
                latest_only: g.coin(0.5),
                network: g.network(),
            };
            match raw.stream_state(req).await {
                Ok(mut s) => {
                    codes[0] += 1;
                    if let Ok(Ok(Some(st))) =
                        tokio::time::timeout(Duration::from_millis(20), s.get_mut().message()).await
                    {
                        assert!(finite_state(&st), "case {case}: non-finite state streamed");
                    }
                }
                Err(e) => check::<()>(&what, case, Err(e), codes),
            }
        }
        _ => {
            let req = pb::GetWorldRequest {};
            check(&what, case, raw.get_world(req).await, codes);
        }
    }
}

async fn stream_case(c: &mut Client, g: &mut Gen, case: u64, codes: &mut [u64; 17]) {
    let (tx, rx) = tokio::sync::mpsc::channel::<pb::ControlRequest>(64);
    let hello = pb::ControlHello {
        name: g.name().chars().take(32).collect(),
        lockstep: g.coin(0.3),
        decimation: [0, 1, 3, 100_001][g.n(4) as usize],
        fields: g.fields(),
        bodies: g.bodies(),
        watchdog_timeout_s: if g.coin(0.7) { 0.0 } else { g.f() },
        safe_behavior: g.enum_i32(),
        latest_only: g.coin(0.5),
        network: g.network(),
    };
    let first = if g.coin(0.1) {
        // A command first, or an empty message.
        pb::ControlRequest {
            msg: g.coin(0.5).then(|| {
                pb::control_request::Msg::Command(pb::ControlCommand {
                    header: g.header(),
                    ..Default::default()
                })
            }),
        }
    } else {
        pb::ControlRequest {
            msg: Some(pb::control_request::Msg::Hello(hello)),
        }
    };
    let _ = tx.send(first).await;
    let resp = c
        .raw
        .control(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await;
    let mut states = match resp {
        Ok(r) => r.into_inner(),
        Err(e) => return check::<()>("control open", case, Err(e), codes),
    };
    let mut seq = 0u64;
    for _ in 0..g.n(40) {
        let cmd = match g.n(60) {
            0 => pb::ControlRequest { msg: None },
            1 => pb::ControlRequest {
                msg: Some(pb::control_request::Msg::Hello(Default::default())),
            },
            _ => {
                seq = match g.n(10) {
                    0 => seq,                   // repeated
                    1 => seq.saturating_sub(3), // stale
                    _ => seq + 1 + g.n(3),
                };
                pb::ControlRequest {
                    msg: Some(pb::control_request::Msg::Command(pb::ControlCommand {
                        header: Some(pb::CommandHeader {
                            seq,
                            client_time_ns: 0,
                            world_generation: [0, 0, 0, u64::MAX][g.n(4) as usize],
                        }),
                        wrenches: g.wrenches(),
                        clear: g.coin(0.2),
                        joints: if g.coin(0.1) {
                            vec![g.joint_cmd()]
                        } else {
                            vec![]
                        },
                    })),
                }
            }
        };
        if tx.send(cmd).await.is_err() {
            break;
        }
        // Lockstep streams tick the world: read what is there.
        while let Ok(r) = tokio::time::timeout(Duration::from_millis(2), states.message()).await {
            match r {
                Ok(Some(st)) => {
                    assert!(
                        finite_state(&st),
                        "case {case}: non-finite state on a control stream"
                    );
                    for e in &st.errors {
                        assert!(
                            client_error(Code::from_i32(e.code)) && !e.message.is_empty(),
                            "case {case}: command error {e:?}"
                        );
                    }
                }
                Ok(None) => break,
                Err(s) => {
                    check::<()>("control stream", case, Err(s), codes);
                    return;
                }
            }
        }
    }
    drop(tx);
    loop {
        match tokio::time::timeout(Duration::from_millis(500), states.message()).await {
            Ok(Ok(Some(_))) => continue,
            Ok(Ok(None)) | Err(_) => {
                codes[0] += 1;
                break;
            }
            Ok(Err(s)) => {
                check::<()>("control stream end", case, Err(s), codes);
                break;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzzed_requests_get_client_errors_and_the_server_stays_healthy() {
    let calls = env_n("RTPHYS_FUZZ_CALLS", 20000);
    let streams = env_n("RTPHYS_FUZZ_STREAMS", 600);
    let seed = env_n("RTPHYS_FUZZ_SEED", 16);
    if std::env::var("RTPHYS_FUZZ_VERBOSE").is_ok() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter("debug,h2=info,hyper=info,tower=info")
            .try_init();
    }
    let mut cfg = cfg(Mode::Lockstep);
    cfg.server.rate_limit_per_s = 0.0;
    let (h, mut c) = start_default(cfg).await;
    let t0 = std::time::Instant::now();
    let mut codes = [0u64; 17];
    for case in 0..calls {
        let mut g = Gen(SplitMix64::new(seed.wrapping_mul(31).wrapping_add(case)));
        unary_case(&mut c, &mut g, case, &mut codes).await;
    }
    let unary_s = t0.elapsed().as_secs_f64();
    let mut scodes = [0u64; 17];
    for case in 0..streams {
        let mut g = Gen(SplitMix64::new(seed.wrapping_mul(131).wrapping_add(case)));
        stream_case(&mut c, &mut g, case, &mut scodes).await;
    }
    // Still healthy: the world steps, its state is finite; a physics fault (a
    // mutated scene within the bounds that panicked the core) would be reported
    // and cleared by Reset.
    let stats = c.stats(false).await.expect("GetStats answers");
    if !stats.fault.is_empty() {
        c.reset().await.expect("Reset recovers");
    }
    c.set_mode(pb::RunMode::Lockstep, 1.0).await.unwrap();
    let st = c.state().await.unwrap();
    c.step(5).await.expect("the world steps");
    assert!(finite_state(&st));
    let names = |v: &[u64; 17]| {
        v.iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| format!("{:?} {n}", Code::from_i32(i as i32)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "fuzz_api: {calls} unary calls in {unary_s:.1} s ({}); {streams} control streams ({}); physics faults {}; seed {seed}; {:.1} s total",
        names(&codes),
        names(&scodes),
        stats.faults,
        t0.elapsed().as_secs_f64()
    );
    h.shutdown().await.unwrap();
}

/// prost's decoders on random bytes and on bit-flipped encodings of every request
/// message: an error or a message, never a panic.
#[test]
fn random_bytes_decode_or_fail_cleanly() {
    let n = env_n("RTPHYS_FUZZ_DECODES", 30000);
    let seed = env_n("RTPHYS_FUZZ_SEED", 16);
    let mut ok = 0u64;
    for case in 0..n {
        let mut g = Gen(SplitMix64::new(seed ^ case.wrapping_mul(0x9e37_79b9)));
        let mut bytes = match g.n(3) {
            0 => (0..g.n(64)).map(|_| g.n(256) as u8).collect::<Vec<u8>>(),
            1 => pb::ControlRequest {
                msg: Some(pb::control_request::Msg::Command(pb::ControlCommand {
                    header: g.header(),
                    wrenches: g.wrenches(),
                    clear: true,
                    joints: vec![g.joint_cmd()],
                })),
            }
            .encode_to_vec(),
            _ => pb::ApplyWrenchRequest {
                header: g.header(),
                wrenches: g.wrenches(),
            }
            .encode_to_vec(),
        };
        for _ in 0..=g.n(3) {
            if !bytes.is_empty() {
                let i = g.n(bytes.len() as u64) as usize;
                bytes[i] ^= 1 << g.n(8);
            }
        }
        let b = bytes.as_slice();
        ok += pb::ControlRequest::decode(b).is_ok() as u64;
        ok += pb::ApplyWrenchRequest::decode(b).is_ok() as u64;
        ok += pb::CommandJointsRequest::decode(b).is_ok() as u64;
        ok += pb::ClearWrenchRequest::decode(b).is_ok() as u64;
        ok += pb::StreamStateRequest::decode(b).is_ok() as u64;
        ok += pb::LoadSceneRequest::decode(b).is_ok() as u64;
        ok += pb::SetModeRequest::decode(b).is_ok() as u64;
        ok += pb::GetStateRequest::decode(b).is_ok() as u64;
        ok += pb::StepRequest::decode(b).is_ok() as u64;
        ok += pb::StartRecordingRequest::decode(b).is_ok() as u64;
    }
    println!("fuzz_decode: {n} byte strings x 10 message types, {ok} decoded; seed {seed}");
}

/// Found by the fuzzing above: a 100 kB body name echoed in the status message
/// (the `grpc-message` header) made the client's HTTP/2 layer close the connection,
/// failing every other call on it with CANCELLED. Messages are bounded now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_huge_name_does_not_kill_the_connection() {
    let (h, mut c) = start_default(cfg(Mode::Lockstep)).await;
    let name = "x".repeat(100_000);
    let e = c
        .apply_wrench(rtphys::server::client::force(&name, [1.0, 0.0, 0.0]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{:?}", e.code());
    assert!(
        e.message().len() < 1200,
        "bounded: {} bytes",
        e.message().len()
    );
    assert!(e.message().contains("truncated"));
    // The same connection still serves.
    c.world().await.expect("the connection survived");
    c.apply_wrench(rtphys::server::client::force("red_box", [1.0, 0.0, 0.0]))
        .await
        .expect("and applies wrenches");
    h.shutdown().await.unwrap();
}
