//! Connections: a counting accept loop (`server.max_connections`; one more is closed at
//! once, so silent sockets cannot exhaust the process's file descriptors), an idle
//! timeout (`server.idle_timeout_s`: a connection whose peer sends nothing for that
//! long is closed — it also bounds the HTTP/2 handshake of a socket that never
//! speaks; an HTTP/2 client answers the keep-alive pings, so a live one is never
//! idle), and a per-connection request rate limit (`server.rate_limit_per_s`,
//! `rate_limit_burst`; a token bucket per peer address, checked by an interceptor on
//! every call and stream opening).

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

/// An accepted connection: counted while open, closed after `idle` without a byte
/// from the peer.
pub struct Conn {
    inner: tokio::net::TcpStream,
    idle: Option<Duration>,
    deadline: Pin<Box<tokio::time::Sleep>>,
    peer: Option<SocketAddr>,
    sh: Arc<Shared>,
    limiter: Arc<RateLimiter>,
}

impl Drop for Conn {
    fn drop(&mut self) {
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
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    if let Some(d) = self.idle {
                        let at = tokio::time::Instant::now() + d;
                        self.deadline.as_mut().reset(at);
                    }
                }
                Poll::Ready(r)
            }
            Poll::Pending => {
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
                sh.net.refused.fetch_add(1, Ordering::Relaxed);
                drop(stream);
                continue;
            }
            let _ = stream.set_nodelay(nodelay);
            sh.net.connections.fetch_add(1, Ordering::SeqCst);
            let conn = Conn {
                inner: stream,
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
