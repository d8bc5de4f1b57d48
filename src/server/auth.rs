//! Bearer-token authentication by role (`[auth]` in config/server.toml): every
//! handler of the Simulation service asks [`Auth::check`] for the role it needs.
//! No token configured = off. Health and reflection are not protected.

use crate::config::Config;
use anyhow::Context as _;
use std::collections::HashMap;
use tonic::Status;

/// Roles, each including the ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// GetWorld, GetState, GetStats, StreamState.
    Observer,
    /// + ApplyWrench, CommandJoints, ClearWrench, Control, Step, Pause, Resume.
    Controller,
    /// + SetMode, Reset, snapshots, LoadScene.
    Admin,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Observer => "observer",
            Role::Controller => "controller",
            Role::Admin => "admin",
        }
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct TokensFile {
    #[serde(default)]
    observer: Vec<String>,
    #[serde(default)]
    controller: Vec<String>,
    #[serde(default)]
    admin: Vec<String>,
}

/// The configured tokens.
#[derive(Clone, Debug, Default)]
pub struct Auth {
    tokens: HashMap<String, Role>,
}

impl Auth {
    /// Tokens from `auth.tokens_file` and the `RTPHYS_TOKENS_*` environment.
    pub fn from_config(cfg: &Config) -> anyhow::Result<Auth> {
        let mut t = TokensFile::default();
        if !cfg.auth.tokens_file.is_empty() {
            let f = &cfg.auth.tokens_file;
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("auth.tokens_file: cannot read {f}"))?;
            t = toml::from_str(&text)
                .map_err(|e| anyhow::anyhow!("auth.tokens_file: {f}: {}", e.message()))?;
        }
        let env = |k: &str| {
            std::env::var(k)
                .map(|v| {
                    v.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };
        t.observer.extend(env("RTPHYS_TOKENS_OBSERVER"));
        t.controller.extend(env("RTPHYS_TOKENS_CONTROLLER"));
        t.admin.extend(env("RTPHYS_TOKENS_ADMIN"));
        Auth::from_lists(&t.observer, &t.controller, &t.admin)
    }

    /// Tokens given directly (tests, embedding).
    pub fn from_lists(
        observer: &[String],
        controller: &[String],
        admin: &[String],
    ) -> anyhow::Result<Auth> {
        let mut tokens = HashMap::new();
        for (list, role) in [
            (observer, Role::Observer),
            (controller, Role::Controller),
            (admin, Role::Admin),
        ] {
            for tok in list {
                if tok.len() < 16 || !tok.bytes().all(|b| b.is_ascii_graphic()) {
                    anyhow::bail!(
                        "auth: a {} token must be at least 16 printable ASCII characters",
                        role.name()
                    );
                }
                if let Some(r) = tokens.insert(tok.clone(), role) {
                    if r != role {
                        anyhow::bail!("auth: one token is given for two roles");
                    }
                }
            }
        }
        Ok(Auth { tokens })
    }

    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// UNAUTHENTICATED without a known token, PERMISSION_DENIED below `need`.
    pub fn check<T>(&self, req: &tonic::Request<T>, need: Role) -> Result<(), Status> {
        if self.tokens.is_empty() {
            return Ok(());
        }
        let tok = req
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(|| {
                Status::unauthenticated("authorization: missing \"Bearer <token>\" metadata")
            })?;
        // Compare against every token without an early exit on the first byte.
        let mut found: Option<Role> = None;
        for (t, r) in &self.tokens {
            if ct_eq(t.as_bytes(), tok.as_bytes()) {
                found = Some(*r);
            }
        }
        let role = found.ok_or_else(|| Status::unauthenticated("authorization: unknown token"))?;
        if role < need {
            return Err(Status::permission_denied(format!(
                "this call needs the {} role; the token is {}",
                need.name(),
                role.name()
            )));
        }
        Ok(())
    }
}

fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Refuse to serve without tokens or without TLS on an address that is not loopback.
pub fn check_listen(cfg: &Config, auth: &Auth, addr: &std::net::SocketAddr) -> anyhow::Result<()> {
    if addr.ip().is_loopback() || cfg.auth.allow_unauthenticated_remote {
        return Ok(());
    }
    if !auth.enabled() {
        anyhow::bail!(
            "refusing to serve on {addr} (not loopback) without authentication: configure \
             auth.tokens_file or RTPHYS_TOKENS_*, or set auth.allow_unauthenticated_remote = true"
        );
    }
    if cfg.tls.cert_file.is_empty() {
        anyhow::bail!(
            "refusing to serve on {addr} (not loopback) without TLS (tokens would travel in \
             clear text): configure tls.cert_file and tls.key_file, or set \
             auth.allow_unauthenticated_remote = true"
        );
    }
    Ok(())
}

/// The server's TLS settings from `[tls]`, if any.
pub fn server_tls(cfg: &Config) -> anyhow::Result<Option<tonic::transport::ServerTlsConfig>> {
    let t = &cfg.tls;
    if t.cert_file.is_empty() {
        if !t.key_file.is_empty() || !t.client_ca_file.is_empty() {
            anyhow::bail!("tls: key_file/client_ca_file given without tls.cert_file");
        }
        return Ok(None);
    }
    let read =
        |k: &str, f: &str| std::fs::read(f).with_context(|| format!("tls.{k}: cannot read {f}"));
    let cert = read("cert_file", &t.cert_file)?;
    let key = read("key_file", &t.key_file)?;
    let mut c = tonic::transport::ServerTlsConfig::new()
        .identity(tonic::transport::Identity::from_pem(cert, key));
    if !t.client_ca_file.is_empty() {
        let ca = read("client_ca_file", &t.client_ca_file)?;
        c = c.client_ca_root(tonic::transport::Certificate::from_pem(ca));
    }
    Ok(Some(c))
}
