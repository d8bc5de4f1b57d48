//! Explicit integrators over the system state: free bodies (maximal coordinates)
//! and the generalized coordinates of the robots. Body quaternions are integrated
//! as q̇ = ½ (0, ω) ⊗ q (ω in world coordinates) and renormalized; the robots'
//! configuration derivative q̇(q, v) comes from the caller (floating-base
//! quaternions at `quat_at` are renormalized after every update). Semi-implicit
//! Euler rotates free bodies by the conservative midpoint scheme of
//! [`super::rotation`].

use super::rotation::{self, Inertia};
use crate::data::BodyState;
use crate::math::{Quat, Vec3};
use nalgebra::Quaternion;

/// Time derivative of a [`BodyState`]: (ẋ, q̇, v̇, ẇ).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Deriv {
    pub dx: Vec3,
    pub dq: Quaternion<f64>,
    pub dv: Vec3,
    pub dw: Vec3,
}

/// ½ (0, ω) ⊗ q.
#[inline]
pub fn quat_rate(s: &BodyState) -> Quaternion<f64> {
    Quaternion::from_imag(s.w * 0.5) * s.q.into_inner()
}

/// `s0 + h·k` for one body.
#[inline]
fn euler_point(s0: &BodyState, k: &Deriv, h: f64) -> BodyState {
    BodyState {
        x: s0.x + k.dx * h,
        q: Quat::new_normalize(s0.q.into_inner() + k.dq * h),
        v: s0.v + k.dv * h,
        w: s0.w + k.dw * h,
    }
}

/// The robots' generalized state being integrated (all robots, flat) and the
/// offsets of the unit quaternions in `q`.
pub struct GenState<'a> {
    pub q: &'a mut [f64],
    pub v: &'a mut [f64],
    pub quat_at: &'a [usize],
}

/// Stage buffers of the generalized state (preallocated by the stepper's workspace).
#[derive(Clone, Debug, Default)]
pub struct GenScratch {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub kq: [Vec<f64>; 4],
    pub kv: [Vec<f64>; 4],
}

impl GenScratch {
    pub fn new(nq: usize, nv: usize) -> Self {
        GenScratch {
            q: vec![0.0; nq],
            v: vec![0.0; nv],
            kq: std::array::from_fn(|_| vec![0.0; nq]),
            kv: std::array::from_fn(|_| vec![0.0; nv]),
        }
    }
}

/// The stage buffers an integrator works in: a stage state of the bodies, the body
/// derivatives of each stage (RK4 uses all four, semi-implicit Euler the first) and
/// the robots' stage buffers.
pub struct Stages<'a> {
    pub state: &'a mut [BodyState],
    pub k: &'a mut [Vec<Deriv>; 4],
    pub gen: &'a mut GenScratch,
}

/// The buffers of one semi-implicit Euler step: the body derivatives and the
/// robots' stage buffers.
pub struct EulerStage<'a> {
    pub k: &'a mut [Deriv],
    pub gen: &'a mut GenScratch,
}

impl StageBuffers {
    /// The buffers of a semi-implicit Euler step (the first derivative buffer).
    pub fn euler(&mut self) -> EulerStage<'_> {
        EulerStage {
            k: &mut self.k[0],
            gen: &mut self.gen,
        }
    }
}

/// Owned stage buffers for a world of `nb` bodies and robots of (nq, nv).
#[derive(Clone, Debug, Default)]
pub struct StageBuffers {
    pub state: Vec<BodyState>,
    pub k: [Vec<Deriv>; 4],
    pub gen: GenScratch,
}

impl StageBuffers {
    pub fn new(nb: usize, nq: usize, nv: usize) -> Self {
        let rest = BodyState {
            x: Vec3::zeros(),
            q: Quat::identity(),
            v: Vec3::zeros(),
            w: Vec3::zeros(),
        };
        StageBuffers {
            state: vec![rest; nb],
            k: std::array::from_fn(|_| vec![Deriv::default(); nb]),
            gen: GenScratch::new(nq, nv),
        }
    }
    pub fn stages(&mut self) -> Stages<'_> {
        Stages {
            state: &mut self.state,
            k: &mut self.k,
            gen: &mut self.gen,
        }
    }
}

