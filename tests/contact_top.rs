//! A heavy top on a frictionless floor (docs/EXPERIMENTS.md, "Outside scenes,
//! session 37"; `benches/scripts/outside_probes_37.py top`).
//!
//! The top: a steel disc (radius R = 5 cm, half thickness 5 mm) whose centre sits
//! D = 5 cm above the centre C of a ball tip (radius 4 mm), one body, one density;
//! its body z is the symmetry axis e₃. On a frictionless floor the only horizontal
//! force is none, so the centre of mass keeps its horizontal place, and the floor's
//! vertical force acts through C (the ball's normal passes through its centre): C is
//! the pivot of a point-tip top at l from the centre of mass. With I₁ (transverse,
//! about the centre of mass) and I₃ (axial), tilt θ from the vertical, precession
//! rate Ω and spin ω₃ = e₃·ω, Lagrange's equation for θ (T = ½ m l² sin²θ θ̇² +
//! ½ I₁ (θ̇² + Ω² sin²θ) + ½ I₃ ω₃², V = m g l cos θ) at θ̇ = θ̈ = 0 is
//!
//!   I₁ cos θ Ω² − I₃ ω₃ Ω + m g l = 0,
//!
//! whose slow root is the steady precession. Started on it — ω = Ω e_z +
//! (ω₃ − Ω cos θ) e₃, the centre of mass at rest — the exact top keeps θ and turns
//! about the vertical at Ω. The floor's force is vertical and passes through C, so
//! its moment about the centre of mass is horizontal: the vertical angular
//! momentum L_z is conserved exactly, and so is the energy.
//!
//! At θ = 30°, ω₃ = 150 rad/s, Ω = 2.636562 rad/s (m g l / I₃ ω₃ = 2.615954): the
//! spin turns the body 0.15 rad a step at h = 1 ms, and the axis nutates at
//! I₃ ω₃ / I₁ ≈ 292 rad/s if disturbed.

mod common;

use common::load_str;
use rtphys::{Data, Model, Pipeline};

const R: f64 = 0.05;
const HD: f64 = 0.005;
const D: f64 = 0.05;
const RT: f64 = 0.004;
const RHO: f64 = 7800.0;
const G: f64 = 9.81;
const THETA_DEG: f64 = 30.0;
const W3: f64 = 150.0;

/// (m, l, I₁, I₃): the mass, the height of the centre of mass above C, the
/// transverse moment about the centre of mass and the axial moment, of the disc and
/// the ball.
fn top_inertia() -> (f64, f64, f64, f64) {
    let pi = std::f64::consts::PI;
    let md = RHO * pi * R * R * 2.0 * HD;
    let ms = RHO * 4.0 / 3.0 * pi * RT.powi(3);
    let m = md + ms;
    let l = md * D / m;
    let i3 = 0.5 * md * R * R + 0.4 * ms * RT * RT;
    let i1 = md * (R * R / 4.0 + (2.0 * HD).powi(2) / 12.0)
        + md * (D - l).powi(2)
        + 0.4 * ms * RT * RT
        + ms * l * l;
    (m, l, i1, i3)
}

/// The slow root of I₁ cos θ Ω² − I₃ ω₃ Ω + m g l = 0 (module doc).
fn precession(theta: f64, w3: f64) -> f64 {
    let (m, l, i1, i3) = top_inertia();
    let (a, b, c) = (i1 * theta.cos(), -i3 * w3, m * G * l);
    (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
}

/// The top started in steady precession (module doc) under `method` at step `h`.
fn scene(method: &str, h: f64) -> Model {
    let theta = THETA_DEG.to_radians();
    let w = precession(theta, W3);
    let (s, c) = theta.sin_cos();
    // e₃ = Rx(θ) e_z = (0, −sin θ, cos θ).
    let spin = W3 - w * c;
    let omega = [0.0, -spin * s, w + spin * c];
    load_str(&format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = {h:?}\nmethod = \"{method}\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n\
         material = {{ mu = 0.0 }}\n\n\
         [[body]]\nname = \"top\"\ndensity = {RHO:?}\nposition = [0.0, 0.0, {RT:?}]\n\
         rpy = [{theta:?}, 0.0, 0.0]\nangular_velocity = [{:?}, {:?}, {:?}]\n\
         material = {{ mu = 0.0 }}\n\
         [[body.geom]]\nshape = {{ type = \"sphere\", radius = {RT:?} }}\n\
         [[body.geom]]\nshape = {{ type = \"cylinder\", radius = {R:?}, half_length = {HD:?} }}\n\
         position = [0.0, 0.0, {D:?}]\n",
        omega[0], omega[1], omega[2]
    ))
}

/// What a run shows against the exact steady precession.
#[derive(Debug)]
struct Top {
    /// The precession rate (least-squares slope of the axis's azimuth), over Ω, − 1.
    rate: f64,
    /// The largest |θ − 30°| over the run, degrees.
    tilt: f64,
    /// L_z at the end over L_z at the start, − 1.
    l_z: f64,
    /// The energy at the end over the start's, − 1.
    energy: f64,
    /// The largest horizontal distance of the centre of mass from its start, m.
    drift: f64,
}

