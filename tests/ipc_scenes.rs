//! Rigid IPC (004, `method = "ipc"`) on the paper's scenes at h = 0.01 s. After
//! every step: zero triangle–triangle intersections between bodies (exact
//! predicates, `ipc::intersect`), a finite state, and the total energy
//! (kinetic + gravitational) never above its initial value plus the work of the
//! applied forces (none here) plus 1e-9 J·(1 + |E₀|) of rounding: the implicit-Euler
//! step and the barrier are dissipative or conservative, never a source.

mod common;

use common::load_str;
use rtphys::ipc::intersect::triangles_meet;
use rtphys::ipc::mesh::SurfaceMesh;
use rtphys::math::Vec3;
use rtphys::model::{Method, Model};
use rtphys::pipeline::ipc::tessellate::body_mesh;
use rtphys::{Data, Pipeline};

/// The bodies' meshes as IPC uses them.
fn meshes(model: &Model) -> Vec<SurfaceMesh> {
    let half = match model.opt.method {
        Method::Ipc(p) => p.plane_half_width,
        _ => 100.0,
    };
    (0..model.nbody())
        .map(|b| body_mesh(model, b, half))
        .collect()
}

/// Pairs of triangles of different bodies that meet (exact test).
fn intersections(model: &Model, data: &Data, meshes: &[SurfaceMesh]) -> usize {
    let world: Vec<Vec<[Vec3; 3]>> = meshes
        .iter()
        .enumerate()
        .map(|(b, m)| {
            let pose = data.state[b].pose();
            m.faces
                .iter()
                .map(|f| f.map(|i| (pose * nalgebra::Point3::from(m.vertices[i as usize])).coords))
                .collect()
        })
        .collect();
    let bx = |t: &[Vec3; 3]| (t[0].inf(&t[1]).inf(&t[2]), t[0].sup(&t[1]).sup(&t[2]));
    let mut n = 0;
    for a in 0..world.len() {
        for b in a + 1..world.len() {
            if model.bodies[a].mass == 0.0 && model.bodies[b].mass == 0.0 {
                continue;
            }
            for ta in &world[a] {
                let (la, ha) = bx(ta);
                for tb in &world[b] {
                    let (lb, hb) = bx(tb);
                    if (0..3).any(|k| la[k] > hb[k] || lb[k] > ha[k]) {
                        continue;
                    }
                    if triangles_meet(ta, tb) {
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

fn energy(model: &Model, data: &Data) -> f64 {
    data.kinetic_energy(model) + data.potential_energy(model)
}

/// Steps `steps` times with the per-step checks of the module doc; calls `each`
/// after every step.
fn run_checked(
    model: &Model,
    data: &mut Data,
    steps: usize,
    mut each: impl FnMut(&Data),
) -> Pipeline {
    let m = meshes(model);
    let mut pipe = Pipeline::new(model);
    let e0 = energy(model, data);
    assert_eq!(
        intersections(model, data, &m),
        0,
        "the scene starts intersecting"
    );
    for s in 0..steps {
        pipe.step(model, data);
        assert!(
            data.state.iter().all(|b| b.is_finite()),
            "step {s}: non-finite state"
        );
        assert_eq!(data.stats.quarantined, 0, "step {s}: quarantined");
        let k = intersections(model, data, &m);
        assert_eq!(k, 0, "step {s}: {k} intersecting triangle pairs");
        let e = energy(model, data);
        assert!(
            e <= e0 + 1e-9 * (1.0 + e0.abs()),
            "step {s}: energy {e} above the initial {e0}"
        );
        each(data);
    }
    pipe
}

const HEAD: &str = r#"
[world]
dt = 0.01
method = "ipc"
"#;

fn floor() -> &'static str {
    r#"
[[body]]
name = "floor"
static = true
shape = { type = "plane" }
"#
}

/// Free flight: a cube thrown upward with no contact follows the parabola of
/// implicit Euler exactly (x_n = x₀ + n h v₀ + h² g n(n+1)/2, to 1e-9 m), and a
/// spin about a principal axis turns by the implicit-Euler angle of
/// `ipc::potential` per step: φ_{n+1} = atan(sin α / (2 − cos α)), α = ω_n h.
#[test]
fn free_flight_and_spin_through_the_stepper() {
    let text = format!(
        "{HEAD}gravity = [0.0, 0.0, -9.81]\n[[body]]\nname = \"c\"\nmass = 2.0\nshape = {{ type = \"box\", half_extents = [0.1, 0.2, 0.3] }}\nposition = [0.0, 0.0, 5.0]\nvelocity = [1.0, 0.0, 3.0]\nangular_velocity = [0.0, 0.0, 4.0]\n"
    );
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let (h, g) = (0.01, -9.81);
    let mut w = 4.0f64;
    let mut angle = 0.0f64;
    let mut n = 0usize;
    run_checked(&model, &mut data, 100, |d| {
        n += 1;
        let nf = n as f64;
        let z = 5.0 + nf * h * 3.0 + h * h * g * nf * (nf + 1.0) / 2.0;
        let x = nf * h;
        let s = d.state[0];
        assert!(
            (s.x.z - z).abs() < 1e-9 && (s.x.x - x).abs() < 1e-9,
            "step {n}: {:?} vs ({x}, {z})",
            s.x
        );
        let alpha = w * h;
        let phi = (alpha.sin() / (2.0 - alpha.cos())).atan();
        angle += phi;
        w = phi / h;
        let (axis_angle, got) = (s.q.angle(), s.q.axis().map(|a| a.z).unwrap_or(1.0));
        let expect = angle.rem_euclid(2.0 * std::f64::consts::PI);
        let signed = if got >= 0.0 {
            axis_angle
        } else {
            2.0 * std::f64::consts::PI - axis_angle
        };
        assert!(
            (signed - expect).abs() < 1e-8,
            "step {n}: angle {signed} vs {expect}"
        );
    });
}

/// A unit cube dropped 0.5 m onto the tessellated floor lands and rests with its
/// bottom face at a gap in (0, d̂] above the floor, at rest.
#[test]
fn cube_lands_and_rests_within_dhat() {
    let text = format!(
        "{HEAD}{}\n[[body]]\nname = \"c\"\nmass = 1.0\nshape = {{ type = \"box\", half_extents = [0.5, 0.5, 0.5] }}\nposition = [0.0, 0.0, 1.0]\n",
        floor()
    );
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let mut iters = 0;
    run_checked(&model, &mut data, 150, |d| {
        iters += d.stats.solver_iterations
    });
    let gap = data.state[1].x.z - 0.5;
    println!(
        "gap {gap:.3e} m, v {:.2e}, Newton iterations {iters} in 150 steps",
        data.state[1].v.norm()
    );
    assert!(gap > 0.0 && gap <= 1e-3, "gap {gap}");
    assert!(data.state[1].v.norm() < 1e-3);
}
