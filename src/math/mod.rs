//! Small math vocabulary shared by every module: f64 nalgebra aliases, rigid poses,
//! wrenches, and a deterministic random generator for experiments.
//!
//! Frame naming follows the monogram habit: `x_wb` is the pose of frame B in W,
//! `p_w` a point in world coordinates, `v_w` a velocity expressed in W.

pub type Vec3 = nalgebra::Vector3<f64>;
pub type Mat3 = nalgebra::Matrix3<f64>;
pub type Quat = nalgebra::UnitQuaternion<f64>;
pub type Pose = nalgebra::Isometry3<f64>;
pub type Point3 = nalgebra::Point3<f64>;
/// Planar vectors and poses (x, y, θ), for planar worlds.
pub type Vec2 = nalgebra::Vector2<f64>;
pub type Pose2 = nalgebra::Isometry2<f64>;
pub type Point2 = nalgebra::Point2<f64>;

/// A force and a torque (about the body's centre of mass), both in world coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Wrench {
    /// N, world frame.
    pub force: Vec3,
    /// N·m about the centre of mass, world frame.
    pub torque: Vec3,
}

impl Wrench {
    pub const ZERO: Wrench = Wrench {
        force: Vec3::new(0.0, 0.0, 0.0),
        torque: Vec3::new(0.0, 0.0, 0.0),
    };

    /// Wrench about `com_w` of a force `f_w` applied at world point `p_w`.
    #[inline]
    pub fn at_point(f_w: Vec3, p_w: Vec3, com_w: Vec3) -> Wrench {
        Wrench {
            force: f_w,
            torque: (p_w - com_w).cross(&f_w),
        }
    }

    #[inline]
    pub fn add_force_at(&mut self, f_w: Vec3, p_w: Vec3, com_w: Vec3) {
        self.force += f_w;
        self.torque += (p_w - com_w).cross(&f_w);
    }

    #[inline]
    pub fn is_finite(&self) -> bool {
        self.force
            .iter()
            .chain(self.torque.iter())
            .all(|c| c.is_finite())
    }
}

impl std::ops::AddAssign for Wrench {
    fn add_assign(&mut self, o: Wrench) {
        self.force += o.force;
        self.torque += o.torque;
    }
}

/// Skew-symmetric cross-product matrix: `skew(a) * b == a × b`.
#[inline]
pub fn skew(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// Two unit vectors orthogonal to `n` and to each other (a right-handed tangent basis).
#[inline]
pub fn tangent_basis(n: &Vec3) -> (Vec3, Vec3) {
    // Pick the axis least aligned with n for a well-conditioned cross product.
    let a = if n.x.abs() < 0.57735 {
        Vec3::x()
    } else if n.y.abs() < 0.57735 {
        Vec3::y()
    } else {
        Vec3::z()
    };
    let t1 = n.cross(&a).normalize();
    let t2 = n.cross(&t1);
    (t1, t2)
}

/// Deterministic SplitMix64 generator: identical sequences on every machine, so
/// experiments (random orientations, random perturbations, piles) are reproducible
/// bit for bit from their seed.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Uniformly distributed rotation (Shoemake's method).
    pub fn rotation(&mut self) -> Quat {
        let (u1, u2, u3) = (self.next_f64(), self.next_f64(), self.next_f64());
        let tau = std::f64::consts::TAU;
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let q = nalgebra::Quaternion::new(
            b * (tau * u3).cos(),
            a * (tau * u2).sin(),
            a * (tau * u2).cos(),
            b * (tau * u3).sin(),
        );
        Quat::new_normalize(q)
    }
}

/// Solves the dense `k×k` system `a x = b` (row-major) in place by Gaussian
/// elimination with partial pivoting; the solution in `b`. False when a pivot
/// is not above 1e-12 of the matrix's largest entry, or not finite.
pub fn solve_dense(a: &mut [f64], b: &mut [f64], k: usize) -> bool {
    let scale = a.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if !scale.is_finite() || scale <= 0.0 {
        return false;
    }
    for c in 0..k {
        let (mut piv, mut best) = (c, a[c * k + c].abs());
        for r in c + 1..k {
            if a[r * k + c].abs() > best {
                (piv, best) = (r, a[r * k + c].abs());
            }
        }
        if best.is_nan() || best <= 1e-12 * scale {
            return false;
        }
        if piv != c {
            for j in 0..k {
                a.swap(c * k + j, piv * k + j);
            }
            b.swap(c, piv);
        }
        let d = a[c * k + c];
        for r in c + 1..k {
            let f = a[r * k + c] / d;
            if f != 0.0 {
                for j in c..k {
                    a[r * k + j] -= f * a[c * k + j];
                }
                b[r] -= f * b[c];
            }
        }
    }
    for c in (0..k).rev() {
        let mut t = b[c];
        for j in c + 1..k {
            t -= a[c * k + j] * b[j];
        }
        b[c] = t / a[c * k + c];
    }
    b.iter().all(|v| v.is_finite())
}
