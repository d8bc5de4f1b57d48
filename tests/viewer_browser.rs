//! The web viewer in a real browser: an in-process server with the viewer on an
//! ephemeral port, headless Chromium driven over the DevTools protocol (a minimal
//! client below, over a WebSocket). Chromium must be installed (`.ci/run` installs
//! Debian's `chromium`); without it this test fails and says so.
//!
//! Asserts: no console errors or exceptions; drawn bodies == WorldInfo's non-plane
//! bodies; a box pushed over gRPC moves on the page, and once paused the drawn pose
//! equals the server's state; the Pause/Step/Resume buttons change the server's
//! tick as the gRPC calls do; the plots receive samples; the screenshot is not blank;
//! force arrows match the contacts carrying force and body frames the drawn bodies;
//! a recording made by `rtphys run --record` opens in the page with the file's body
//! count and scrubbing to frame k draws frame k's poses.
//! Screenshots: target/viewer-screenshots/.

use base64::Engine as _;
use futures_util::SinkExt as _;
use rtphys::server::client::{pb, Client};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio_stream::StreamExt as _;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A DevTools-protocol session on one page (flat session mode).
struct Cdp {
    ws: Ws,
    id: u64,
    session: Option<String>,
    /// Console errors and uncaught exceptions seen so far.
    errors: Vec<String>,
}

impl Cdp {
    fn note(&mut self, m: &Value) {
        match m["method"].as_str() {
            Some("Runtime.exceptionThrown") => self
                .errors
                .push(format!("exception: {}", m["params"]["exceptionDetails"])),
            Some("Runtime.consoleAPICalled") if m["params"]["type"] == "error" => self
                .errors
                .push(format!("console.error: {}", m["params"]["args"])),
            Some("Log.entryAdded") if m["params"]["entry"]["level"] == "error" => self
                .errors
                .push(format!("log error: {}", m["params"]["entry"])),
            _ => {}
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let mut msg = json!({"id": self.id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .await
            .expect("send to Chromium");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = tokio::time::timeout(left, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("Chromium did not answer {method} in 30 s"))
                .expect("Chromium closed the DevTools socket")
                .expect("DevTools socket error");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).expect("DevTools JSON");
            if v["id"] == json!(self.id) {
                assert!(v.get("error").is_none(), "{method}: {}", v["error"]);
                return v["result"].clone();
            }
            self.note(&v);
        }
    }

    /// Evaluate a JS expression in the page and return its JSON value.
    async fn eval(&mut self, expr: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expr}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Poll `expr` until it is `true` (or fail after `secs`).
    async fn wait_for(&mut self, expr: &str, secs: f64) {
        let t0 = Instant::now();
        while self.eval(expr).await != json!(true) {
            assert!(
                t0.elapsed().as_secs_f64() < secs,
                "page condition not met in {secs} s: {expr}; errors: {:?}",
                self.errors
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn screenshot(&mut self, path: &std::path::Path) -> Vec<u8> {
        let r = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().expect("screenshot data"))
            .expect("base64 screenshot");
        std::fs::write(path, &png).expect("write screenshot");
        png
    }
}

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = std::process::Command::new("which").arg(name).output() {
            if out.status.success() {
                return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            }
        }
    }
    panic!(
        "the viewer browser test needs Chromium: `apt-get install -y chromium` \
         (.ci/run installs it); not found as chromium, chromium-browser or google-chrome"
    );
}

struct Browser {
    child: std::process::Child,
    _dir: PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self._dir);
    }
}

