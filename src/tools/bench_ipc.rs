//! `rtphys bench ipc_compare`: 004's comparison done with our methods. The IPC
//! scenes (the five-cube stack with 1 m gaps, a cube at 1,000 m/s against a wall,
//! the 26.565° incline at μ = 0.5) run under `ipc` (as written) and under `lcp` and
//! `penalty` (the scene with `--method` switched: its boxes, its dt = 0.01 s), and
//! each run reports seconds per simulated second, Newton iterations per step (ipc),
//! the most triangle pairs of different bodies that meet at the end of any step
//! (exact test, `ipc::intersect`, on the bodies' surface meshes) and whether the
//! fast cube tunnelled (ended past the wall).

use crate::ipc::intersect::count_body_intersections;
use crate::math::Vec3;
use crate::model::scene::{load_scene_file, load_scene_str, MethodName};
use crate::model::Model;
use crate::pipeline::ipc::tessellate::body_mesh;
use crate::{Data, Pipeline};
use serde_json::{json, Value};
use std::time::Instant;

/// A cube of 0.1 m half-size at 1,000 m/s toward a 0.1 m thick static wall 5 m away
/// (10 m per step at h = 0.01 s), no gravity.
const FAST_CUBE: &str = r#"
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.01
method = "ipc"
[[body]]
name = "wall"
static = true
shape = { type = "box", half_extents = [0.05, 1.0, 1.0] }
position = [0.0, 0.0, 0.0]
[[body]]
name = "cube"
mass = 1.0
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
position = [-5.0, 0.0, 0.0]
velocity = [1000.0, 0.0, 0.0]
"#;

fn incline() -> String {
    let th = 26.565f64.to_radians();
    let c = Vec3::new(th.sin(), 0.0, th.cos()) * (0.5 + 0.1 + 9.8e-4);
    let rot = format!("rpy = [0.0, {th}, 0.0]\nmaterial = {{ mu = 0.5 }}");
    format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.01\nmethod = \"ipc\"\n\
         [[body]]\nname = \"slab\"\nstatic = true\nshape = {{ type = \"box\", half_extents = [5.0, 2.0, 0.5] }}\nposition = [0.0, 0.0, 0.0]\n{rot}\n\
         [[body]]\nname = \"cube\"\nmass = 1.0\nshape = {{ type = \"box\", half_extents = [0.1, 0.1, 0.1] }}\nposition = [{}, 0.0, {}]\n{rot}\n",
        c.x, c.z
    )
}

fn run(name: &str, method: &str, model: &Model, steps: usize) -> Value {
    let meshes: Vec<_> = (0..model.nbody())
        .map(|b| body_mesh(model, b, 100.0))
        .collect();
    let mut data = Data::new(model);
    let mut pipe = Pipeline::new(model);
    let (mut newton, mut worst, mut compute) = (0usize, 0usize, 0.0f64);
    for _ in 0..steps {
        let t = Instant::now();
        pipe.step(model, &mut data);
        compute += t.elapsed().as_secs_f64();
        newton += data.stats.solver_iterations;
        worst = worst.max(count_body_intersections(model, &data, &meshes));
    }
    let last = data.state.len() - 1;
    let tunnelled = name == "fast_cube" && data.state[last].x.x > 0.0;
    let finite = data.state.iter().all(|s| s.is_finite());
    let sim = steps as f64 * model.opt.dt;
    json!({
        "scene": name, "method": method, "steps": steps,
        "s_per_sim_s": compute / sim,
        "newton_per_step": if method == "ipc" { json!(newton as f64 / steps as f64) } else { Value::Null },
        "max_intersecting_pairs": worst, "tunnelled": tunnelled, "finite": finite,
    })
}

pub fn ipc_compare(quick: bool) -> anyhow::Result<Value> {
    let stack = load_scene_file(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenes/ipc_stack5.toml"),
    )?;
    let dir = std::path::Path::new(".");
    let fast = load_scene_str(FAST_CUBE, "fast_cube", dir)?;
    let incl = load_scene_str(&incline(), "incline", dir)?;
    let full = [
        ("stack5", stack, 300),
        ("fast_cube", fast, 20),
        ("incline_mu_0_5", incl, 200),
    ];
    let mut rows = Vec::new();
    for (name, model, steps) in full {
        let steps = if quick { steps.min(20) } else { steps };
        rows.push(run(name, "ipc", &model, steps));
        for (label, m) in [("lcp", MethodName::Lcp), ("penalty", MethodName::Penalty)] {
            match crate::run::apply_overrides(&model, Some(m), None, None) {
                Ok(mm) => rows.push(run(name, label, &mm, steps)),
                Err(e) => {
                    rows.push(json!({"scene": name, "method": label, "refused": e.to_string()}))
                }
            }
        }
    }
    for r in &rows {
        eprintln!("{r}");
    }
    Ok(json!({ "ipc_compare": rows }))
}
