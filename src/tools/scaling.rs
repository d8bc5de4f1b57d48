//! The scaling scenes shared with the peer (`shared/peers/bench_scaling.py
//! --write-scenes DIR`): `grid_N` (N resting 0.1 m boxes on a square grid) and
//! `pile_N` (N mixed boxes, spheres and capsules dropped in 10 layers into a walled
//! container sized for N), read from the peer's JSON and written as rtphys scene
//! TOML, so that both engines step exactly the same objects, sizes, masses and poses.
//!
//! JSON: `{"objects": [{"kind": "box"|"sphere"|"capsule", "size": [...], "mass": kg,
//! "pos": [x, y, z], "quat": [w, x, y, z]}, ...], "walls": [[centre, half], ...],
//! "mu": μ, "gravity": [gx, gy, gz], "dt": s}`. Sizes follow MuJoCo: a box's half
//! extents, a sphere's radius, a capsule's radius and half length (along z, as
//! rtphys's capsule). The floor is the plane z = 0, as MuJoCo's plane. The contact
//! gains are those of the reference piles (`experiments::pile_scene`, bench kind).

use anyhow::{bail, Context};
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneJson {
    objects: Vec<ObjectJson>,
    #[serde(default)]
    walls: Vec<([f64; 3], [f64; 3])>,
    mu: f64,
    gravity: [f64; 3],
    dt: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectJson {
    kind: String,
    size: Vec<f64>,
    mass: f64,
    pos: [f64; 3],
    quat: [f64; 4],
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn fmt3(v: [f64; 3]) -> String {
    format!("[{:?}, {:?}, {:?}]", v[0], v[1], v[2])
}

/// The rtphys scene (TOML) of a scaling scene given as the peer's JSON `text`;
/// `origin` names the file in errors (which also name the key, e.g.
/// `objects[3].size`).
pub fn scene_from_json(text: &str, origin: &str) -> anyhow::Result<String> {
    let s: SceneJson = serde_json::from_str(text).with_context(|| {
        format!("{origin}: not a scaling scene (bench_scaling.py --write-scenes)")
    })?;
    if !(s.mu.is_finite() && s.mu >= 0.0) {
        bail!("{origin}: mu: must be finite and ≥ 0, got {}", s.mu);
    }
    if !finite(&s.gravity) {
        bail!("{origin}: gravity: must be finite, got {:?}", s.gravity);
    }
    if !(s.dt.is_finite() && s.dt > 0.0) {
        bail!("{origin}: dt: must be finite and > 0, got {}", s.dt);
    }
    if s.objects.is_empty() {
        bail!("{origin}: objects: empty");
    }
    let mu = s.mu;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Converted from {origin} by `rtphys scene from-json`.\n\n\
         [world]\ngravity = {}\ndt = {:?}\nintegrator = \"semi_implicit_euler\"\nmethod = \"penalty\"\n\n\
         [penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\n\n\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {mu:?} }}\n",
        fmt3(s.gravity),
        s.dt
    );
    for (i, (c, half)) in s.walls.iter().enumerate() {
        if !finite(c) || !finite(half) || half.iter().any(|&h| h <= 0.0) {
            bail!("{origin}: walls[{i}]: needs a finite centre and positive half extents, got {c:?}, {half:?}");
        }
        let _ = writeln!(
            out,
            "[[body]]\nname = \"wall{i}\"\nstatic = true\nshape = {{ type = \"box\", half_extents = {} }}\nposition = {}\nmaterial = {{ mu = {mu:?} }}\n",
            fmt3(*half),
            fmt3(*c)
        );
    }
    for (i, o) in s.objects.iter().enumerate() {
        let key = |k: &str| format!("{origin}: objects[{i}].{k}");
        if !finite(&o.size) || o.size.iter().any(|&x| x <= 0.0) {
            bail!("{}: must be finite and > 0, got {:?}", key("size"), o.size);
        }
        let shape = match (o.kind.as_str(), o.size.as_slice()) {
            ("box", [x, y, z]) => format!(
                "{{ type = \"box\", half_extents = {} }}",
                fmt3([*x, *y, *z])
            ),
            ("sphere", [r]) => format!("{{ type = \"sphere\", radius = {r:?} }}"),
            ("capsule", [r, hl]) => {
                format!("{{ type = \"capsule\", radius = {r:?}, half_length = {hl:?} }}")
            }
            ("box" | "sphere" | "capsule", sz) => bail!(
                "{}: a {} takes {} numbers, got {}",
                key("size"),
                o.kind,
                match o.kind.as_str() {
                    "box" => "3 (half extents)",
                    "sphere" => "1 (radius)",
                    _ => "2 (radius, half length)",
                },
                sz.len()
            ),
            (other, _) => bail!(
                "{}: unknown kind '{other}' (box, sphere, capsule)",
                key("kind")
            ),
        };
        if !(o.mass.is_finite() && o.mass > 0.0) {
            bail!("{}: must be finite and > 0, got {}", key("mass"), o.mass);
        }
        if !finite(&o.pos) {
            bail!("{}: must be finite, got {:?}", key("pos"), o.pos);
        }
        let qn = o.quat.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(qn.is_finite() && qn > 0.0) {
            bail!(
                "{}: must be a finite non-zero quaternion [w, x, y, z], got {:?}",
                key("quat"),
                o.quat
            );
        }
        let q = o.quat;
        let _ = writeln!(
            out,
            "[[body]]\nname = \"obj{i}\"\nshape = {shape}\nmass = {:?}\nposition = {}\norientation = [{:?}, {:?}, {:?}, {:?}]\nmaterial = {{ mu = {mu:?} }}\n",
            o.mass,
            fmt3(o.pos),
            q[0],
            q[1],
            q[2],
            q[3]
        );
    }
    Ok(out)
}

/// [`scene_from_json`] of a file.
pub fn scene_from_json_file(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read scaling scene {}", path.display()))?;
    scene_from_json(&text, &path.display().to_string())
}

/// Number of objects of a scaling scene name `grid_N` / `pile_N`, if it is one.
pub fn scaling_name(name: &str) -> Option<(&str, usize)> {
    let (kind, n) = name.split_once('_')?;
    let n: usize = n.parse().ok()?;
    matches!(kind, "grid" | "pile").then_some((kind, n))
}

/// Where the committed scaling scenes live (repository-relative).
pub const SCALING_DIR: &str = "benches/scenes/scaling";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::model::scene::load_scene_str;
    use crate::model::{BodyKind, Model};

    fn load(text: &str) -> Model {
        let toml = scene_from_json(text, "t.json").unwrap();
        load_scene_str(&toml, "<t>", Path::new(".")).unwrap()
    }

    const ONE: &str = r#"{"objects": [
        {"kind": "box", "size": [0.05, 0.04, 0.03], "mass": 2.0, "pos": [0.1, 0.2, 0.05], "quat": [1, 0, 0, 0]},
        {"kind": "sphere", "size": [0.04], "mass": 0.3, "pos": [0, 0, 0.5], "quat": [0, 0, 0, 1]},
        {"kind": "capsule", "size": [0.03, 0.04], "mass": 0.2, "pos": [0, 0, 0.9], "quat": [0.5, 0.5, 0.5, 0.5]}],
        "walls": [[[1, 0, 0.5], [0.025, 1, 0.5]]], "mu": 0.8, "gravity": [0, 0, -9.81], "dt": 0.001}"#;

    #[test]
    fn objects_keep_their_shape_mass_and_pose() {
        let m = load(ONE);
        // floor + 1 wall + 3 objects.
        assert_eq!(m.nbody(), 5);
        let free: Vec<_> = m
            .bodies
            .iter()
            .filter(|b| b.kind == BodyKind::Free)
            .collect();
        assert_eq!(free.len(), 3);
        assert_eq!(free[0].mass, 2.0);
        assert_eq!(free[1].mass, 0.3);
        assert_eq!(free[2].mass, 0.2);
        // A solid box's inertia about x: m (b² + c²)/3 with half extents (a, b, c).
        let ixx = 2.0 * (0.04f64.powi(2) + 0.03f64.powi(2)) / 3.0;
        assert!((free[0].inertia[(0, 0)] - ixx).abs() < 1e-12 * ixx);
        assert_eq!(m.opt.dt, 0.001);
        assert_eq!(m.opt.gravity, Vec3::new(0.0, 0.0, -9.81));
        let data = crate::data::Data::new(&m);
        let b = m.body_id("obj1").unwrap();
        assert!((data.state[b].x - Vec3::new(0.0, 0.0, 0.5)).norm() < 1e-12);
        // quat [0, 0, 0, 1]: half a turn about z.
        assert!((data.state[b].q.angle() - std::f64::consts::PI).abs() < 1e-12);
    }

    #[test]
    fn bad_json_names_the_key() {
        let bad_kind = ONE.replace("\"sphere\"", "\"cone\"");
        let e = scene_from_json(&bad_kind, "t.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.json: objects[1].kind") && e.contains("cone"),
            "{e}"
        );
        let bad_size = ONE.replace("[0.05, 0.04, 0.03]", "[0.05, 0.04]");
        let e = scene_from_json(&bad_size, "t.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("objects[0].size") && e.contains("3"), "{e}");
        let bad_mass = ONE.replace("\"mass\": 0.3", "\"mass\": -1");
        let e = scene_from_json(&bad_mass, "t.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("objects[1].mass"), "{e}");
        let bad_quat = ONE.replace("[0, 0, 0, 1]", "[0, 0, 0, 0]");
        let e = scene_from_json(&bad_quat, "t.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("objects[1].quat"), "{e}");
        let e = format!(
            "{:#}",
            scene_from_json("{\"objects\": 3}", "t.json").unwrap_err()
        );
        assert!(e.contains("t.json"), "{e}");
        assert_eq!(scaling_name("grid_1000"), Some(("grid", 1000)));
        assert_eq!(scaling_name("pile20"), None);
    }

    #[test]
    fn committed_scenes_load() {
        for name in ["grid_100", "pile_100"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(SCALING_DIR)
                .join(format!("{name}.json"));
            let toml = scene_from_json_file(&path).unwrap();
            let m = load_scene_str(&toml, name, Path::new(".")).unwrap();
            let free = m.bodies.iter().filter(|b| b.kind == BodyKind::Free).count();
            assert_eq!(free, 100, "{name}");
        }
    }
}
