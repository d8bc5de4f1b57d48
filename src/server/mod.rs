//! gRPC services over the runtime: `rtphys.v1.Simulation`, `grpc.health.v1`,
//! server reflection (v1 and v1alpha), bounded message sizes, graceful shutdown on
//! SIGINT/SIGTERM. See docs/SERVER.md.

pub mod auth;
pub mod bench;
pub mod client;
pub mod conn;
pub mod convert;
pub mod files;
pub mod haptic_client;
mod metrics;
pub mod netem;
pub mod service;
pub mod soak;
pub mod status;
pub mod streams;

use crate::config::Config;
use crate::runtime::Runtime;
use anyhow::Context as _;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Generated messages and services of `proto/rtphys/v1/sim.proto`.
pub mod pb {
    tonic::include_proto!("rtphys.v1");
    /// Encoded FileDescriptorSet (for server reflection).
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/rtphys_descriptor.bin"));
}

/// The scene served when none is given (a table on a floor with objects to push).
pub const DEFAULT_SCENE: &str = include_str!("../../config/scenes/default.toml");
pub const DEFAULT_SCENE_NAME: &str = "default (config/scenes/default.toml)";

/// `rtphys serve` arguments.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// Server settings file (TOML); defaults are documented in config/server.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Scene file; without it the embedded default scene is served.
    #[arg(long)]
    pub scene: Option<PathBuf>,
    /// Listen address, e.g. 127.0.0.1:50051 (port 0 = any free port).
    #[arg(long)]
    pub listen: Option<String>,
    /// Initial mode: realtime, lockstep or max (overrides physics.mode).
    #[arg(long)]
    pub mode: Option<String>,
    /// Record every applied input with its tick into FILE (a command log for
    /// `rtphys replay SCENE FILE`; the world starts from the scene's initial state).
    #[arg(long, value_name = "FILE")]
    pub record_inputs: Option<PathBuf>,
    /// Web viewer address, e.g. 127.0.0.1:8080 (overrides server.viewer_listen).
    #[arg(long, value_name = "ADDR")]
    pub viewer_listen: Option<String>,
    /// Do not serve the web viewer (overrides server.viewer).
    #[arg(long)]
    pub no_viewer: bool,
}

