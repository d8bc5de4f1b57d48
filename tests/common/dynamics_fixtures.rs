//! Fixtures shared by `dynamics_algorithms.rs` and `dynamics_floating.rs`
//! (included with `#[path = "common/dynamics_fixtures.rs"] mod fixtures;`):
//! a deterministic RNG, the Panda-like arm, the humanoid-like trees and the
//! ABA-inverts-RNEA check. Every fixture draws its random numbers in a fixed
//! order, so a test's figures depend only on its seed.
#![allow(dead_code)]

use nalgebra::{Matrix3, Rotation3, Unit, Vector3};
use rtphys::dynamics::{
    aba, rnea, ArticulatedData, ArticulatedModel, ArticulatedModelBuilder, ExtInputs, ForceVec,
    Joint, MotionVec, SpatialInertia, SpatialTransform,
};

/// Standard gravity, base coordinates (the `ArticulatedModelBuilder` default).
pub const G: Vector3<f64> = Vector3::new(0.0, 0.0, -9.81);

/// xorshift64*: deterministic, dependency-free.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    pub fn sym(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * 0.5 * (self.sym() + 1.0)
    }
    pub fn vec3(&mut self) -> Vector3<f64> {
        Vector3::new(self.sym(), self.sym(), self.sym())
    }
    pub fn vec(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| scale * self.sym()).collect()
    }
    pub fn rotation(&mut self) -> Matrix3<f64> {
        let axis = Unit::new_normalize(self.vec3() + Vector3::new(0.0, 0.0, 1e-3));
        *Rotation3::from_axis_angle(&axis, 3.0 * self.sym()).matrix()
    }
    pub fn unit_quaternion(&mut self) -> [f64; 4] {
        let q = nalgebra::Quaternion::new(self.sym(), self.sym(), self.sym(), self.sym() + 1e-3);
        let q = q / q.norm();
        [q.w, q.i, q.j, q.k]
    }
    pub fn transform(&mut self) -> SpatialTransform {
        SpatialTransform::new(self.rotation(), self.vec3())
    }
    pub fn motion(&mut self) -> MotionVec {
        MotionVec::new(self.vec3(), self.vec3())
    }
    pub fn force(&mut self) -> ForceVec {
        ForceVec::new(self.vec3(), self.vec3())
    }
    /// A random box body of mass `mass` with its centre within `com_scale` of the origin.
    pub fn random_body(&mut self, mass: f64, com_scale: f64) -> SpatialInertia {
        let m = mass * self.range(0.5, 1.5);
        let c = self.vec3() * com_scale;
        self.box_inertia(m, c)
    }
    /// A solid box of random size/orientation with its centre at `com`.
    pub fn box_inertia(&mut self, mass: f64, com: Vector3<f64>) -> SpatialInertia {
        let (a, b, c) = (
            self.range(0.05, 0.3),
            self.range(0.05, 0.3),
            self.range(0.05, 0.3),
        );
        let d = Matrix3::from_diagonal(&Vector3::new(b * b + c * c, a * a + c * c, a * a + b * b))
            * (mass / 12.0);
        let r = self.rotation();
        SpatialInertia::new(mass, com, r * d * r.transpose())
    }
    /// A random configuration: joint coordinates within ±`scale` (rad or m);
    /// for a floating joint, a position within 1 m and a random unit
    /// quaternion. Without floating joints this draws exactly `vec(nq, scale)`.
    pub fn configuration(&mut self, model: &ArticulatedModel, scale: f64) -> Vec<f64> {
        let mut q = self.vec(model.nq(), scale);
        for (i, j) in model.joint().iter().enumerate() {
            if let (Joint::Floating, Some(k)) = (j, model.q_index()[i]) {
                q[k..k + 3].copy_from_slice(self.vec3().as_slice());
                q[k + 3..k + 7].copy_from_slice(&self.unit_quaternion());
            }
        }
        q
    }
}

pub fn axis(x: f64, y: f64, z: f64) -> Unit<Vector3<f64>> {
    Unit::new_normalize(Vector3::new(x, y, z))
}

pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

// ---------------------------------------------------------------------------
// Panda-like arm

/// `/work/shared/peers/scenes.py` ARM_LINKS: (axis, seg, mass, capsule radius).
/// Link i's frame sits at the end of segment i−1; the inertia is a solid
/// cylinder along the segment with its centre at seg/2 (as `_arm_link_geometry`).
pub const ARM_LINKS: [([f64; 3], [f64; 3], f64, f64); 7] = [
    ([0.0, 0.0, 1.0], [0.0, 0.0, 0.333], 4.97, 0.06),
    ([0.0, 1.0, 0.0], [0.0, 0.0, 0.158], 0.65, 0.06),
    ([0.0, 0.0, 1.0], [0.0825, 0.0, 0.158], 3.23, 0.05),
    ([0.0, -1.0, 0.0], [-0.0825, 0.0, 0.192], 3.59, 0.05),
    ([0.0, 0.0, 1.0], [0.0, 0.0, 0.192], 1.23, 0.045),
    ([0.0, -1.0, 0.0], [0.088, 0.0, 0.0], 1.67, 0.04),
    ([0.0, 0.0, -1.0], [0.0, 0.0, -0.207], 1.47, 0.035),
];

