//! Visual recordings: body poses per frame at a chosen rate plus what the viewer
//! needs to draw them, in one file the web page opens and scrubs (docs/RECORDING.md).
//! Not the command log of `runtime::record` (inputs, for bit-exact replay): a
//! visual recording is for looking at a run, and its poses are f32.
//!
//! Layout (little-endian):
//! ```text
//! magic    8 bytes  "RTPHYSVR"
//! version  u32      1
//! hlen     u32      length of the header JSON
//! header   hlen bytes of UTF-8 JSON: {"world": <the viewer's /api/world object>,
//!                   "bodies": N, "frame_rate_hz": r, "decimation": d, "dt": s}
//! frames   until the end of the file, each 16 + 28 N bytes:
//!          tick u64, time f64, then per body (id order) x y z qw qx qy qz as f32
//! ```
//! Frames have a fixed size, so frame k starts at 16 + hlen + k (16 + 28 N): the
//! page seeks without an index, and a truncated last frame (a run killed while
//! writing) is ignored by the readers.

use crate::collision::shape::Shape;
use crate::data::Data;
use crate::model::{BodyKind, Model};
use anyhow::{bail, Context};
use serde_json::{json, Value};
use std::io::Write;

/// The file's first 8 bytes.
pub const MAGIC: &[u8; 8] = b"RTPHYSVR";
/// Format version; readers refuse other versions.
pub const VERSION: u32 = 1;
/// Bytes of one frame's fixed part (tick u64 + time f64).
pub const FRAME_HEAD: usize = 16;
/// Bytes per body per frame (7 f32).
pub const POSE_BYTES: usize = 28;

fn pose_json(p: &crate::math::Pose) -> Value {
    let t = p.translation.vector;
    let q = p.rotation.quaternion();
    json!([t.x, t.y, t.z, q.w, q.i, q.j, q.k])
}

/// Every geom's shape in its body frame (the viewer's `geoms` list).
pub fn geoms_json(m: &Model) -> Vec<Value> {
    m.geoms
        .iter()
        .map(|g| {
            let shape = match &g.shape {
                Shape::Plane => json!({"type": "plane"}),
                Shape::Sphere { radius } => json!({"type": "sphere", "radius": radius}),
                Shape::Box { half, .. } => json!({"type": "box", "half": [half.x, half.y, half.z]}),
                Shape::Capsule {
                    radius,
                    half_length,
                } => json!({"type": "capsule", "radius": radius, "half_length": half_length}),
                Shape::Cylinder {
                    radius,
                    half_length,
                } => json!({"type": "cylinder", "radius": radius, "half_length": half_length}),
                Shape::Polytope(p) => json!({
                    "type": "polytope",
                    "vertices": p.vertices.iter().flat_map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>(),
                    "faces": p.faces.iter().map(|f| f.vertices.clone()).collect::<Vec<_>>(),
                }),
            };
            json!({"body": g.body, "pose": pose_json(&g.x_bg), "shape": shape})
        })
        .collect()
}

/// Every body's id, name, kind, mass and initial pose (the viewer's `bodies` list).
pub fn bodies_json(m: &Model) -> Vec<Value> {
    m.bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let q = b.pose0.rotation;
            json!({
                "id": i, "name": b.name, "static": b.kind == BodyKind::Static, "mass": b.mass,
                "position": b.pose0.translation.vector.iter().copied().collect::<Vec<_>>(),
                "orientation": [q.w, q.i, q.j, q.k],
                "link": b.is_link(),
            })
        })
        .collect()
}

/// The world as the page draws it, from the model alone (a recording has no server).
pub fn world_json(m: &Model, scene: &str) -> Value {
    json!({
        "generation": 0,
        "scene": scene,
        "dt": m.opt.dt,
        "rate_hz": 1.0 / m.opt.dt,
        "method": m.opt.method.name(),
        "gravity": m.opt.gravity.iter().copied().collect::<Vec<_>>(),
        "paused": true,
        "version": env!("CARGO_PKG_VERSION"),
        "bodies": bodies_json(m),
        "geoms": geoms_json(m),
    })
}

/// Ticks between two frames for `rate_hz` frames per simulated second (≥ 1).
pub fn decimation(dt: f64, rate_hz: f64) -> u64 {
    if rate_hz.is_nan() || rate_hz <= 0.0 || !rate_hz.is_finite() {
        return 1;
    }
    ((1.0 / (dt * rate_hz)).round() as u64).max(1)
}

/// Writes a recording: the header at construction, then one frame per call.
pub struct RecordingWriter<W: Write> {
    w: W,
    bodies: usize,
    frames: u64,
    buf: Vec<u8>,
}