async fn launch() -> (Browser, Ws) {
    let exe = chromium();
    // One profile directory per browser (the tests of this file run in parallel).
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("rtphys-viewer-chromium-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("user data dir");
    let child = std::process::Command::new(exe)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,800",
            "--remote-debugging-port=0",
        ])
        .arg(format!("--user-data-dir={}", dir.display()))
        .arg("about:blank")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start Chromium");
    let browser = Browser {
        child,
        _dir: dir.clone(),
    };
    let port_file = dir.join("DevToolsActivePort");
    let t0 = Instant::now();
    let text = loop {
        if let Ok(t) = std::fs::read_to_string(&port_file) {
            if t.lines().count() >= 2 {
                break t;
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "Chromium wrote no DevToolsActivePort in 60 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut l = text.lines();
    let port = l.next().unwrap_or_default().trim().to_string();
    let path = l.next().unwrap_or_default().trim().to_string();
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}{path}"))
        .await
        .expect("DevTools WebSocket");
    (browser, ws)
}

async fn server_tick(c: &mut Client) -> (u64, bool) {
    let s = c
        .raw
        .get_state(pb::GetStateRequest {
            fields: vec![pb::StateField::Pose as i32],
            bodies: vec![],
        })
        .await
        .expect("GetState")
        .into_inner();
    (s.tick, s.paused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewer_in_headless_chromium() {
    let mut cfg = rtphys::config::Config::default();
    // Recordings the viewer serves at /recordings/NAME come from here.
    let rec_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/viewer-recordings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&rec_dir);
    std::fs::create_dir_all(&rec_dir).expect("recording dir");
    cfg.server.record_dir = rec_dir.display().to_string();
    let (model, name) = rtphys::server::load_scene(None, &cfg).expect("default scene");
    let srv = rtphys::server::spawn(cfg, model, &name, "127.0.0.1:0")
        .await
        .expect("server");
    let vaddr = rtphys::viewer::spawn(srv.runtime.clone(), "127.0.0.1:0")
        .await
        .expect("viewer");
    let mut c = Client::connect(&srv.url()).await.expect("gRPC client");
    let world = c
        .raw
        .get_world(pb::GetWorldRequest {})
        .await
        .expect("GetWorld")
        .into_inner();

    let (_browser, mut cdp) = open_page(&format!("http://{vaddr}/")).await;

    // Drawn bodies: every body of WorldInfo with a drawable shape (all but the floor plane).
    let geoms = cdp
        .eval("rtphys.world.geoms.map(g => [g.body, g.shape.type])")
        .await;
    let mut drawable: Vec<u64> = geoms
        .as_array()
        .expect("geoms")
        .iter()
        .filter(|g| g[1] != "plane")
        .map(|g| g[0].as_u64().expect("body id"))
        .collect();
    drawable.sort();
    drawable.dedup();
    let planes = world.bodies.len() - drawable.len();
    assert_eq!(
        planes, 1,
        "the default scene has one plane body (the floor)"
    );
    assert_eq!(
        cdp.eval("rtphys.world.bodies.length").await,
        json!(world.bodies.len()),
        "page's WorldInfo body count"
    );
    assert_eq!(
        cdp.eval("rtphys.drawnBodies").await,
        json!(drawable.len()),
        "drawn bodies (WorldInfo has {} bodies, one of them the floor plane)",
        world.bodies.len()
    );

    // Push the red box over gRPC: it moves on the page.
    let id = world
        .bodies
        .iter()
        .find(|b| b.name == "red_box")
        .expect("red_box")
        .id;
    let before = cdp.eval(&format!("rtphys.drawn[{id}]")).await;
    c.raw
        .apply_wrench(pb::ApplyWrenchRequest {
            header: None,
            wrenches: vec![pb::BodyWrench {
                body: Some(pb::BodyRef {
                    r#ref: Some(pb::body_ref::Ref::Id(id)),
                }),
                force: vec![0.0, 0.0, 30.0],
                torque: vec![],
                frame: pb::Frame::World as i32,
                point: vec![],
                duration_s: 0.3,
            }],
        })
        .await
        .expect("ApplyWrench");
    let z0 = before[2].as_f64().expect("z");
    cdp.wait_for(&format!("rtphys.drawn[{id}][2] > {} ", z0 + 0.05), 20.0)
        .await;

    // Pause with the button; once the page shows the paused frame, its drawn pose is
    // the server's state (float32 matrices: 1e-4 m).
    cdp.eval("document.getElementById('pause').click(), true")
        .await;
    let t0 = Instant::now();
    let (tick, paused) = loop {
        let (t, p) = server_tick(&mut c).await;
        if p {
            break (t, p);
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "Pause button did not pause the server"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(paused);
    cdp.wait_for(
        &format!("rtphys.state.tick === {tick} && rtphys.frames > 0"),
        10.0,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let s = c
        .raw
        .get_state(pb::GetStateRequest {
            fields: vec![pb::StateField::Pose as i32],
            bodies: vec![],
        })
        .await
        .expect("GetState")
        .into_inner();
    assert_eq!(s.tick, tick, "paused server ticked");
    let drawn = cdp.eval(&format!("rtphys.drawn[{id}]")).await;
    let p = &s.bodies[id as usize].position;
    for k in 0..3 {
        let d = drawn[k].as_f64().expect("drawn coordinate");
        assert!((d - p[k]).abs() < 1e-4, "drawn {drawn} vs server {p:?}");
    }
    assert!(p[2] > z0 + 0.05, "the box rose: z {} from {z0}", p[2]);

    // Step button: one tick per click.
    for k in 1..=2u64 {
        cdp.eval("document.getElementById('step').click(), true")
            .await;
        let t0 = Instant::now();
        loop {
            let (t, p) = server_tick(&mut c).await;
            assert!(p, "stepping resumed the world");
            if t == tick + k {
                break;
            }
            assert!(
                t < tick + k,
                "Step button advanced {} ticks, expected {k}",
                t - tick
            );
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "Step button did nothing"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    cdp.wait_for(&format!("rtphys.state.tick === {}", tick + 2), 10.0)
        .await;
    // Resume button: the clock runs again.
    cdp.eval("document.getElementById('resume').click(), true")
        .await;
    let t0 = Instant::now();
    loop {
        let (t, p) = server_tick(&mut c).await;
        if !p && t > tick + 10 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "Resume button did not resume"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Record / Stop on the live world: a visual recording in server.record_dir with
    // the world's bodies and increasing ticks.
    cdp.eval("document.getElementById('record').click(), true")
        .await;
    cdp.wait_for("rtphys.replies.some(r => r.cmd === 'record' && r.ok)", 10.0)
        .await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    cdp.eval("document.getElementById('record').click(), true")
        .await;
    cdp.wait_for("rtphys.replies.some(r => r.cmd === 'stop_record')", 10.0)
        .await;
    let stop = cdp
        .eval("rtphys.replies.find(r => r.cmd === 'stop_record')")
        .await;
    assert_eq!(stop["ok"], json!(true), "stop_record: {stop}");
    let live = rtphys::viewer::recording::read(
        &std::fs::read(rec_dir.join(stop["file"].as_str().expect("file"))).expect("live recording"),
    )
    .expect("decode live recording");
    assert_eq!(live.bodies, world.bodies.len());
    assert_eq!(json!(live.frames.len()), stop["frames"]);
    assert!(
        live.frames.len() >= 5,
        "{} frames in 0.7 s at 30 Hz",
        live.frames.len()
    );
    assert!(live.frames.windows(2).all(|w| w[1].tick > w[0].tick));

    // Plots receive data (stats at 4 Hz; each plot counts its samples in the window).
    cdp.wait_for(
        "document.querySelectorAll('#side > canvas').length === 7 && rtphys.stats.length >= 4 && \
         rtphys.stats.every(s => Number.isFinite(s.compute_us[1]) && Number.isFinite(s.rtf))",
        20.0,
    )
    .await;
    cdp.wait_for(
        "rtphys.stats[rtphys.stats.length-1].compute_us[0] > 0",
        10.0,
    )
    .await;

    // Force arrows: one per contact carrying a force (the default scene rests on its
    // table: contacts with the weight on them); body frames: one per drawn body; the
    // toggles turn them off and on.
    cdp.wait_for(
        "rtphys.arrows > 0 && rtphys.arrows === \
         rtphys.state.contacts.filter(c => Math.hypot(c[6], c[7], c[8]) > 0).length",
        10.0,
    )
    .await;
    cdp.eval("document.getElementById('frames').click(), true")
        .await;
    cdp.wait_for(
        "rtphys.bodyFrames > 0 && rtphys.bodyFrames === rtphys.drawnBodies",
        10.0,
    )
    .await;
    cdp.eval("document.getElementById('forces').click(), true")
        .await;
    let n = cdp.eval("rtphys.frames").await.as_u64().expect("frames");
    cdp.wait_for(
        &format!("rtphys.frames > {} && rtphys.arrows === 0", n + 1),
        10.0,
    )
    .await;
    cdp.eval("document.getElementById('forces').click(), true")
        .await;

    // Screenshot: pixels differ from the background (clear colour 27,30,36).
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/viewer-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let png = cdp.screenshot(&dir.join("viewer.png")).await;
    let dec = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = dec.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let ch = info.color_type.samples();
    let (w, h) = (info.width as usize, info.height as usize);
    // The 3D view is the left part of the page (the plots are 360 px on the right).
    let mut differ = 0usize;
    let mut total = 0usize;
    for y in 0..h {
        for x in 0..w.saturating_sub(380) {
            let i = (y * w + x) * ch;
            let px = &buf[i..i + 3];
            total += 1;
            if (px[0] as i32 - 27).abs() + (px[1] as i32 - 30).abs() + (px[2] as i32 - 36).abs()
                > 24
            {
                differ += 1;
            }
        }
    }
    let frac = differ as f64 / total as f64;
    assert!(
        frac > 0.02,
        "screenshot of the 3D view is blank: {:.4} of its pixels differ from the background",
        frac
    );

    assert!(cdp.errors.is_empty(), "console errors: {:?}", cdp.errors);
    recording_in_page(&mut cdp, vaddr, &rec_dir).await;
    assert!(cdp.errors.is_empty(), "console errors: {:?}", cdp.errors);
    let _ = std::fs::remove_dir_all(&rec_dir);
    srv.shutdown().await.expect("shutdown");
}

/// A recording made by `rtphys run --record` opens in the page (served by the viewer
/// from server.record_dir): the body count is the file's, and scrubbing to frame k
/// draws the poses of frame k (the page draws the file's f32 values: equal to 1e-6).
async fn recording_in_page(cdp: &mut Cdp, vaddr: std::net::SocketAddr, dir: &std::path::Path) {
    // shapes.toml: every shape kind dropped from 0.3 m (the bodies move).
    let file = dir.join("shapes.rtrec");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rtphys"))
        .args([
            "run",
            "config/scenes/shapes.toml",
            "--steps",
            "1500",
            "--record-rate",
            "30",
        ])
        .arg("--record")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("run.csv"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("rtphys run --record");
    assert!(
        out.status.success(),
        "rtphys run --record: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec = rtphys::viewer::recording::read(&std::fs::read(&file).expect("read recording"))
        .expect("decode recording");
    // 1500 steps at dt 1 ms, every round(1/(0.001·30)) = 33rd: the initial state + 45 frames.
    assert_eq!(rec.frames.len(), 1 + 1500 / 33, "frames in the recording");
    assert_eq!(rec.frames.last().map(|f| f.tick), Some(1500 / 33 * 33));
    let mut drawable: Vec<u64> = rec.header["world"]["geoms"]
        .as_array()
        .expect("header geoms")
        .iter()
        .filter(|g| g["shape"]["type"] != "plane")
        .map(|g| g["body"].as_u64().expect("body id"))
        .collect();
    drawable.sort();
    drawable.dedup();
    let drawable = &drawable[..];

    cdp.call(
        "Page.navigate",
        json!({"url": format!("http://{vaddr}/?recording=/recordings/shapes.rtrec")}),
    )
    .await;
    cdp.wait_for(
        "!!(window.rtphys && rtphys.mode === 'recording' && rtphys.ready && rtphys.frames > 2)",
        30.0,
    )
    .await;
    assert_eq!(
        cdp.eval("rtphys.recording.count").await,
        json!(rec.frames.len())
    );
    assert_eq!(
        cdp.eval("rtphys.world.bodies.length").await,
        json!(rec.bodies)
    );
    assert_eq!(cdp.eval("rtphys.drawnBodies").await, json!(drawable.len()));

    // Bodies that move in the recording: scrubbing must change what is drawn.
    let last = rec.frames.len() - 1;
    let moving: Vec<u64> = drawable
        .iter()
        .copied()
        .filter(|&b| {
            let (a, z) = (
                &rec.frames[0].poses[b as usize],
                &rec.frames[last].poses[b as usize],
            );
            (0..3).any(|k| (a[k] - z[k]).abs() > 1e-3)
        })
        .collect();
    assert!(!moving.is_empty(), "nothing moves in the recorded scene");
    assert!(
        drawable.len() >= 6,
        "shapes.toml draws {} bodies",
        drawable.len()
    );
    for k in [last, 7, 0, last / 2] {
        let n = cdp.eval("rtphys.frames").await.as_u64().expect("frames");
        cdp.eval(&format!(
            "(() => {{ const s = document.getElementById('scrub'); s.value = {k}; \
             s.dispatchEvent(new Event('input')); return true; }})()"
        ))
        .await;
        cdp.wait_for(
            &format!(
                "rtphys.recording.frame === {k} && rtphys.frames > {}",
                n + 1
            ),
            10.0,
        )
        .await;
        let f = &rec.frames[k];
        assert_eq!(
            cdp.eval("rtphys.state.tick").await,
            json!(f.tick),
            "frame {k}: tick"
        );
        for &b in drawable {
            let drawn = cdp.eval(&format!("rtphys.drawn[{b}]")).await;
            for c in 0..3 {
                let d = drawn[c].as_f64().expect("drawn coordinate");
                let want = f.poses[b as usize][c] as f64;
                assert!(
                    (d - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "frame {k}, body {b}: drawn {drawn} vs file {:?}",
                    &f.poses[b as usize][..3]
                );
            }
        }
    }
    // Play runs the timeline forward from the start.
    cdp.eval("document.getElementById('scrub').value = 0, rtphys.showFrame(0), document.getElementById('play').click(), true")
        .await;
    cdp.wait_for("rtphys.recording.frame > 3", 10.0).await;
    let dir_shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/viewer-screenshots");
    cdp.screenshot(&dir_shots.join("viewer_recording.png"))
        .await;
}

/// A browser with one page open on `url` (DevTools session attached, console
/// errors collected), once the page has drawn a few frames of the live world.
async fn open_page(url: &str) -> (Browser, Cdp) {
    let (browser, ws) = launch().await;
    let mut cdp = Cdp {
        ws,
        id: 0,
        session: None,
        errors: vec![],
    };
    let t = cdp
        .call("Target.createTarget", json!({"url": "about:blank"}))
        .await;
    let target = t["targetId"].as_str().expect("targetId").to_string();
    let a = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        )
        .await;
    cdp.session = Some(a["sessionId"].as_str().expect("sessionId").to_string());
    cdp.call("Runtime.enable", json!({})).await;
    cdp.call("Log.enable", json!({})).await;
    cdp.call("Page.enable", json!({})).await;
    cdp.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}),
    )
    .await;
    cdp.call("Page.navigate", json!({"url": url})).await;
    cdp.wait_for(
        "!!(window.rtphys && rtphys.ready && rtphys.frames > 2)",
        60.0,
    )
    .await;
    (browser, cdp)
}

async fn serve_scene(
    scene: &str,
) -> (
    rtphys::server::ServerHandle,
    std::net::SocketAddr,
    Client,
    pb::WorldInfo,
) {
    let cfg = rtphys::config::Config::default();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(scene);
    let (model, name) = rtphys::server::load_scene(Some(&path), &cfg).expect("scene");
    let srv = rtphys::server::spawn(cfg, model, &name, "127.0.0.1:0")
        .await
        .expect("server");
    let vaddr = rtphys::viewer::spawn(srv.runtime.clone(), "127.0.0.1:0")
        .await
        .expect("viewer");
    let mut c = Client::connect(&srv.url()).await.expect("gRPC client");
    let world = c
        .raw
        .get_world(pb::GetWorldRequest {})
        .await
        .expect("GetWorld")
        .into_inner();
    (srv, vaddr, c, world)
}

/// x_w = R (s x_dev) + o (HapticDeviceInfo's mapping), R = (w, x, y, z).
fn device_to_world(d: &pb::HapticDeviceInfo, x: [f64; 3]) -> [f64; 3] {
    let (w, v) = (d.rotation[0], [d.rotation[1], d.rotation[2], d.rotation[3]]);
    let p = [x[0] * d.scale, x[1] * d.scale, x[2] * d.scale];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    // Rodrigues with a unit quaternion: p' = p + 2w (v×p) + 2 v×(v×p).
    let t = cross(v, p);
    let u = cross(v, t);
    [0, 1, 2].map(|k| p[k] + 2.0 * w * t[k] + 2.0 * u[k] + d.offset[k])
}

/// The haptic tool in the page: a device driven over gRPC (a Haptic stream sending
/// samples, as a device loop does) draws its target where the device pose maps in
/// the world (1e-6 m: the page draws the server's f64 values through a float32
/// matrix, so 1e-5 m), the coupling line ends at the tool body as drawn, the
/// rendered force is the feedback's force mapped back to the world, and the
/// toggle hides it all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewer_draws_the_haptic_tool_and_its_coupling() {
    let (srv, vaddr, mut c, world) = serve_scene("config/scenes/haptic_probe.toml").await;
    assert_eq!(world.haptic_devices.len(), 1, "haptic_probe has one device");
    let dev = world.haptic_devices[0].clone();
    let (_browser, mut cdp) = open_page(&format!("http://{vaddr}/")).await;
    assert_eq!(
        cdp.eval("rtphys.world.haptic_devices.length").await,
        json!(1)
    );
    // No stream: nothing drawn.
    assert_eq!(cdp.eval("rtphys.haptic.length").await, json!(0));

    let (tx, rx) = tokio::sync::mpsc::channel::<pb::HapticRequest>(256);
    tx.send(pb::HapticRequest {
        msg: Some(pb::haptic_request::Msg::Hello(pb::HapticHello {
            device: Some(pb::haptic_hello::Device::Name(dev.name.clone())),
            network: None,
            lockstep: false,
        })),
    })
    .await
    .expect("hello");
    let rx = tokio_stream::wrappers::ReceiverStream::new(rx);
    let mut fb = c.raw.haptic(rx).await.expect("Haptic stream").into_inner();
    let mut seq = 0u64;
    // Three device poses inside the workspace; the device keeps sending the same pose
    // (one sample per feedback, as a device loop does) until the page shows it.
    for x in [[0.0, 0.0, 0.02], [0.03, -0.02, 0.01], [-0.04, 0.05, 0.0]] {
        let want = device_to_world(&dev, x);
        let t0 = Instant::now();
        loop {
            seq += 1;
            tx.send(pb::HapticRequest {
                msg: Some(pb::haptic_request::Msg::Sample(pb::DeviceSample {
                    seq,
                    position: x.to_vec(),
                    ..Default::default()
                })),
            })
            .await
            .expect("sample");
            let f = tokio::time::timeout(Duration::from_secs(5), fb.next())
                .await
                .expect("feedback in 5 s")
                .expect("feedback stream open")
                .expect("feedback");
            assert!(f.errors.is_empty(), "rejected samples: {:?}", f.errors);
            let h = cdp.eval("rtphys.haptic").await;
            let shown = h
                .as_array()
                .and_then(|a| a.first())
                .map(|e| [0, 1, 2].map(|k| e["target"][k].as_f64().expect("target coordinate")));
            if let Some(p) = shown {
                if (0..3).all(|k| (p[k] - want[k]).abs() < 1e-5) {
                    assert_eq!(h[0]["id"], json!(dev.id));
                    break;
                }
            }
            assert!(
                t0.elapsed() < Duration::from_secs(15),
                "page target {shown:?} never reached the device pose {x:?} → world {want:?}"
            );
        }
    }
    // Rendered force: the world force the page draws maps to the feedback's device force
    // (f_dev = s Rᵀ f_w; R is the identity in haptic_probe, so f_w = f_dev / s).
    assert_eq!(
        dev.rotation,
        vec![1.0, 0.0, 0.0, 0.0],
        "haptic_probe's device is not rotated"
    );
    let t0 = Instant::now();
    loop {
        seq += 1;
        tx.send(pb::HapticRequest {
            msg: Some(pb::haptic_request::Msg::Sample(pb::DeviceSample {
                seq,
                position: vec![-0.04, 0.05, 0.0],
                ..Default::default()
            })),
        })
        .await
        .expect("sample");
        let f = fb.next().await.expect("feedback").expect("feedback");
        // Pause: the last feedback is the one the page shows.
        if t0.elapsed() > Duration::from_millis(300) {
            c.raw.pause(pb::PauseRequest {}).await.expect("Pause");
            let mut last = f;
            while let Ok(Some(Ok(n))) =
                tokio::time::timeout(Duration::from_millis(300), fb.next()).await
            {
                last = n;
            }
            let tick = last.tick;
            cdp.wait_for(
                &format!("rtphys.state.tick >= {tick} && rtphys.haptic.length === 1"),
                10.0,
            )
            .await;
            cdp.wait_for(&format!("rtphys.state.tick === {tick}"), 10.0)
                .await;
            let shown = cdp.eval("rtphys.haptic[0].force").await;
            // The coupling line ends at the tool body as drawn (same tick; the page's
            // float32 matrices: 1e-5 m).
            let tool = cdp.eval("rtphys.haptic[0].tool").await;
            let drawn = cdp
                .eval(&format!("rtphys.drawn[{}]", dev.tool_body_id))
                .await;
            for k in 0..3 {
                let (a, b) = (
                    tool[k].as_f64().expect("tool"),
                    drawn[k].as_f64().expect("drawn"),
                );
                assert!(
                    (a - b).abs() < 1e-5,
                    "coupling end {tool} vs tool drawn at {drawn}"
                );
                let tp = last.tool_position[k];
                assert!(
                    (a - tp).abs() <= 1e-12,
                    "coupling end {tool} vs feedback tool {:?}",
                    last.tool_position
                );
            }
            for k in 0..3 {
                let want = last.force[k] / dev.scale;
                let got = shown[k].as_f64().expect("force");
                assert!(
                    (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "drawn force {shown} vs feedback {:?} / scale {}",
                    last.force,
                    dev.scale
                );
            }
            break;
        }
    }
    // The toggle hides the tool overlay; turning it back on shows it again.
    cdp.eval("document.getElementById('haptic').click(), true")
        .await;
    let n = cdp.eval("rtphys.frames").await.as_u64().expect("frames");
    cdp.wait_for(
        &format!("rtphys.frames > {} && rtphys.haptic.length === 0", n + 1),
        10.0,
    )
    .await;
    cdp.eval("document.getElementById('haptic').click(), true")
        .await;
    cdp.wait_for("rtphys.haptic.length === 1", 10.0).await;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/viewer-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    cdp.screenshot(&dir.join("viewer_haptic.png")).await;
    assert!(cdp.errors.is_empty(), "console errors: {:?}", cdp.errors);
    drop(tx);
    srv.shutdown().await.expect("shutdown");
}

/// Joint plots in the page: a robot world lists its joints; the chosen joint's
/// plot receives samples, and once the world is paused the plotted q and τ are the
/// server's (GetState joints, same tick; JSON carries the f64 exactly).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewer_plots_the_chosen_joints() {
    let (srv, vaddr, mut c, world) = serve_scene("config/scenes/arm.toml").await;
    assert!(world.joints.len() >= 2, "arm.toml has joints");
    let (_browser, mut cdp) = open_page(&format!("http://{vaddr}/")).await;
    assert_eq!(
        cdp.eval("document.getElementById('jointsel').options.length")
            .await,
        json!(world.joints.len())
    );
    // Choose the second and fourth joints.
    let pick = [world.joints[1].id, world.joints[3].id];
    cdp.eval(&format!(
        "(() => {{ const s = document.getElementById('jointsel'); \
         for (const o of s.options) o.selected = [{}, {}].includes(+o.value); \
         s.dispatchEvent(new Event('change')); return true; }})()",
        pick[0], pick[1]
    ))
    .await;
    cdp.wait_for(
        &format!(
            "rtphys.jointPlot.samples > 10 && rtphys.jointPlot.joints.join() === '{},{}'",
            pick[0], pick[1]
        ),
        20.0,
    )
    .await;
    c.raw.pause(pb::PauseRequest {}).await.expect("Pause");
    let s = c
        .raw
        .get_state(pb::GetStateRequest {
            fields: vec![pb::StateField::Joints as i32],
            bodies: vec![],
        })
        .await
        .expect("GetState")
        .into_inner();
    assert!(s.paused);
    cdp.wait_for(&format!("rtphys.jointPlot.tick === {}", s.tick), 10.0)
        .await;
    let p = cdp.eval("rtphys.jointPlot").await;
    for (i, &j) in pick.iter().enumerate() {
        let js = s.joints.iter().find(|x| x.id == j).expect("joint state");
        let (q, tau) = (
            p["q"][i].as_f64().expect("q"),
            p["tau"][i].as_f64().expect("tau"),
        );
        assert!(
            (q - js.position).abs() <= 1e-12,
            "joint {j}: plotted q {q} vs server {}",
            js.position
        );
        assert!(
            (tau - js.effort).abs() <= 1e-12,
            "joint {j}: plotted τ {tau} vs server {}",
            js.effort
        );
    }
    // The canvases are drawn (the plot area is not empty).
    assert_eq!(
        cdp.eval("getComputedStyle(document.getElementById('joints')).display")
            .await,
        json!("block")
    );
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/viewer-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    cdp.screenshot(&dir.join("viewer_joints.png")).await;
    assert!(cdp.errors.is_empty(), "console errors: {:?}", cdp.errors);
    srv.shutdown().await.expect("shutdown");
}