/// The Panda-like 7-DoF arm (`ARM_LINKS`) on a fixed base placed at `base`
/// (the root's `x_tree`), under standard gravity `G`.
pub fn panda_model(base: SpatialTransform) -> ArticulatedModel {
    let mut b = ArticulatedModelBuilder::new().gravity(G);
    let mut x_tree = base;
    let mut parent = None;
    for (ax, seg, mass, r) in ARM_LINKS {
        let seg = Vector3::from(seg);
        let length = seg.norm();
        // cylinder about its axis (local z), rotated so z points along the segment
        let ip = mass * (3.0 * r * r + length * length) / 12.0;
        let iax = 0.5 * mass * r * r;
        let pitch = seg.x.atan2(seg.z);
        let rot = *Rotation3::from_axis_angle(&Vector3::y_axis(), pitch).matrix();
        let ic = rot * Matrix3::from_diagonal(&Vector3::new(ip, ip, iax)) * rot.transpose();
        let i = b.add_link(
            parent,
            Joint::Revolute(axis(ax[0], ax[1], ax[2])),
            x_tree,
            SpatialInertia::new(mass, seg / 2.0, ic),
        );
        parent = Some(i);
        x_tree = SpatialTransform::translation(seg);
    }
    b.finalize().expect("valid Panda-like tree")
}

// ---------------------------------------------------------------------------
// humanoid-like trees

/// One link of a humanoid: (joint, offset of its frame from the parent's, mass,
/// centre of mass in its frame). Its inertia is a random box (`Rng::box_inertia`).
pub type HumanoidLink = (Joint, [f64; 3], f64, [f64; 3]);

/// The dimensions of a humanoid-like tree; the topology is `humanoid_model`'s.
pub struct Humanoid {
    /// pelvis (the root), waist, chest, neck, head: each the child of the one before.
    pub spine: [HumanoidLink; 5],
    /// The right (+y) arm from the chest, shoulder first.
    pub arm: &'static [HumanoidLink],
    /// The welded (Fixed) right hand at the end of the right arm.
    pub hand: HumanoidLink,
    /// The right (+y) leg from the pelvis: hip yaw/roll/pitch, knee, ankle pitch/roll.
    pub leg: [HumanoidLink; 6],
}

const X: Joint = Joint::Revolute(Unit::new_unchecked(Vector3::new(1.0, 0.0, 0.0)));
const Y: Joint = Joint::Revolute(Unit::new_unchecked(Vector3::new(0.0, 1.0, 0.0)));
const Z: Joint = Joint::Revolute(Unit::new_unchecked(Vector3::new(0.0, 0.0, 1.0)));

/// Fixed base, 25 revolute joints plus one welded hand (26 links): pelvis
/// (yaw, 1 m above the base) → waist pitch → chest roll; neck yaw, pitch; two
/// arms of shoulder pitch/roll/yaw + elbow; two legs of hip yaw/roll/pitch,
/// knee, ankle pitch/roll.
pub const FIXED_HUMANOID: Humanoid = Humanoid {
    spine: [
        (Z, [0.0, 0.0, 1.0], 8.0, [0.0, 0.0, 0.05]),
        (Y, [0.0, 0.0, 0.1], 2.0, [0.0, 0.0, 0.1]),
        (X, [0.0, 0.0, 0.2], 12.0, [0.0, 0.0, 0.15]),
        (Z, [0.0, 0.0, 0.35], 0.5, [0.0, 0.0, 0.03]),
        (Y, [0.0, 0.0, 0.06], 3.0, [0.02, 0.0, 0.1]),
    ],
    arm: &[
        (Y, [0.0, 0.2, 0.3], 1.0, [0.0, 0.03, 0.0]),
        (X, [0.0, 0.05, 0.0], 0.8, [0.0, 0.0, -0.05]),
        (Z, [0.0, 0.0, -0.05], 1.5, [0.0, 0.0, -0.12]),
        (Y, [0.0, 0.0, -0.25], 1.0, [0.0, 0.0, -0.12]),
    ],
    hand: (Joint::Fixed, [0.0, 0.0, -0.25], 0.4, [0.0, 0.0, -0.05]),
    leg: [
        (Z, [0.0, 0.1, -0.05], 1.0, [0.0, 0.0, -0.03]),
        (X, [0.0, 0.0, -0.05], 1.0, [0.0, 0.0, -0.02]),
        (Y, [0.0, 0.0, -0.05], 6.0, [0.0, 0.0, -0.2]),
        (Y, [0.0, 0.0, -0.4], 3.5, [0.0, 0.0, -0.2]),
        (Y, [0.0, 0.0, -0.4], 0.3, [0.0, 0.0, -0.02]),
        (X, [0.0, 0.0, -0.04], 1.0, [0.05, 0.0, -0.04]),
    ],
};