/// Load the scene named by the arguments or the settings, or the embedded default.
pub fn load_scene(scene: Option<&Path>, cfg: &Config) -> anyhow::Result<(crate::Model, String)> {
    let path = scene
        .map(Path::to_path_buf)
        .or_else(|| (!cfg.server.scene.is_empty()).then(|| PathBuf::from(&cfg.server.scene)));
    match path {
        Some(p) => {
            let m = crate::model::scene::load_scene_file(&p).map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok((m, p.display().to_string()))
        }
        None => {
            let m = crate::model::scene::load_scene_str(
                DEFAULT_SCENE,
                "config/scenes/default.toml",
                Path::new("config/scenes"),
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok((m, DEFAULT_SCENE_NAME.to_string()))
        }
    }
}

/// Entry point of `rtphys serve`.
pub fn serve_main(args: ServeArgs) -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_target(false)
        .try_init();
    let mut cfg = match &args.config {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    };
    if let Some(l) = &args.listen {
        cfg.server.listen = l.clone();
    }
    if let Some(m) = &args.mode {
        cfg.physics.mode = match m.as_str() {
            "realtime" => crate::config::Mode::Realtime,
            "lockstep" => crate::config::Mode::Lockstep,
            "max" => crate::config::Mode::Max,
            other => anyhow::bail!("--mode: unknown mode {other:?} (realtime, lockstep, max)"),
        };
    }
    if let Some(l) = &args.viewer_listen {
        cfg.server.viewer_listen = l.clone();
    }
    if args.no_viewer {
        cfg.server.viewer = false;
    }
    cfg.validate("--listen/--viewer-listen/--config")?;
    let (model, name) = load_scene(args.scene.as_deref(), &cfg)?;
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.server.worker_threads)
        .thread_name("rtphys-net")
        .enable_all()
        .build()?;
    tokio_rt.block_on(async move {
        let addr: SocketAddr = cfg.server.listen.parse()?;
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
            format!("cannot listen on {addr} (in use? try --listen 127.0.0.1:0)")
        })?;
        let local = listener.local_addr()?;
        let rt = Runtime::start(&cfg, model, &name)?;
        rt.warn_if_not_realtime();
        let st = rt.status();
        let view = rt.world();
        tracing::info!(
            "rtphys {} serving {:?} ({} bodies, method {}, dt {} s) on {} — mode {}{}, {:.0} Hz",
            env!("CARGO_PKG_VERSION"),
            name,
            view.model.nbody(),
            view.model.opt.method.name(),
            view.model.opt.dt,
            local,
            st.mode.name(),
            if st.paused { " (paused)" } else { "" },
            st.rate_hz
        );
        if let Some(p) = &args.record_inputs {
            rt.start_recording(p)
                .await
                .map_err(|e| anyhow::anyhow!("--record-inputs: {e}"))?;
            tracing::info!("recording the inputs into {}", p.display());
        }
        // Machine-readable line for scripts that start the server on port 0.
        println!("rtphys listening on {local}");
        if !cfg.server.metrics_listen.is_empty() {
            let maddr: SocketAddr = cfg.server.metrics_listen.parse()?;
            metrics::spawn(rt.clone(), maddr).await?;
            tracing::info!("Prometheus metrics on http://{maddr}/metrics");
        }
        if cfg.server.viewer {
            crate::viewer::check_listen(&cfg, &cfg.server.viewer_listen)?;
            // A viewer that cannot bind (port taken) leaves the gRPC server running.
            match crate::viewer::spawn(rt.clone(), &cfg.server.viewer_listen).await {
                Ok(v) => {
                    tracing::info!("web viewer on http://{v}/");
                    println!("rtphys viewer on http://{v}/");
                }
                Err(e) => tracing::warn!(
                    "web viewer not served on {}: {e:#} (--viewer-listen ADDR, --no-viewer)",
                    cfg.server.viewer_listen
                ),
            }
        }
        run(rt.clone(), listener, shutdown_signal()).await?;
        rt.shutdown();
        tracing::info!("stopped");
        Ok(())
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => tracing::info!("SIGINT: shutting down"),
        _ = term => tracing::info!("SIGTERM: shutting down"),
    }
}