/// Renormalize the quaternions `q[i..i + 4]`, `i` in `quat_at`.
#[inline]
pub fn normalize_quats(q: &mut [f64], quat_at: &[usize]) {
    for &i in quat_at {
        if let Some(c) = q.get_mut(i..i + 4) {
            let n = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]).sqrt();
            if n > 0.0 {
                c.iter_mut().for_each(|x| *x /= n);
            }
        }
    }
}

/// `out = x0 + h k`.
#[inline]
fn axpy(out: &mut [f64], x0: &[f64], k: &[f64], h: f64) {
    for ((o, x), d) in out.iter_mut().zip(x0).zip(k) {
        *o = x + h * d;
    }
}

/// The derivative of the whole system at one stage: `f(stage, bodies, q, v,
/// body_derivs, q̇, v̇)`. The body slice is mutable so that the evaluation can write
/// the states it derives (robot link proxies) before colliding.
pub trait SystemRate:
    FnMut(usize, &mut [BodyState], &[f64], &[f64], &mut [Deriv], &mut [f64], &mut [f64])
{
}
impl<F: FnMut(usize, &mut [BodyState], &[f64], &[f64], &mut [Deriv], &mut [f64], &mut [f64])>
    SystemRate for F
{
}

/// Classical RK4 over bodies and robots. Stage 0 is evaluated at the state itself.
/// Bodies with `dynamic[b] == false` are left untouched. The result overwrites `s`
/// and `gen`.
pub fn rk4_system(
    h: f64,
    s: &mut [BodyState],
    gen: GenState<'_>,
    dynamic: impl Fn(usize) -> bool,
    stages: Stages<'_>,
    mut f: impl SystemRate,
) {
    let GenState { q, v, quat_at } = gen;
    let Stages {
        state: stage_state,
        k,
        gen: gs,
    } = stages;
    let [k1, k2, k3, k4] = k;
    let [kq1, kq2, kq3, kq4] = &mut gs.kq;
    let [kv1, kv2, kv3, kv4] = &mut gs.kv;
    let (sq, sv) = (&mut gs.q, &mut gs.v);
    f(0, s, q, v, k1, kq1, kv1);
    // Stage state s0 + c h k for bodies and robots.
    let stage = |c: f64,
                 kb: &[Deriv],
                 kq: &[f64],
                 kv: &[f64],
                 st: &mut [BodyState],
                 sq: &mut [f64],
                 sv: &mut [f64]| {
        for (b, x) in st.iter_mut().enumerate() {
            *x = if dynamic(b) {
                euler_point(&s[b], &kb[b], c * h)
            } else {
                s[b]
            };
        }
        axpy(sq, q, kq, c * h);
        normalize_quats(sq, quat_at);
        axpy(sv, v, kv, c * h);
    };
    stage(0.5, k1, kq1, kv1, stage_state, sq, sv);
    f(1, stage_state, sq, sv, k2, kq2, kv2);
    stage(0.5, k2, kq2, kv2, stage_state, sq, sv);
    f(2, stage_state, sq, sv, k3, kq3, kv3);
    stage(1.0, k3, kq3, kv3, stage_state, sq, sv);
    f(3, stage_state, sq, sv, k4, kq4, kv4);
    let h6 = h / 6.0;
    for (b, sb) in s.iter_mut().enumerate() {
        if !dynamic(b) {
            continue;
        }
        let (a, bb, c, d) = (&k1[b], &k2[b], &k3[b], &k4[b]);
        sb.x += (a.dx + (bb.dx + c.dx) * 2.0 + d.dx) * h6;
        sb.v += (a.dv + (bb.dv + c.dv) * 2.0 + d.dv) * h6;
        sb.w += (a.dw + (bb.dw + c.dw) * 2.0 + d.dw) * h6;
        sb.q = Quat::new_normalize(sb.q.into_inner() + (a.dq + (bb.dq + c.dq) * 2.0 + d.dq) * h6);
    }
    for i in 0..q.len() {
        q[i] += (kq1[i] + 2.0 * (kq2[i] + kq3[i]) + kq4[i]) * h6;
    }
    normalize_quats(q, quat_at);
    for i in 0..v.len() {
        v[i] += (kv1[i] + 2.0 * (kv2[i] + kv3[i]) + kv4[i]) * h6;
    }
}

