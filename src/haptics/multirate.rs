//! Multi-rate haptics: the tool and its contacts stepped at the haptic rate, N
//! sub-steps of h/N inside each world tick of h, while the rest of the world steps
//! once per tick under the scene's method (penalty or complementarity).
//!
//! What the tool sees of the world between world ticks (the contract):
//!
//! ```text
//! tick start  the tool's contacts are found by the narrow phase with a speculative
//!             margin (gap points too, so a contact that begins inside the tick is
//!             felt at the sub-step it begins, not at the next world tick) and
//!             frozen: per point the tool's material point (tool frame), the
//!             normal n (pushing the tool out), the depth d₀ at tick start, the
//!             velocity u of the other body's material point there, and μ.
//! sub-step k  the world bodies move ballistically at their tick-start velocity:
//!             d_k = d₀ − n·((p_k − p₀) − u t_k);  ḋ = −n·(v_p − u)
//!             penalty per point (the manifold's stiffness split over its points):
//!             f_n = max(0, (k_c d + b_c ḋ)/m),  f_t = −μ f_n v_t / max(|v_t|, v_ε)
//!             device target extrapolated first-order: x_d(t_k) = x + v t_k
//!             (f, τ)_coupling + contact + the tool's other wrenches → the tool's
//!             semi-implicit Euler step of h/N (rotation: `pipeline::rotation::step`)
//!             the coupling force after the sub-step → the device port (rate limit,
//!             passivity observer/controller, clamp) at the haptic rate
//! tick end    each world body receives the mean of the contact wrenches the tool
//!             put on it over the sub-steps, −(1/N) Σ_k (f_k, (p_k − c) × f_k), as an
//!             external wrench of the world step: its impulse h·mean = Σ_k (h/N) f_k is
//!             exactly the impulse the tool took from it (momentum is exchanged
//!             consistently; torques about the body's tick-start centre c). The world
//!             step does not see the tool's contacts (they are removed from its
//!             contact set) and the tool's state after the tick is the sub-steps'.
//! ```
//!
//! The contact set refreshes at each world tick from the narrow phase at the tool's
//! current pose: in between it is the tick-start set, linearized (as SOFA's
//! LCPForceFeedback reuses the last constraint problem). Everything here is
//! fixed-size: no allocation per tick once the narrow-phase scratch is warm.

use crate::collision::narrowphase::{collide_pair_within, Margin, NarrowScratch};
use crate::collision::ContactSet;
use crate::data::{BodyState, Data};
use crate::math::{Pose, Vec3, Wrench};
use crate::model::{BodyKind, Material, Model};
use crate::pipeline::collide::clip_to_seams;
use crate::pipeline::rotation::{self, Inertia};

/// Most sub-steps per world tick (e.g. 16 kHz over a 1 kHz world).
pub const MAX_SUBSTEPS: usize = 16;
/// Most frozen contact points of one tool.
pub const MAX_POINTS: usize = 64;
/// Most world bodies one tool touches in a tick.
pub const MAX_PARTNERS: usize = 16;
/// Velocity scale of the regularized Coulomb friction, m/s.
pub const FRICTION_V_EPS: f64 = 0.01;
/// Width of the speculative window (m) of the tool's narrow phase.
pub const WINDOW: f64 = 5e-4;

/// The multi-rate parameters of a `[[haptic]]` (`rate_hz`, `contact_stiffness`,
/// `contact_damping`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiRate {
    /// Sub-steps per world tick (rate_hz · dt).
    pub substeps: usize,
    /// Normal stiffness of one tool contact (a manifold; split over its points),
    /// N/m.
    pub stiffness: f64,
    /// Normal damping of one tool contact, N·s/m.
    pub damping: f64,
}

