//! Connections: a counting accept loop (`server.max_connections`; one more is closed at
//! once, so silent sockets cannot exhaust the process's file descriptors), an idle
//! timeout (`server.idle_timeout_s`: a connection whose peer sends nothing for that
//! long is closed — it also bounds the HTTP/2 handshake of a socket that never
//! speaks; an HTTP/2 client answers the keep-alive pings, so a live one is never
//! idle), and a per-connection request rate limit (`server.rate_limit_per_s`,
//! `rate_limit_burst`; a token bucket per peer address, checked by an interceptor on
//! every call and stream opening). At the connection limit, the connection whose peer
//! has been silent longest (at least 1 s) is closed to make room for the new one, so
//! silent sockets cannot keep new clients out until their idle timeout; if every
//! connection spoke within the last second, the new one is closed instead.

use crate::runtime::Shared;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Token buckets of the open connections, by peer address.
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<SocketAddr, (f64, Instant)>>,
    sh: Arc<Shared>,
}

impl RateLimiter {
    pub fn new(sh: Arc<Shared>) -> Arc<RateLimiter> {
        let s = &sh.cfg.server;
        Arc::new(RateLimiter {
            rate: s.rate_limit_per_s,
            burst: s.rate_limit_burst,
            buckets: Mutex::new(HashMap::new()),
            sh: sh.clone(),
        })
    }

    /// Take one token of `peer`'s bucket.
    pub fn check(&self, peer: Option<SocketAddr>) -> Result<(), tonic::Status> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        let Some(peer) = peer else { return Ok(()) };
        let now = Instant::now();
        let mut m = self.buckets.lock();
        let (tokens, at) = m.entry(peer).or_insert((self.burst, now));
        *tokens = (*tokens + (now - *at).as_secs_f64() * self.rate).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            self.sh.net.rate_limited.fetch_add(1, Ordering::Relaxed);
            Err(tonic::Status::resource_exhausted(format!(
                "rate limit: more than {} requests/s (burst {}) on this connection \
                 (server.rate_limit_per_s, server.rate_limit_burst)",
                self.rate, self.burst
            )))
        }
    }

    fn forget(&self, peer: Option<SocketAddr>) {
        if let Some(p) = peer {
            self.buckets.lock().remove(&p);
        }
    }
}

/// What the accept loop knows of an open connection.
struct Live {
    /// Last byte from the peer (or the accept), ns since `Registry::t0`.
    last_read: std::sync::atomic::AtomicU64,
    evict: std::sync::atomic::AtomicBool,
    waker: atomic_waker::AtomicWaker,
}

/// The open connections (for eviction at the limit).
#[derive(Default)]
struct Registry {
    t0: Option<Instant>,
    next: u64,
    live: HashMap<u64, Arc<Live>>,
}

impl Registry {
    fn now_ns(&self) -> u64 {
        self.t0.map(|t| t.elapsed().as_nanos() as u64).unwrap_or(0)
    }
}

/// An accepted connection: counted while open, closed after `idle` without a byte
/// from the peer, or when evicted at the connection limit.
pub struct Conn {
    inner: tokio::net::TcpStream,
    id: u64,
    live: Arc<Live>,
    registry: Arc<Mutex<Registry>>,
    t0: Instant,
    idle: Option<Duration>,
    deadline: Pin<Box<tokio::time::Sleep>>,
    peer: Option<SocketAddr>,
    sh: Arc<Shared>,
    limiter: Arc<RateLimiter>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.registry.lock().live.remove(&self.id);
        self.sh.net.connections.fetch_sub(1, Ordering::SeqCst);
        self.limiter.forget(self.peer);
    }
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;
    fn connect_info(&self) -> TcpConnectInfo {
        self.inner.connect_info()
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.live.evict.load(Ordering::SeqCst) {
            return Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "silent connection closed to make room (server.max_connections)",
            )));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    let ns = self.t0.elapsed().as_nanos() as u64;
                    self.live.last_read.store(ns, Ordering::Relaxed);
                    if let Some(d) = self.idle {
                        let at = tokio::time::Instant::now() + d;
                        self.deadline.as_mut().reset(at);
                    }
                }
                Poll::Ready(r)
            }
            Poll::Pending => {
                self.live.waker.register(cx.waker());
                if self.live.evict.load(Ordering::SeqCst) {
                    return Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "silent connection closed to make room (server.max_connections)",
                    )));
                }
                if self.idle.is_some() && self.deadline.as_mut().poll(cx).is_ready() {
                    self.sh.net.idle_closed.fetch_add(1, Ordering::Relaxed);
                    return Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "idle connection closed (server.idle_timeout_s)",
                    )));
                }
                Poll::Pending
            }
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