impl<W: Write> RecordingWriter<W> {
    /// Write the header of a recording of `m` (scene name `scene`) at `rate_hz`.
    pub fn new(mut w: W, m: &Model, scene: &str, rate_hz: f64) -> std::io::Result<Self> {
        let d = decimation(m.opt.dt, rate_hz);
        let header = json!({
            "world": world_json(m, scene),
            "bodies": m.bodies.len(),
            "frame_rate_hz": 1.0 / (m.opt.dt * d as f64),
            "decimation": d,
            "dt": m.opt.dt,
        })
        .to_string();
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&(header.len() as u32).to_le_bytes())?;
        w.write_all(header.as_bytes())?;
        let bodies = m.bodies.len();
        Ok(Self {
            w,
            bodies,
            frames: 0,
            buf: Vec::with_capacity(FRAME_HEAD + POSE_BYTES * bodies),
        })
    }

    /// Append the poses of `data` (tick, time, every body) as one frame.
    pub fn frame(&mut self, data: &Data) -> std::io::Result<()> {
        let poses = data.state.iter().map(|st| {
            let q = st.q.quaternion();
            [st.x.x, st.x.y, st.x.z, q.w, q.i, q.j, q.k]
        });
        self.frame_poses(data.tick, data.time, poses)
    }

    /// Append one frame from poses (x y z qw qx qy qz per body, id order); bodies
    /// beyond the header's count are ignored, missing ones written as NaN.
    pub fn frame_poses(
        &mut self,
        tick: u64,
        time: f64,
        poses: impl Iterator<Item = [f64; 7]>,
    ) -> std::io::Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(&tick.to_le_bytes());
        self.buf.extend_from_slice(&time.to_le_bytes());
        let mut n = 0;
        for p in poses.take(self.bodies) {
            for v in p {
                self.buf.extend_from_slice(&(v as f32).to_le_bytes());
            }
            n += 1;
        }
        for _ in n..self.bodies {
            for _ in 0..7 {
                self.buf.extend_from_slice(&f32::NAN.to_le_bytes());
            }
        }
        self.w.write_all(&self.buf)?;
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Flush and return the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// One decoded frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub tick: u64,
    pub time: f64,
    /// Per body: x y z qw qx qy qz.
    pub poses: Vec<[f32; 7]>,
}

/// A decoded recording.
#[derive(Debug, Clone)]
pub struct Recording {
    pub header: Value,
    pub bodies: usize,
    pub frames: Vec<Frame>,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Decode a recording (errors name what is wrong and where); a truncated last frame
/// is dropped.
pub fn read(bytes: &[u8]) -> anyhow::Result<Recording> {
    if bytes.get(..8) != Some(MAGIC.as_slice()) {
        bail!("not an rtphys recording: the first 8 bytes are not \"RTPHYSVR\"");
    }
    let version = u32_at(bytes, 8).context("truncated at the version (byte 8)")?;
    if version != VERSION {
        bail!("recording version {version} is not supported (this build reads version {VERSION})");
    }
    let hlen = u32_at(bytes, 12).context("truncated at the header length (byte 12)")? as usize;
    let text = bytes
        .get(16..16 + hlen)
        .context("truncated in the header JSON")?;
    let header: Value = serde_json::from_slice(text).context("header JSON")?;
    let bodies = header
        .get("bodies")
        .and_then(Value::as_u64)
        .context("header: \"bodies\" missing or not a count")? as usize;
    let size = FRAME_HEAD + POSE_BYTES * bodies;
    let frames = bytes[16 + hlen..]
        .chunks_exact(size)
        .map(|f| {
            let tick = u64::from_le_bytes(f[0..8].try_into().unwrap_or_default());
            let time = f64::from_le_bytes(f[8..16].try_into().unwrap_or_default());
            let poses = f[FRAME_HEAD..]
                .chunks_exact(POSE_BYTES)
                .map(|p| {
                    let mut v = [0f32; 7];
                    for (k, x) in v.iter_mut().enumerate() {
                        *x = f32::from_le_bytes(p[4 * k..4 * k + 4].try_into().unwrap_or_default());
                    }
                    v
                })
                .collect();
            Frame { tick, time, poses }
        })
        .collect();
    Ok(Recording {
        header,
        bodies,
        frames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recording of a falling box round-trips: header, frame count at the chosen
    /// rate, and every pose equal to the f64 state rounded to f32.
    #[test]
    fn round_trip() {
        let m = crate::model::scene::load_scene_file(std::path::Path::new(
            "config/scenes/box_on_plane.toml",
        ))
        .expect("scene");
        let mut d = Data::new(&m);
        let mut p = crate::Pipeline::new(&m);
        let mut w = RecordingWriter::new(Vec::new(), &m, "box", 100.0).expect("header");
        let dec = decimation(m.opt.dt, 100.0);
        let mut expect = Vec::new();
        w.frame(&d).expect("frame");
        expect.push(d.state.clone());
        for _ in 0..50 * dec {
            p.step(&m, &mut d);
            if d.tick.is_multiple_of(dec) {
                w.frame(&d).expect("frame");
                expect.push(d.state.clone());
            }
        }
        let bytes = w.finish().expect("flush");
        let r = read(&bytes).expect("read");
        assert_eq!(r.bodies, m.bodies.len());
        assert_eq!(r.frames.len(), 51);
        assert_eq!(r.frames[50].tick, 50 * dec);
        for (f, st) in r.frames.iter().zip(&expect) {
            for (pose, s) in f.poses.iter().zip(st) {
                assert_eq!(pose[2], s.x.z as f32);
                assert_eq!(pose[3], s.q.quaternion().w as f32);
            }
        }
        // A truncated last frame is dropped; a bad magic or version is refused.
        assert_eq!(
            read(&bytes[..bytes.len() - 3]).expect("read").frames.len(),
            50
        );
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert!(read(&bad).unwrap_err().to_string().contains("version 9"));
        assert!(read(b"nope").is_err());
    }
}