/// One frozen contact point (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrozenPoint {
    /// The other body.
    pub other: usize,
    /// The tool's material point, tool frame (relative to its centre of mass).
    pub r_b: Vec3,
    /// The contact point at tick start, world.
    pub p0: Vec3,
    /// Unit normal pushing the tool out, world.
    pub n: Vec3,
    /// Depth at tick start (< 0: a gap).
    pub d0: f64,
    /// Velocity of the other body's material point at tick start.
    pub u: Vec3,
    pub mu: f64,
    /// This point's share of the manifold's stiffness and damping.
    pub k: f64,
    pub b: f64,
}

/// The tool's sub-step machinery and what it produced in the last tick.
#[derive(Clone, Debug)]
pub struct SubSteps {
    scratch: NarrowScratch,
    set: ContactSet,
    pub points: [FrozenPoint; MAX_POINTS],
    pub npoints: usize,
    partners: [(usize, Wrench); MAX_PARTNERS],
    npartners: usize,
    /// The tool's state at the end of the sub-steps (written back after the world
    /// step).
    pub end: BodyState,
    /// Impulse the tool took from contacts over the last tick (world, N·s).
    pub contact_impulse: Vec3,
    /// Impulse the coupling put on the tool over the last tick (N·s).
    pub coupling_impulse: Vec3,
    /// Deepest penetrating frozen point at the end of the tick: (normal, depth).
    pub deepest: Option<(Vec3, f64)>,
    pub active: bool,
}

impl PartialEq for SubSteps {
    /// The state (frozen points, tool end state, impulses), not the scratch buffers.
    fn eq(&self, o: &Self) -> bool {
        self.points[..self.npoints] == o.points[..o.npoints]
            && self.end == o.end
            && self.contact_impulse == o.contact_impulse
            && self.coupling_impulse == o.coupling_impulse
            && self.deepest == o.deepest
    }
}

impl Default for SubSteps {
    fn default() -> Self {
        SubSteps {
            scratch: NarrowScratch::with_capacity(256),
            set: ContactSet::with_capacity(64, 256),
            points: [FrozenPoint::default(); MAX_POINTS],
            npoints: 0,
            partners: [(0, Wrench::ZERO); MAX_PARTNERS],
            npartners: 0,
            end: BodyState {
                x: Vec3::zeros(),
                q: crate::math::Quat::identity(),
                v: Vec3::zeros(),
                w: Vec3::zeros(),
            },
            contact_impulse: Vec3::zeros(),
            coupling_impulse: Vec3::zeros(),
            deepest: None,
            active: false,
        }
    }
}

/// The contact wrench on the tool from its frozen points at state `s` and time `t`
/// into the tick, and each point's force (for the reactions), written to `f_out`.
fn contact_forces(
    points: &[FrozenPoint],
    s: &BodyState,
    t: f64,
    f_out: &mut [Vec3; MAX_POINTS],
) -> (Vec3, Vec3) {
    let r = s.q.to_rotation_matrix();
    let (mut f, mut tau) = (Vec3::zeros(), Vec3::zeros());
    for (i, c) in points.iter().enumerate() {
        let arm = r * c.r_b;
        let p = s.x + arm;
        let d = c.d0 - c.n.dot(&(p - c.p0 - c.u * t));
        f_out[i] = Vec3::zeros();
        if d <= 0.0 {
            continue;
        }
        let v_rel = s.v + s.w.cross(&arm) - c.u;
        let vn = c.n.dot(&v_rel);
        let f_n = (c.k * d - c.b * vn).max(0.0);
        let v_t = v_rel - c.n * vn;
        let f_t = v_t * (-c.mu * f_n / v_t.norm().max(FRICTION_V_EPS));
        let fp = c.n * f_n + f_t;
        f_out[i] = fp;
        f += fp;
        tau += arm.cross(&fp);
    }
    (f, tau)
}

