//! Typed server settings (`config/server.toml`). Every field has a documented
//! default; a missing file section or key takes it, an unknown key is an error.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// How the physics thread advances time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Fixed wall-clock rate `realtime_factor / dt` with absolute-deadline pacing.
    Realtime,
    /// Advance only on `Step(n)` or when every lockstep controller has sent its command.
    Lockstep,
    /// As fast as possible (batch runs).
    Max,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Realtime => "realtime",
            Mode::Lockstep => "lockstep",
            Mode::Max => "max",
        }
    }
}

/// What happens to a controller's inputs when its command watchdog fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SafeBehavior {
    /// Remove the controller's wrenches.
    Zero,
    /// Keep applying the last command.
    Hold,
    /// Replace the controller's wrenches by a damping wrench on the same bodies:
    /// f = -c m v, τ = -c I w (c = `watchdog.damping`, 1/s).
    Damp,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[derive(Default)]
pub struct Config {
    pub server: ServerConfig,
    pub physics: PhysicsConfig,
    pub realtime: RealtimeConfig,
    pub watchdog: WatchdogConfig,
    pub limits: LimitsConfig,
    pub auth: AuthConfig,
    pub tls: TlsConfig,
}

/// TLS (rustls through tonic) and mutual TLS. Off when `cert_file` is "".
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[derive(Default)]
pub struct TlsConfig {
    /// Server certificate chain, PEM; "" = plain TCP. Default "".
    pub cert_file: String,
    /// Its private key, PEM. Default "".
    pub key_file: String,
    /// CA certificate(s), PEM, that client certificates must chain to; "" = no client
    /// certificates asked (TLS only). Set = mutual TLS, a client without a valid
    /// certificate is refused during the handshake. Default "".
    pub client_ca_file: String,
}