/// Classical RK4 over free bodies only (`f(stage, state, out)`).
pub fn rk4(
    h: f64,
    s: &mut [BodyState],
    dynamic: impl Fn(usize) -> bool,
    stage_state: &mut [BodyState],
    k: &mut [Vec<Deriv>; 4],
    mut f: impl FnMut(usize, &[BodyState], &mut [Deriv]),
) {
    let gen = GenState {
        q: &mut [],
        v: &mut [],
        quat_at: &[],
    };
    let stages = Stages {
        state: stage_state,
        k,
        gen: &mut GenScratch::default(),
    };
    rk4_system(
        h,
        s,
        gen,
        dynamic,
        stages,
        |stage,
         st: &mut [BodyState],
         _: &[f64],
         _: &[f64],
         kb: &mut [Deriv],
         _: &mut [f64],
         _: &mut [f64]| { f(stage, st, kb) },
    )
}

/// Semi-implicit (symplectic) Euler over bodies and robots: v ← v + h v̇,
/// x ← x + h v; the rotation by [`rotation::step_from_acceleration`]: the implicit
/// midpoint step of the torque-free body with the Cayley reconstruction of q
/// (conserves L, |L| and the kinetic energy of a free body), then the torque kick
/// δω = h I_w⁻¹ τ with q following δω (see [`super::rotation`]). `inertia(b)` is body b's body-frame inertia,
/// `None` for a body that is not integrated. Robots: v ← v + h v̇ then
/// q ← q + h q̇(q, v⁺) (`qdot`), quaternions renormalized.
pub fn semi_implicit_euler_system(
    h: f64,
    s: &mut [BodyState],
    gen: GenState<'_>,
    inertia: impl Fn(usize) -> Option<Inertia>,
    stage: EulerStage<'_>,
    mut f: impl SystemRate,
    mut qdot: impl FnMut(&[f64], &[f64], &mut [f64]),
) {
    let GenState { q, v, quat_at } = gen;
    let EulerStage { k, gen: gs } = stage;
    let [kq, ..] = &mut gs.kq;
    let [kv, ..] = &mut gs.kv;
    f(0, s, q, v, k, kq, kv);
    for (b, sb) in s.iter_mut().enumerate() {
        let Some(inertia) = inertia(b) else {
            continue;
        };
        sb.v += k[b].dv * h;
        sb.x += sb.v * h;
        (sb.q, sb.w) = rotation::step_from_acceleration(&sb.q, &sb.w, &k[b].dw, &inertia, h);
    }
    for (vi, a) in v.iter_mut().zip(kv.iter()) {
        *vi += h * a;
    }
    qdot(q, v, kq);
    for (qi, d) in q.iter_mut().zip(kq.iter()) {
        *qi += h * d;
    }
    normalize_quats(q, quat_at);
}

/// Semi-implicit Euler over free bodies only (`inertia` as in
/// [`semi_implicit_euler_system`]).
pub fn semi_implicit_euler(
    h: f64,
    s: &mut [BodyState],
    inertia: impl Fn(usize) -> Option<Inertia>,
    k: &mut [Deriv],
    mut f: impl FnMut(usize, &[BodyState], &mut [Deriv]),
) {
    let gen = GenState {
        q: &mut [],
        v: &mut [],
        quat_at: &[],
    };
    semi_implicit_euler_system(
        h,
        s,
        gen,
        inertia,
        EulerStage {
            k,
            gen: &mut GenScratch::default(),
        },
        |stage,
         st: &mut [BodyState],
         _: &[f64],
         _: &[f64],
         kb: &mut [Deriv],
         _: &mut [f64],
         _: &mut [f64]| { f(stage, st, kb) },
        |_, _, _| {},
    )
}