impl SubSteps {
    /// Tick start: the tool's contacts found with a speculative margin of `reach`
    /// (m) and frozen; the tool's manifolds are removed from the world step's
    /// contact set.
    pub fn freeze(
        &mut self,
        model: &Model,
        data: &mut Data,
        tool: usize,
        mr: &MultiRate,
        reach: f64,
    ) {
        // The world step does not see the tool's contacts.
        let mut keep = 0;
        for m in 0..data.contacts.manifolds.len() {
            let mf = &data.contacts.manifolds[m];
            let touches =
                model.geoms[mf.geom_a].body == tool || model.geoms[mf.geom_b].body == tool;
            if !touches {
                data.contacts.manifolds.swap(keep, m);
                if let (Some(_), Some(_)) = (data.contact_pair.get(keep), data.contact_pair.get(m))
                {
                    data.contact_pair.swap(keep, m);
                }
                keep += 1;
            }
        }
        data.contacts.manifolds.truncate(keep);
        data.contact_pair.truncate(keep);

        self.npoints = 0;
        self.set.clear();
        let margin = Margin {
            reach: reach + WINDOW,
            window: WINDOW,
        };
        let grow = Vec3::repeat(margin.reach);
        let ts = &data.state[tool];
        let tb = &model.bodies[tool];
        for gt in tb.geoms.clone() {
            let gtool = &model.geoms[gt];
            let xt = ts.pose() * gtool.x_bg;
            let mut bt = gtool.shape.aabb(&xt);
            bt.min -= grow;
            bt.max += grow;
            for (go, geom) in model.geoms.iter().enumerate() {
                if geom.body == tool {
                    continue;
                }
                let xo: Pose = data.state[geom.body].pose() * geom.x_bg;
                if !geom.shape.aabb(&xo).overlaps(&bt) {
                    continue;
                }
                let before = self.set.manifolds.len();
                // A static box with a covered face is its extended box, the
                // points kept over itself (`model::seams`), as in the world's
                // narrow phase.
                let xo_seam;
                let (so, xs) = match &geom.seam {
                    Some(s) => {
                        xo_seam = s.pose(&xo);
                        (&s.shape, &xo_seam)
                    }
                    None => (&geom.shape, &xo),
                };
                let (a_is_tool, hit) = if collide_pair_within(
                    gt,
                    &gtool.shape,
                    &xt,
                    go,
                    so,
                    xs,
                    &margin,
                    &mut self.scratch,
                    &mut self.set,
                ) {
                    (true, true)
                } else {
                    let h = collide_pair_within(
                        go,
                        so,
                        xs,
                        gt,
                        &gtool.shape,
                        &xt,
                        &margin,
                        &mut self.scratch,
                        &mut self.set,
                    );
                    (false, h)
                };
                let hit = match (&geom.seam, hit) {
                    (Some(s), true) => clip_to_seams(&mut self.set, s.planes(&xo), false),
                    _ => hit,
                };
                if !hit || self.set.manifolds.len() == before {
                    continue;
                }
                let mf = self.set.manifolds[before].clone();
                // The manifold's normal points toward geom a.
                let n = if a_is_tool { mf.normal } else { -mf.normal };
                let pts = &self.set.points[mf.points.clone()];
                let share = 1.0 / pts.len().max(1) as f64;
                let mu = Material::combine(&gtool.material, &geom.material).mu;
                let os = &data.state[geom.body];
                let moving = model.bodies[geom.body].kind != BodyKind::Static;
                for cp in pts {
                    if self.npoints == MAX_POINTS {
                        break;
                    }
                    // The point on the tool's surface: the narrow phase's point
                    // lies between the surfaces; the tool's material point there.
                    self.points[self.npoints] = FrozenPoint {
                        other: geom.body,
                        r_b: ts.q.inverse_transform_vector(&(cp.p_w - ts.x)),
                        p0: cp.p_w,
                        n,
                        d0: cp.depth,
                        u: if moving {
                            os.velocity_at(&cp.p_w)
                        } else {
                            Vec3::zeros()
                        },
                        mu,
                        k: mr.stiffness * share,
                        b: mr.damping * share,
                    };
                    self.npoints += 1;
                }
            }
        }
    }