use std::future::Future as _;

/// The accept loop: connections within `server.max_connections` go to the server,
/// one more is closed at once (counted). Accept errors (EMFILE, …) are logged and
/// retried after a pause instead of ending the server.
pub fn incoming(
    listener: tokio::net::TcpListener,
    sh: Arc<Shared>,
    limiter: Arc<RateLimiter>,
) -> (
    tokio_stream::wrappers::ReceiverStream<std::io::Result<Conn>>,
    tokio::task::JoinHandle<()>,
) {
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Conn>>(64);
    let task = tokio::spawn(async move {
        let s = &sh.cfg.server;
        let max = s.max_connections as u64;
        let idle = (s.idle_timeout_s > 0.0).then(|| Duration::from_secs_f64(s.idle_timeout_s));
        let nodelay = s.tcp_nodelay;
        let mut warned = false;
        let t0 = Instant::now();
        let registry = Arc::new(Mutex::new(Registry {
            t0: Some(t0),
            ..Registry::default()
        }));
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    if !warned {
                        tracing::warn!("accept failed: {e}; retrying");
                        warned = true;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            warned = false;
            if sh.net.connections.load(Ordering::SeqCst) >= max {
                // Make room by closing the connection silent the longest (≥ 1 s).
                let r = registry.lock();
                let now = r.now_ns();
                let victim = r
                    .live
                    .values()
                    .filter(|l| !l.evict.load(Ordering::SeqCst))
                    .max_by_key(|l| now.saturating_sub(l.last_read.load(Ordering::Relaxed)))
                    .filter(|l| {
                        now.saturating_sub(l.last_read.load(Ordering::Relaxed)) >= 1_000_000_000
                    })
                    .cloned();
                drop(r);
                match victim {
                    Some(l) => {
                        l.evict.store(true, Ordering::SeqCst);
                        l.waker.wake();
                        sh.net.idle_closed.fetch_add(1, Ordering::Relaxed);
                        // The victim's descriptor is released when hyper drops it; the
                        // new connection is taken now (one over the limit, briefly).
                    }
                    None => {
                        sh.net.refused.fetch_add(1, Ordering::Relaxed);
                        drop(stream);
                        continue;
                    }
                }
            }
            let _ = stream.set_nodelay(nodelay);
            sh.net.connections.fetch_add(1, Ordering::SeqCst);
            let live = Arc::new(Live {
                last_read: std::sync::atomic::AtomicU64::new(registry.lock().now_ns()),
                evict: std::sync::atomic::AtomicBool::new(false),
                waker: atomic_waker::AtomicWaker::new(),
            });
            let id = {
                let mut r = registry.lock();
                r.next += 1;
                let id = r.next;
                r.live.insert(id, live.clone());
                id
            };
            let conn = Conn {
                inner: stream,
                id,
                live,
                registry: registry.clone(),
                t0,
                idle,
                deadline: Box::pin(tokio::time::sleep(idle.unwrap_or(Duration::from_secs(1)))),
                peer: Some(peer),
                sh: sh.clone(),
                limiter: limiter.clone(),
            };
            if tx.send(Ok(conn)).await.is_err() {
                break;
            }
        }
    });
    (tokio_stream::wrappers::ReceiverStream::new(rx), task)
}