/// Serve the runtime on `listener` until `shutdown` completes; then streams are ended,
/// in-flight calls get `server.shutdown_grace_s` to finish, and this returns.
/// The physics thread keeps running: call `rt.shutdown()` afterwards.
pub async fn run(
    rt: Runtime,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    use pb::simulation_server::SimulationServer;
    let cfg = rt.shared.cfg.clone();
    let auth = auth::Auth::from_config(&cfg)?;
    auth::check_listen(&cfg, &auth, &listener.local_addr()?)?;
    if auth.enabled() {
        tracing::info!("bearer-token authentication on");
    }
    let svc = service::SimService::with_auth(rt.clone(), auth);
    let max = cfg.server.max_message_bytes;
    let sim = SimulationServer::new(svc)
        .max_decoding_message_size(max)
        .max_encoding_message_size(max);
    let (health_reporter, health) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<SimulationServer<service::SimService>>()
        .await;
    let refl_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let refl_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    // Free what the physics thread hands back, off its thread.
    let trash_rt = rt.clone();
    let trash_task = tokio::spawn(async move {
        let mut iv = tokio::time::interval(Duration::from_millis(20));
        loop {
            iv.tick().await;
            trash_rt.shared.empty_trash();
        }
    });
    // Health follows the physics fault flag: NOT_SERVING while a caught panic has
    // the world stuck (until Reset/LoadScene), for "" and rtphys.v1.Simulation.
    let fault_rt = rt.clone();
    let fault_hr = health_reporter.clone();
    let fault_task = tokio::spawn(async move {
        let mut iv = tokio::time::interval(Duration::from_millis(50));
        let mut was = false;
        loop {
            iv.tick().await;
            if fault_rt.shared.is_shutting_down() {
                break;
            }
            let now = fault_rt
                .shared
                .faulted
                .load(std::sync::atomic::Ordering::SeqCst);
            if now != was {
                was = now;
                let st = if now {
                    tonic_health::ServingStatus::NotServing
                } else {
                    tonic_health::ServingStatus::Serving
                };
                fault_hr.set_service_status("", st).await;
                if now {
                    fault_hr
                        .set_not_serving::<SimulationServer<service::SimService>>()
                        .await;
                } else {
                    fault_hr
                        .set_serving::<SimulationServer<service::SimService>>()
                        .await;
                }
            }
        }
    });
    let keepalive =
        (cfg.server.keepalive_s > 0.0).then(|| Duration::from_secs_f64(cfg.server.keepalive_s));
    let started = std::sync::Arc::new(tokio::sync::Notify::new());
    let started2 = started.clone();
    let rt2 = rt.clone();
    let hr = health_reporter.clone();
    let signal = async move {
        shutdown.await;
        hr.set_not_serving::<SimulationServer<service::SimService>>()
            .await;
        rt2.begin_shutdown();
        started2.notify_one();
    };
    #[cfg(unix)]
    {
        // The connection limit protects the descriptors only if it is below them.
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } == 0
            && rl.rlim_cur
                < libc::rlim_t::try_from(cfg.server.max_connections + 64)
                    .unwrap_or(libc::rlim_t::MAX)
        {
            let note = format!(
                "server.max_connections = {} is not below the open-file limit {} minus 64: \
                 raise `ulimit -n` or lower max_connections",
                cfg.server.max_connections, rl.rlim_cur
            );
            tracing::warn!("{note}");
            rt.shared.notes.lock().push(note);
        }
    }
    let limiter = conn::RateLimiter::new(rt.shared.clone());
    let (incoming, accept_task) = conn::incoming(listener, rt.shared.clone(), limiter.clone());
    let rate_limit = tonic::service::InterceptorLayer::new(move |req: tonic::Request<()>| {
        limiter.check(req.remote_addr())?;
        Ok(req)
    });
    let mut builder = tonic::transport::Server::builder();
    if let Some(tls) = auth::server_tls(&cfg)? {
        builder = builder.tls_config(tls)?;
        tracing::info!(
            "TLS on{}",
            if cfg.tls.client_ca_file.is_empty() {
                ""
            } else {
                " (mutual: client certificates required)"
            }
        );
    }
    let server = builder
        .layer(rate_limit)
        .tcp_nodelay(cfg.server.tcp_nodelay)
        .http2_keepalive_interval(keepalive)
        .http2_keepalive_timeout(keepalive.map(|k| k.min(Duration::from_secs(20))))
        .max_concurrent_streams(cfg.server.max_concurrent_streams_per_connection)
        .initial_connection_window_size(Some(8 << 20))
        .initial_stream_window_size(Some(1 << 20))
        .add_service(sim)
        .add_service(health)
        .add_service(refl_v1)
        .add_service(refl_v1alpha)
        .serve_with_incoming_shutdown(incoming, signal);
    let grace = Duration::from_secs_f64(cfg.server.shutdown_grace_s);
    let r = tokio::select! {
        r = server => r.map_err(anyhow::Error::from),
        _ = async { started.notified().await; tokio::time::sleep(grace).await } => {
            tracing::warn!("shutdown grace period over: closing remaining connections");
            Ok(())
        }
    };
    trash_task.abort();
    fault_task.abort();
    accept_task.abort();
    r
}

/// An in-process server on its own port (tests, benchmarks, embedding).
pub struct ServerHandle {
    pub addr: SocketAddr,
    pub runtime: Runtime,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl ServerHandle {
    /// `http://addr` for clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Graceful shutdown: streams end, the physics thread stops.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let r = match self.task.take() {
            Some(t) => t.await.map_err(anyhow::Error::from).and_then(|r| r),
            None => Ok(()),
        };
        let rt = self.runtime.clone();
        tokio::task::spawn_blocking(move || rt.shutdown()).await?;
        r
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        self.runtime.begin_shutdown();
    }
}

/// Start a server on `listen` (e.g. "127.0.0.1:0") inside the current tokio runtime.
pub async fn spawn(
    cfg: Config,
    model: crate::Model,
    scene_name: &str,
    listen: &str,
) -> anyhow::Result<ServerHandle> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    let runtime = Runtime::start(&cfg, model, scene_name)?;
    runtime.warn_if_not_realtime();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(run(runtime.clone(), listener, async move {
        let _ = rx.await;
    }));
    Ok(ServerHandle {
        addr,
        runtime,
        stop: Some(tx),
        task: Some(task),
    })
}
