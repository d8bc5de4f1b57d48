//! Files read on behalf of a client (`LoadScene`): confined to `server.scene_roots`.
//!
//! A path is canonicalized (symlinks and `..` resolved) and must then lie under one of
//! the canonicalized roots; it must be a regular file (no device, FIFO, socket or
//! directory: checked on the metadata before anything is opened, and again on the
//! opened file, which is opened with `O_NONBLOCK`) of at most `server.max_scene_bytes`
//! bytes, and is read with that bound. The URDFs and meshes a scene names are checked
//! the same way before the scene loader opens them. Refusals say "outside the scene
//! roots" and never contain the file's content.
//!
//! Not covered: a file swapped for a symlink between this check and the loader's own
//! read of a URDF or mesh (the roots must not be writable by untrusted users).

use crate::config::Config;
use crate::runtime::SimError;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The canonical scene roots and the size bound.
#[derive(Clone, Debug)]
pub struct SceneRoots {
    roots: Vec<PathBuf>,
    /// As configured (for messages).
    shown: Vec<String>,
    max_bytes: u64,
}

impl SceneRoots {
    /// Roots that do not exist are left out (logged): nothing under them can be read.
    pub fn new(cfg: &Config) -> SceneRoots {
        let mut roots = Vec::new();
        for r in &cfg.server.scene_roots {
            match std::fs::canonicalize(r) {
                Ok(p) if p.is_dir() => roots.push(p),
                Ok(p) => tracing::warn!("server.scene_roots: {} is not a directory", p.display()),
                Err(e) => tracing::warn!("server.scene_roots: {r:?} not usable: {e}"),
            }
        }
        SceneRoots {
            roots,
            shown: cfg.server.scene_roots.clone(),
            max_bytes: cfg.server.max_scene_bytes,
        }
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The directory relative paths of an inline scene resolve against.
    pub fn first(&self) -> Option<&Path> {
        self.roots.first().map(PathBuf::as_path)
    }

    fn outside(&self, field: &str, p: &str) -> SimError {
        SimError::invalid(
            field,
            format!(
                "{p:?} is outside the scene roots (server.scene_roots = {:?}) or does not exist",
                self.shown
            ),
        )
    }

    /// Canonical path of `p` (relative: to `base`, else to the working directory and
    /// then to each root), if it is a regular file inside a root within the size bound.
    pub fn check(&self, p: &str, base: Option<&Path>, field: &str) -> Result<PathBuf, SimError> {
        if p.is_empty() || p.contains('\0') {
            return Err(SimError::invalid(field, "empty or contains NUL"));
        }
        let path = Path::new(p);
        let mut candidates: Vec<PathBuf> = Vec::new();
        if path.is_absolute() {
            candidates.push(path.to_path_buf());
        } else if let Some(b) = base {
            candidates.push(b.join(path));
        } else {
            candidates.push(path.to_path_buf());
            candidates.extend(self.roots.iter().map(|r| r.join(path)));
        }
        let canon = candidates
            .iter()
            .find_map(|c| std::fs::canonicalize(c).ok())
            .ok_or_else(|| self.outside(field, p))?;
        if !self.roots.iter().any(|r| canon.starts_with(r)) {
            return Err(self.outside(field, p));
        }
        // The metadata of the final target (canonical: no symlink left), before opening.
        let md = std::fs::symlink_metadata(&canon).map_err(|_| self.outside(field, p))?;
        if !md.file_type().is_file() {
            return Err(SimError::invalid(
                field,
                format!("{p:?} is not a regular file (devices, FIFOs, sockets and directories are refused)"),
            ));
        }
        if md.len() > self.max_bytes {
            return Err(SimError::invalid(
                field,
                format!(
                    "{p:?} has {} bytes; at most server.max_scene_bytes = {} are read",
                    md.len(),
                    self.max_bytes
                ),
            ));
        }
        Ok(canon)
    }

    /// Read a file that [`check`](Self::check) accepted: opened non-blocking, checked
    /// again on the open descriptor, read with the size bound, UTF-8.
    pub fn read(&self, canon: &Path, shown: &str, field: &str) -> Result<String, SimError> {
        let mut opts = std::fs::OpenOptions::new();
        opts.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            opts.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
        }
        let f = opts.open(canon).map_err(|_| self.outside(field, shown))?;
        let md = f.metadata().map_err(|_| self.outside(field, shown))?;
        if !md.file_type().is_file() {
            return Err(SimError::invalid(
                field,
                format!("{shown:?} is not a regular file"),
            ));
        }
        let mut buf = Vec::with_capacity(md.len().min(self.max_bytes) as usize);
        f.take(self.max_bytes + 1)
            .read_to_end(&mut buf)
            .map_err(|e| SimError::invalid(field, format!("{shown:?}: cannot read: {e}")))?;
        if buf.len() as u64 > self.max_bytes {
            return Err(SimError::invalid(
                field,
                format!(
                    "{shown:?} is larger than server.max_scene_bytes = {}",
                    self.max_bytes
                ),
            ));
        }
        String::from_utf8(buf)
            .map_err(|_| SimError::invalid(field, format!("{shown:?} is not UTF-8 text")))
    }