/// A floating pelvis (10 kg) and 26 revolute joints (28 links) — waist
/// yaw/pitch, neck yaw/pitch, two arms of shoulder pitch/roll/yaw, elbow,
/// wrist, two legs of hip yaw/roll/pitch, knee, ankle pitch/roll — plus a
/// welded (Fixed) hand; link masses 0.5–15 kg (total ≈ 70 kg).
pub const FLOATING_HUMANOID: Humanoid = Humanoid {
    spine: [
        (Joint::Floating, [0.0; 3], 10.0, [0.0, 0.0, 0.05]),
        (Z, [0.0, 0.0, 0.1], 2.0, [0.0, 0.0, 0.1]),
        (Y, [0.0, 0.0, 0.2], 15.0, [0.0, 0.0, 0.15]),
        (Z, [0.0, 0.0, 0.35], 0.5, [0.0, 0.0, 0.03]),
        (Y, [0.0, 0.0, 0.06], 4.0, [0.02, 0.0, 0.1]),
    ],
    arm: &[
        (Y, [0.0, 0.2, 0.3], 1.0, [0.0, 0.03, 0.0]),
        (X, [0.0, 0.05, 0.0], 0.8, [0.0, 0.0, -0.05]),
        (Z, [0.0, 0.0, -0.05], 1.8, [0.0, 0.0, -0.12]),
        (Y, [0.0, 0.0, -0.25], 1.2, [0.0, 0.0, -0.12]),
        (X, [0.0, 0.0, -0.25], 0.5, [0.0, 0.0, -0.04]),
    ],
    hand: (Joint::Fixed, [0.0, 0.0, -0.08], 0.5, [0.0, 0.0, -0.05]),
    leg: [
        (Z, [0.0, 0.1, -0.05], 1.0, [0.0, 0.0, -0.03]),
        (X, [0.0, 0.0, -0.05], 1.0, [0.0, 0.0, -0.02]),
        (Y, [0.0, 0.0, -0.05], 7.0, [0.0, 0.0, -0.2]),
        (Y, [0.0, 0.0, -0.4], 3.5, [0.0, 0.0, -0.2]),
        (Y, [0.0, 0.0, -0.4], 0.5, [0.0, 0.0, -0.02]),
        (X, [0.0, 0.0, -0.04], 1.0, [0.05, 0.0, -0.04]),
    ],
};

/// The humanoid-like tree `h` under `gravity`. Links are added (and their
/// inertias drawn from `rng`) in the order: spine; right arm, right hand,
/// right leg; left arm, left leg. The left limbs mirror the right ones in y
/// (a zero y stays +0.0).
pub fn humanoid_model(rng: &mut Rng, h: &Humanoid, gravity: Vector3<f64>) -> ArticulatedModel {
    let mut b = ArticulatedModelBuilder::new().gravity(gravity);
    let mut link = |parent: Option<usize>, (j, offset, mass, com): HumanoidLink, side: f64| {
        let mirror = |v: [f64; 3]| [v[0], if v[1] == 0.0 { v[1] } else { v[1] * side }, v[2]];
        let inertia = rng.box_inertia(mass, Vector3::from(mirror(com)));
        b.add_link(
            parent,
            j,
            SpatialTransform::translation(Vector3::from(mirror(offset))),
            inertia,
        )
    };
    let mut spine = [0; 5];
    let mut p = None;
    for (k, l) in h.spine.into_iter().enumerate() {
        spine[k] = link(p, l, 1.0);
        p = Some(spine[k]);
    }
    let (pelvis, chest) = (spine[0], spine[2]);
    for side in [1.0, -1.0] {
        let mut p = chest;
        for &l in h.arm {
            p = link(Some(p), l, side);
        }
        if side > 0.0 {
            link(Some(p), h.hand, side);
        }
        let mut p = pelvis;
        for l in h.leg {
            p = link(Some(p), l, side);
        }
    }
    b.finalize().expect("valid humanoid tree")
}

// ---------------------------------------------------------------------------
// checks

/// max |aba(q, q̇, rnea(q, q̇, q̈)) − q̈| over `samples` random states
/// (`Rng::configuration`), half of them with external forces and damping.
pub fn check_aba_inverts_rnea(model: &ArticulatedModel, rng: &mut Rng, samples: usize) -> f64 {
    let nv = model.nv();
    let mut data = ArticulatedData::new(model);
    let damping: Vec<f64> = (0..nv).map(|_| rng.range(0.0, 1.0)).collect();
    let mut worst: f64 = 0.0;
    for s in 0..samples {
        let q = rng.configuration(model, 3.0);
        let (qd, qdd) = (rng.vec(nv, 2.0), rng.vec(nv, 1.0));
        let f_ext: Vec<ForceVec> = (0..model.num_links())
            .map(|_| rng.force().scale(5.0))
            .collect();
        let ext = if s % 2 == 0 {
            ExtInputs {
                f_ext: Some(&f_ext),
                damping: Some(&damping),
                armature: None,
            }
        } else {
            ExtInputs::default()
        };
        rnea(model, &mut data, &q, &qd, &qdd, &ext).expect("rnea");
        let tau = data.tau.as_slice().to_vec();
        aba(model, &mut data, &q, &qd, &tau, &ext).expect("aba");
        worst = worst.max(max_abs_diff(data.qdd.as_slice(), &qdd));
    }
    worst
}