    /// The N sub-steps of the tool (module doc). `coupling(t, s)` is the coupling's
    /// wrench on the tool at state `s`, `t` into the tick; `render(k, f_c)` is told
    /// the coupling force after sub-step `k`; `extra` the tool's other wrench
    /// (gravity compensation, the runtime's wrenches), constant over the tick.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        model: &Model,
        data: &mut Data,
        tool: usize,
        mr: &MultiRate,
        extra: Wrench,
        mut coupling: impl FnMut(f64, &BodyState) -> (Vec3, Vec3),
        mut render: impl FnMut(usize, Vec3),
    ) {
        let h = model.opt.dt;
        let n = mr.substeps.max(1);
        let hs = h / n as f64;
        let body = &model.bodies[tool];
        let inertia = Inertia {
            i: body.inertia,
            inv: body.inv_inertia,
        };
        let g = model.opt.gravity;
        let mut s = data.state[tool];
        self.npartners = 0;
        self.contact_impulse = Vec3::zeros();
        self.coupling_impulse = Vec3::zeros();
        let mut f_pts = [Vec3::zeros(); MAX_POINTS];
        let mut partners = [(0usize, Wrench::ZERO); MAX_PARTNERS];
        let mut np = 0usize;
        let (mut fc, mut tc) = coupling(0.0, &s);
        for k in 0..n {
            let t = k as f64 * hs;
            let (f_ct, t_ct) = contact_forces(&self.points[..self.npoints], &s, t, &mut f_pts);
            // Reactions on the world bodies (about their tick-start centres).
            for (i, c) in self.points[..self.npoints].iter().enumerate() {
                let fp = f_pts[i];
                if fp == Vec3::zeros() || model.bodies[c.other].kind == BodyKind::Static {
                    continue;
                }
                let arm = s.x + s.q * c.r_b - data.state[c.other].x;
                let w = Wrench {
                    force: -fp,
                    torque: arm.cross(&-fp),
                };
                match partners[..np].iter_mut().find(|p| p.0 == c.other) {
                    Some(p) => p.1 += w,
                    None if np < MAX_PARTNERS => {
                        partners[np] = (c.other, w);
                        np += 1;
                    }
                    None => {}
                }
            }
            self.contact_impulse += f_ct * hs;
            self.coupling_impulse += fc * hs;
            let f = fc + f_ct + extra.force;
            let tau = tc + t_ct + extra.torque;
            // Semi-implicit Euler: v⁺ = v + hs (f/m + g), x⁺ = x + hs v⁺; the
            // rotation's free step from L = I_w ω + hs τ.
            s.v += hs * (f * body.inv_mass + g);
            s.x += hs * s.v;
            let r = s.q.to_rotation_matrix();
            let l = r * (body.inertia * (r.transpose() * s.w)) + tau * hs;
            let (q, w) = rotation::step(&s.q, &inertia, &l, hs);
            s.q = q;
            s.w = w;
            (fc, tc) = coupling(t + hs, &s);
            render(k, fc);
        }
        let inv_n = 1.0 / n as f64;
        for (b, w) in partners[..np].iter_mut() {
            *w = Wrench {
                force: w.force * inv_n,
                torque: w.torque * inv_n,
            };
            data.xfrc[*b] += *w;
        }
        self.partners = partners;
        self.npartners = np;
        self.end = s;
        self.active = true;
        // The deepest penetrating point at the end of the tick (the local model).
        let r = s.q.to_rotation_matrix();
        self.deepest = None;
        for c in &self.points[..self.npoints] {
            let d = c.d0 - c.n.dot(&(s.x + r * c.r_b - c.p0 - c.u * h));
            if d > 0.0 && self.deepest.is_none_or(|(_, dd)| d > dd) {
                self.deepest = Some((c.n, d));
            }
        }
    }

    /// The mean reaction wrenches of the last tick (body, wrench), as applied to
    /// the world step.
    pub fn reactions(&self) -> &[(usize, Wrench)] {
        &self.partners[..self.npartners]
    }
}