/// Bearer-token authentication (`authorization: Bearer <token>` metadata), by role:
/// observer (world, state, stats, state streams) < controller (+ wrenches, joint
/// commands, Control streams, Step/Pause/Resume) < admin (+ SetMode, Reset,
/// snapshots, LoadScene). No token configured = authentication off.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[derive(Default)]
pub struct AuthConfig {
    /// A TOML file `observer = ["…"]`, `controller = ["…"]`, `admin = ["…"]`; "" = none.
    /// The environment adds `RTPHYS_TOKENS_OBSERVER`, `_CONTROLLER`, `_ADMIN`
    /// (comma-separated). Default "".
    pub tokens_file: String,
    /// Serve on an address that is not loopback without tokens or without TLS
    /// (refused otherwise). Default false.
    pub allow_unauthenticated_remote: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// gRPC listen address. Default "127.0.0.1:50051".
    pub listen: String,
    /// Scene served when `--scene` is not given; "" = the embedded default scene.
    pub scene: String,
    /// Tokio worker threads for the network side. Default 2.
    pub worker_threads: usize,
    /// Largest encoded or decoded gRPC message, bytes. Default 4 MiB.
    pub max_message_bytes: usize,
    /// Open StreamState + Control streams, all clients together. Default 64.
    pub max_streams: usize,
    /// Open Control streams (command sources). Default 16.
    pub max_controllers: usize,
    /// Snapshots kept by SaveSnapshot. Default 64.
    pub max_snapshots: usize,
    /// HTTP/2 concurrent streams per connection. Default 128.
    pub max_concurrent_streams_per_connection: u32,
    /// HTTP/2 keep-alive ping interval, s (0 = off). Default 10.
    pub keepalive_s: f64,
    /// Disable Nagle's algorithm on accepted sockets. Default true.
    pub tcp_nodelay: bool,
    /// Seconds to wait for open streams to finish on SIGINT/SIGTERM. Default 2.
    pub shutdown_grace_s: f64,
    /// Prometheus text endpoint, e.g. "127.0.0.1:9464"; "" = off. Default "".
    pub metrics_listen: String,
    /// Serve the web viewer (`rtphys serve`). Default true.
    pub viewer: bool,
    /// Web viewer address (HTTP + WebSocket). Default "127.0.0.1:8080".
    pub viewer_listen: String,
    /// States per second sent to each viewer page (the display rate), in [1, 240].
    /// Default 30.
    pub viewer_rate_hz: f64,
    /// Directories `LoadScene{path}` may read from (and the URDFs and meshes such a
    /// scene names); relative entries are taken from the working directory. Paths are
    /// canonicalized (no `..` or symlink escape). Default
    /// ["config/scenes", "config/robots", "config/meshes"].
    pub scene_roots: Vec<String>,
    /// Largest scene, URDF or mesh file read over the API, and largest inline scene
    /// text, bytes. Default 4 MiB.
    pub max_scene_bytes: u64,
    /// Directory `StartRecording{file}` writes command logs into (a bare file name
    /// over the API; never overwritten). Default "recordings".
    pub record_dir: String,
    /// Stream slots (of `max_streams`) that only Control streams may take, so state
    /// subscribers cannot lock a controller out. Default 8.
    pub reserved_controller_streams: usize,
    /// Open TCP connections; a connection beyond it is closed at once. Default 256.
    pub max_connections: usize,
    /// A connection with no open stream and no request for this long is closed, s
    /// (also bounds the HTTP/2 handshake); 0 = never. Default 60.
    pub idle_timeout_s: f64,
    /// Requests (unary calls and stream openings) per second per connection,
    /// sustained; 0 = unlimited. Default 20000 (above a unary lockstep `Step(1)` loop,
    /// ≈ 7000/s on the development machine).
    pub rate_limit_per_s: f64,
    /// Burst allowance of the per-connection rate limit, requests. Default 4000.
    pub rate_limit_burst: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PhysicsConfig {
    /// Initial mode. Default "realtime".
    pub mode: Mode,
    /// Simulated seconds per wall second in realtime mode (0.1–100). Default 1.
    pub realtime_factor: f64,
    /// Step size override, s; 0 = the scene's `world.dt`. 1 kHz = 0.001, 10 kHz = 0.0001.
    pub dt: f64,
    /// Start paused. Default false.
    pub start_paused: bool,
    /// Busy-wait this long before each realtime deadline instead of sleeping, µs
    /// (the kernel's wake-up jitter is absorbed; costs CPU). Default 60.
    pub spin_us: u64,
    /// In lockstep mode, poll for commands this long after a tick before parking, µs
    /// (lower round-trip latency for a hardware-in-the-loop rig; costs CPU). Default 0.
    pub lockstep_spin_us: u64,
    /// States kept for streaming (per world, shared by all subscribers). A subscriber
    /// more than this many states behind loses its oldest. Default 1024.
    pub state_ring: usize,
    /// Capacity of the lock-free command queue. Default 4096.
    pub command_queue: usize,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RealtimeConfig {
    /// Pin the physics thread to this CPU; -1 = no pinning. Default -1.
    pub cpu: i32,
    /// SCHED_FIFO priority 1–99 of the physics thread; 0 = normal scheduling. Default 0.
    pub fifo_priority: i32,
    /// Lock the process's memory (mlockall) against page faults. Default false.
    pub mlockall: bool,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct WatchdogConfig {
    /// A control stream that sends no command for this long trips its watchdog, ms;
    /// 0 = disabled (streams may still ask for one). Default 100.
    pub timeout_ms: f64,
    /// Default safe behaviour. Default "zero".
    pub safe_behavior: SafeBehavior,
    /// Damping rate of the "damp" behaviour, 1/s. Default 10.
    pub damping: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Largest accepted force magnitude per component, N. Default 1e5.
    pub max_force_n: f64,
    /// Largest accepted torque magnitude per component, N·m. Default 1e5.
    pub max_torque_nm: f64,
    /// Longest wrench duration, s. Default 3600.
    pub max_duration_s: f64,
    /// Largest application-point coordinate, m. Default 1e4.
    pub max_point_m: f64,
    /// Wrenches in one command. Default 16.
    pub max_wrenches_per_command: usize,
    /// Largest n of Step(n). Default 1_000_000.
    pub max_step: u32,
    /// Largest stream decimation. Default 100_000.
    pub max_decimation: u32,
    /// Largest linear acceleration a wrench may give a free body, m/s²: |F| ≤ m ·
    /// this (the force at the application point). 0 = no per-body bound. Default 1e4.
    pub max_linear_accel: f64,
    /// Largest angular acceleration a wrench may give a free body, rad/s²: |τ| ≤
    /// λ_min(I) · this (τ about the centre of mass, including r × F). 0 = no per-body
    /// bound. Default 1e4.
    pub max_angular_accel: f64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: "127.0.0.1:50051".into(),
            scene: String::new(),
            worker_threads: 2,
            max_message_bytes: 4 << 20,
            max_streams: 64,
            max_controllers: 16,
            max_snapshots: 64,
            max_concurrent_streams_per_connection: 128,
            keepalive_s: 10.0,
            tcp_nodelay: true,
            shutdown_grace_s: 2.0,
            metrics_listen: String::new(),
            viewer: true,
            viewer_listen: "127.0.0.1:8080".into(),
            viewer_rate_hz: 30.0,
            scene_roots: vec![
                "config/scenes".into(),
                "config/robots".into(),
                "config/meshes".into(),
            ],
            max_scene_bytes: 4 << 20,
            record_dir: "recordings".into(),
            reserved_controller_streams: 8,
            max_connections: 256,
            idle_timeout_s: 60.0,
            rate_limit_per_s: 20000.0,
            rate_limit_burst: 4000.0,
        }
    }
}

impl Default for PhysicsConfig {
    fn default() -> Self {
        PhysicsConfig {
            mode: Mode::Realtime,
            realtime_factor: 1.0,
            dt: 0.0,
            start_paused: false,
            spin_us: 60,
            lockstep_spin_us: 0,
            state_ring: 1024,
            command_queue: 4096,
        }
    }
}

impl Default for RealtimeConfig {
    fn default() -> Self {
        RealtimeConfig {
            cpu: -1,
            fifo_priority: 0,
            mlockall: false,
        }
    }
}

impl Default for WatchdogConfig {
    fn default() -> Self {
        WatchdogConfig {
            timeout_ms: 100.0,
            safe_behavior: SafeBehavior::Zero,
            damping: 10.0,
        }
    }
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            max_force_n: 1e5,
            max_torque_nm: 1e5,
            max_duration_s: 3600.0,
            max_point_m: 1e4,
            max_wrenches_per_command: 16,
            max_step: 1_000_000,
            max_decimation: 100_000,
            max_linear_accel: 1e4,
            max_angular_accel: 1e4,
        }
    }
}