    /// Check every file a scene names (robot URDFs, mesh shapes, and the meshes those
    /// URDFs name) against the roots; `dir` is the scene's directory. Errors name the
    /// scene key (`robot[0].urdf`) and never contain file content.
    pub fn check_references(&self, text: &str, dir: &Path, field: &str) -> Result<(), SimError> {
        // A scene that does not parse is left to the loader (its error names the line).
        let Ok(doc) = toml::from_str::<toml::Table>(text) else {
            return Ok(());
        };
        let arr = |k: &str| {
            doc.get(k)
                .and_then(|v| v.as_array())
                .cloned()
                .unwrap_or_default()
        };
        for (i, r) in arr("robot").iter().enumerate() {
            let Some(u) = r.get("urdf").and_then(|v| v.as_str()) else {
                continue;
            };
            let key = format!("{field}: robot[{i}].urdf");
            let canon = self.check(u, Some(dir), &key)?;
            let urdf = self.read(&canon, u, &key)?;
            let udir = canon.parent().unwrap_or(dir).to_path_buf();
            self.check_urdf_meshes(&urdf, &udir, &key)?;
        }
        for (i, b) in arr("body").iter().enumerate() {
            let mut shapes: Vec<(String, &toml::Value)> = Vec::new();
            if let Some(s) = b.get("shape") {
                shapes.push(("shape".into(), s));
            }
            if let Some(gs) = b.get("geom").and_then(|v| v.as_array()) {
                for (g, geom) in gs.iter().enumerate() {
                    if let Some(s) = geom.get("shape") {
                        shapes.push((format!("geom[{g}].shape"), s));
                    }
                }
            }
            for (k, s) in shapes {
                if let Some(f) = s.get("file").and_then(|v| v.as_str()) {
                    self.check(f, Some(dir), &format!("{field}: body[{i}].{k}.file"))?;
                }
            }
        }
        Ok(())
    }

    fn check_urdf_meshes(&self, urdf: &str, dir: &Path, key: &str) -> Result<(), SimError> {
        // A URDF that does not parse is left to the loader.
        let Ok(doc) = roxmltree::Document::parse(urdf) else {
            return Ok(());
        };
        for n in doc.descendants().filter(|n| n.has_tag_name("mesh")) {
            let Some(f) = n.attribute("filename") else {
                continue;
            };
            let line = doc.text_pos_at(n.range().start).row;
            let k = format!("{key}: line {line}: mesh filename");
            if f.starts_with("package://") {
                return Err(SimError::invalid(
                    k,
                    format!("{f:?}: package:// paths are not accepted over the API; use a path relative to the URDF"),
                ));
            }
            let p = f.strip_prefix("file://").unwrap_or(f);
            self.check(p, Some(dir), &k)?;
        }
        Ok(())
    }
}