fn spin_top(method: &str, h: f64, seconds: f64) -> Top {
    let model = scene(method, h);
    let b = model.body_id("top").expect("body top");
    let (m, _, _, _) = top_inertia();
    let inertia = model.bodies[b].inertia;
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let axis = |d: &Data| d.state[b].q * rtphys::math::Vec3::z();
    let l_z = |d: &Data| {
        let s = &d.state[b];
        let r = s.q.to_rotation_matrix();
        (r.matrix() * inertia * r.matrix().transpose() * s.w).z
    };
    let energy = |d: &Data| {
        let s = &d.state[b];
        let r = s.q.to_rotation_matrix();
        let iw = r.matrix() * inertia * r.matrix().transpose();
        m * G * s.x.z + 0.5 * m * s.v.norm_squared() + 0.5 * s.w.dot(&(iw * s.w))
    };
    let (l0, e0, x0) = (l_z(&data), energy(&data), data.state[b].x);
    let steps = (seconds / h).round() as usize;
    let (mut ts, mut phis) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let (mut tilt, mut drift) = (0.0f64, 0.0f64);
    let mut last = axis(&data).y.atan2(axis(&data).x);
    let mut phi = last;
    for k in 1..=steps {
        pipeline.step(&model, &mut data);
        let e = axis(&data);
        let a = e.y.atan2(e.x);
        let mut d = a - last;
        d -= std::f64::consts::TAU * (d / std::f64::consts::TAU).round();
        phi += d;
        last = a;
        ts.push(k as f64 * h);
        phis.push(phi);
        tilt = tilt.max((e.z.clamp(-1.0, 1.0).acos().to_degrees() - THETA_DEG).abs());
        let x = data.state[b].x - x0;
        drift = drift.max(x.x.hypot(x.y));
    }
    let n = ts.len() as f64;
    let (mt, mp) = (ts.iter().sum::<f64>() / n, phis.iter().sum::<f64>() / n);
    let sxy: f64 = ts.iter().zip(&phis).map(|(t, p)| (t - mt) * (p - mp)).sum();
    let sxx: f64 = ts.iter().map(|t| (t - mt) * (t - mt)).sum();
    let top = Top {
        rate: sxy / sxx / precession(THETA_DEG.to_radians(), W3) - 1.0,
        tilt,
        l_z: l_z(&data) / l0 - 1.0,
        energy: energy(&data) / e0 - 1.0,
        drift,
    };
    println!("{method} h = {h}: {top:?}");
    top
}

/// The top keeps its tilt and precesses at the analytic rate for 3 s at h = 1 ms
/// under every method's default step: the rate within 1e-3 (IPC 5e-3), the tilt
/// within 0.25° (IPC 1°), L_z within 1e-9 (IPC 1e-5), the energy within 1e-3 (IPC
/// 2 %), the centre of mass in place to 1e-9 m.
///
/// Measured: penalty +3.1e-4, 0.12°; Hunt–Crossley +1.8e-6, 0.004°; LCP +3.1e-4,
/// 0.043°; PEG +2.9e-4, 0.043°; IPC +2.9e-3, 0.51° (its implicit Euler: first order,
/// the energy −0.97 %, the tilt falls — the top rises). At h = 2 ms penalty and LCP
/// are at +1.1e-3: the error is of second order in h. The bounds are 3× the
/// measured second-order errors (1.7× IPC's first-order one) and the drift the
/// exact laws allow none of.
///
/// Before session 37 every first-order step read the end angular velocity as the
/// free part's ω_f plus the kick δω, though the kick had turned the body: a
/// spinning body's momentum I_w(q⁺)(ω_f + δω) is then off L + hτ every step in the
/// same sense (`pipeline::rotation`, "end velocity"). The top fell from 30° to 45°
/// within 3 s and precessed at 0.93 rad/s (−65 %; L_z −19 %) under penalty, LCP and
/// PEG; Hunt–Crossley's adaptive step reached 32° (L_z −2 %); IPC, which read ω
/// from the middle pose's momentum, fell to 46° (−66 %).
#[test]
fn a_heavy_top_precesses_at_the_analytic_rate() {
    for method in ["penalty", "hunt_crossley", "lcp", "peg", "ipc"] {
        let top = spin_top(method, 1e-3, 3.0);
        let ipc = method == "ipc";
        let (rate, tilt, l_z, energy) = if ipc {
            (5e-3, 1.0, 1e-5, 2e-2)
        } else {
            (1e-3, 0.25, 1e-9, 1e-3)
        };
        assert!(
            top.rate.abs() <= rate,
            "{method}: precession {:+.3e} of the analytic rate",
            top.rate
        );
        assert!(
            top.tilt <= tilt,
            "{method}: the tilt moved {:.3}°",
            top.tilt
        );
        assert!(top.l_z.abs() <= l_z, "{method}: L_z {:+.3e}", top.l_z);
        assert!(
            top.energy.abs() <= energy,
            "{method}: energy {:+.3e}",
            top.energy
        );
        assert!(
            top.drift <= 1e-9,
            "{method}: the centre moved {:.3e} m",
            top.drift
        );
    }
}

/// The error is of second order in h for the velocity-level steps: at h = 2 ms the
/// rate is within 4e-3 and the tilt within 0.5° under penalty and LCP (measured
/// +1.1e-3 and +1.2e-3, 0.14° and 0.11°); before session 37, −0.90 at 2 ms.
#[test]
fn a_heavy_top_precesses_at_a_coarser_step() {
    for method in ["penalty", "lcp"] {
        let top = spin_top(method, 2e-3, 3.0);
        assert!(
            top.rate.abs() <= 4e-3,
            "{method}: precession {:+.3e} of the analytic rate",
            top.rate
        );
        assert!(top.tilt <= 0.5, "{method}: the tilt moved {:.3}°", top.tilt);
        assert!(top.l_z.abs() <= 1e-9, "{method}: L_z {:+.3e}", top.l_z);
    }
}