/// A settings file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: cannot read: {err}")]
    Read { file: String, err: std::io::Error },
    #[error("{file}: {err}")]
    Parse { file: String, err: toml::de::Error },
    #[error("{file}: {key}: {message}")]
    Invalid {
        file: String,
        key: &'static str,
        message: String,
    },
}

impl Config {
    /// Read and validate a settings file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|err| ConfigError::Read {
            file: file.clone(),
            err,
        })?;
        Self::parse(&text, &file)
    }

    /// Parse and validate settings text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|err| ConfigError::Parse {
            file: file.to_string(),
            err,
        })?;
        cfg.validate(file)?;
        Ok(cfg)
    }

    /// Range checks that serde cannot express.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let bad = |key: &'static str, message: String| {
            Err(ConfigError::Invalid {
                file: file.to_string(),
                key,
                message,
            })
        };
        let p = &self.physics;
        if !(p.realtime_factor.is_finite() && (1e-3..=1e3).contains(&p.realtime_factor)) {
            return bad(
                "physics.realtime_factor",
                format!("must be in [0.001, 1000], got {}", p.realtime_factor),
            );
        }
        if !(p.dt.is_finite() && (p.dt == 0.0 || (1e-6..=1.0).contains(&p.dt))) {
            return bad(
                "physics.dt",
                format!("must be 0 (scene's) or in [1e-6, 1] s, got {}", p.dt),
            );
        }
        if !(2..=1 << 20).contains(&p.state_ring) {
            return bad(
                "physics.state_ring",
                format!("must be in [2, 1048576], got {}", p.state_ring),
            );
        }
        if !(16..=1 << 20).contains(&p.command_queue) {
            return bad(
                "physics.command_queue",
                format!("must be in [16, 1048576], got {}", p.command_queue),
            );
        }
        let s = &self.server;
        if s.listen.parse::<std::net::SocketAddr>().is_err() {
            return bad("server.listen", format!("not an address: {:?}", s.listen));
        }
        if !s.metrics_listen.is_empty() && s.metrics_listen.parse::<std::net::SocketAddr>().is_err()
        {
            return bad(
                "server.metrics_listen",
                format!("not an address: {:?}", s.metrics_listen),
            );
        }
        if s.viewer_listen.parse::<std::net::SocketAddr>().is_err() {
            return bad(
                "server.viewer_listen",
                format!("not an address: {:?}", s.viewer_listen),
            );
        }
        if !(1.0..=240.0).contains(&s.viewer_rate_hz) {
            return bad(
                "server.viewer_rate_hz",
                format!("must be in [1, 240], got {}", s.viewer_rate_hz),
            );
        }
        if !(1..=64).contains(&s.worker_threads) {
            return bad(
                "server.worker_threads",
                format!("must be in [1, 64], got {}", s.worker_threads),
            );
        }
        if !(1024..=1 << 30).contains(&s.max_message_bytes) {
            return bad(
                "server.max_message_bytes",
                format!("must be in [1024, 2^30], got {}", s.max_message_bytes),
            );
        }
        if !(1..=4096).contains(&s.max_streams) {
            return bad(
                "server.max_streams",
                format!("must be in [1, 4096], got {}", s.max_streams),
            );
        }
        if !(1..=256).contains(&s.max_controllers) {
            return bad(
                "server.max_controllers",
                format!("must be in [1, 256], got {}", s.max_controllers),
            );
        }
        if !(s.keepalive_s.is_finite() && s.keepalive_s >= 0.0) {
            return bad(
                "server.keepalive_s",
                format!("must be ≥ 0, got {}", s.keepalive_s),
            );
        }
        if !(s.shutdown_grace_s.is_finite() && s.shutdown_grace_s >= 0.0) {
            return bad(
                "server.shutdown_grace_s",
                format!("must be ≥ 0, got {}", s.shutdown_grace_s),
            );
        }
        if !(1024..=1 << 30).contains(&s.max_scene_bytes) {
            return bad(
                "server.max_scene_bytes",
                format!("must be in [1024, 2^30], got {}", s.max_scene_bytes),
            );
        }
        if s.reserved_controller_streams >= s.max_streams
            || s.reserved_controller_streams > s.max_controllers
        {
            return bad(
                "server.reserved_controller_streams",
                format!(
                    "must be < server.max_streams ({}) and ≤ server.max_controllers ({}), got {}",
                    s.max_streams, s.max_controllers, s.reserved_controller_streams
                ),
            );
        }
        if !(1..=1 << 20).contains(&s.max_connections) {
            return bad(
                "server.max_connections",
                format!("must be in [1, 1048576], got {}", s.max_connections),
            );
        }
        for (k, v) in [
            ("server.idle_timeout_s", s.idle_timeout_s),
            ("server.rate_limit_per_s", s.rate_limit_per_s),
            ("server.rate_limit_burst", s.rate_limit_burst),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(k, format!("must be a finite number ≥ 0, got {v}"));
            }
        }
        if s.rate_limit_per_s > 0.0 && s.rate_limit_burst < 1.0 {
            return bad(
                "server.rate_limit_burst",
                format!(
                    "must be ≥ 1 when rate_limit_per_s > 0, got {}",
                    s.rate_limit_burst
                ),
            );
        }
        let r = &self.realtime;
        if !(0..=99).contains(&r.fifo_priority) {
            return bad(
                "realtime.fifo_priority",
                format!("must be in [0, 99], got {}", r.fifo_priority),
            );
        }
        let w = &self.watchdog;
        if !(w.timeout_ms.is_finite() && w.timeout_ms >= 0.0) {
            return bad(
                "watchdog.timeout_ms",
                format!("must be ≥ 0, got {}", w.timeout_ms),
            );
        }
        if !(w.damping.is_finite() && w.damping >= 0.0) {
            return bad(
                "watchdog.damping",
                format!("must be ≥ 0, got {}", w.damping),
            );
        }
        let l = &self.limits;
        for (k, v) in [
            ("limits.max_force_n", l.max_force_n),
            ("limits.max_torque_nm", l.max_torque_nm),
            ("limits.max_duration_s", l.max_duration_s),
            ("limits.max_point_m", l.max_point_m),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(k, format!("must be a positive number, got {v}"));
            }
        }
        for (k, v) in [
            ("limits.max_linear_accel", l.max_linear_accel),
            ("limits.max_angular_accel", l.max_angular_accel),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(k, format!("must be a finite number ≥ 0, got {v}"));
            }
        }
        if !(1..=1024).contains(&l.max_wrenches_per_command) {
            return bad(
                "limits.max_wrenches_per_command",
                format!("must be in [1, 1024], got {}", l.max_wrenches_per_command),
            );
        }
        if l.max_step == 0 || l.max_decimation == 0 {
            return bad(
                "limits.max_step",
                "max_step and max_decimation must be ≥ 1".into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_file_matches_defaults() {
        let text = include_str!("../config/server.toml");
        let cfg = Config::parse(text, "config/server.toml").unwrap();
        assert_eq!(cfg, Config::default());
    }

    #[test]
    fn unknown_key_is_an_error() {
        assert!(Config::parse("[physics]\nrate = 3\n", "x").is_err());
        let e = Config::parse("[physics]\nrealtime_factor = -1\n", "x").unwrap_err();
        assert!(e.to_string().contains("physics.realtime_factor"), "{e}");
    }
}
