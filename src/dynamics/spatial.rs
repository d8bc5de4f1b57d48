//! Featherstone spatial algebra: motion and force vectors, Plücker transforms,
//! rigid-body and articulated-body spatial inertias.
//!
//! Ordering is Featherstone's: angular part first, then linear, for both motion
//! `(ω, v)` and force `(n, f)` vectors. All symbols are in the glossary of
//! [`crate::dynamics`].

use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Skew-symmetric cross-product matrix: `skew(a) * b == a × b`.
pub fn skew(a: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// Spatial motion vector `m = (ω, v)` in M⁶: angular velocity `ω` (rad/s) and the
/// linear velocity `v` (m/s) of the body-fixed point at the frame origin
/// (or the corresponding accelerations, rad/s² and m/s²).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MotionVec {
    /// ω: angular part.
    pub ang: Vector3<f64>,
    /// v: linear part, at the frame origin.
    pub lin: Vector3<f64>,
}

/// Spatial force vector `f = (n, f)` in F⁶: moment `n` (N m) about the frame origin
/// and the resultant force `f` (N) (or momenta: angular, kg m²/s, and linear, kg m/s).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ForceVec {
    /// n: moment about the frame origin.
    pub ang: Vector3<f64>,
    /// f: resultant force.
    pub lin: Vector3<f64>,
}

impl MotionVec {
    /// `(ω, v)`.
    pub fn new(ang: Vector3<f64>, lin: Vector3<f64>) -> Self {
        Self { ang, lin }
    }

    /// The zero motion.
    pub fn zero() -> Self {
        Self::default()
    }

    /// Stacked `[ω; v]` (for tests and 6×6 algebra).
    pub fn to_vector6(&self) -> Vector6<f64> {
        Vector6::new(
            self.ang.x, self.ang.y, self.ang.z, self.lin.x, self.lin.y, self.lin.z,
        )
    }

    /// From stacked `[ω; v]`.
    pub fn from_vector6(x: &Vector6<f64>) -> Self {
        Self {
            ang: Vector3::new(x[0], x[1], x[2]),
            lin: Vector3::new(x[3], x[4], x[5]),
        }
    }

    /// `crm(self) m`: spatial cross product of two motion vectors,
    /// `[ω × ω_m; ω × v_m + v × ω_m]` (Featherstone eq. 2.31).
    pub fn cross_motion(&self, m: &MotionVec) -> MotionVec {
        MotionVec {
            ang: self.ang.cross(&m.ang),
            lin: self.ang.cross(&m.lin) + self.lin.cross(&m.ang),
        }
    }

    /// `crf(self) f = -crm(self)ᵀ f`: motion × force,
    /// `[ω × n + v × f; ω × f]` (Featherstone eq. 2.32).
    pub fn cross_force(&self, f: &ForceVec) -> ForceVec {
        ForceVec {
            ang: self.ang.cross(&f.ang) + self.lin.cross(&f.lin),
            lin: self.ang.cross(&f.lin),
        }
    }

    /// Scalar product `⟨m, f⟩ = ω·n + v·f` (power, W).
    pub fn dot(&self, f: &ForceVec) -> f64 {
        self.ang.dot(&f.ang) + self.lin.dot(&f.lin)
    }

    /// Scaled copy `self * k`.
    pub fn scale(&self, k: f64) -> MotionVec {
        MotionVec {
            ang: self.ang * k,
            lin: self.lin * k,
        }
    }

    /// 6×6 matrix of `crm(self)`: `[ω×, 0; v×, ω×]`.
    pub fn crm_matrix(&self) -> Matrix6<f64> {
        let mut m = Matrix6::zeros();
        let w = skew(&self.ang);
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&w);
        m.fixed_view_mut::<3, 3>(3, 3).copy_from(&w);
        m.fixed_view_mut::<3, 3>(3, 0).copy_from(&skew(&self.lin));
        m
    }

    /// 6×6 matrix of `crf(self) = -crm(self)ᵀ`: `[ω×, v×; 0, ω×]`.
    pub fn crf_matrix(&self) -> Matrix6<f64> {
        -self.crm_matrix().transpose()
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.ang
            .iter()
            .chain(self.lin.iter())
            .all(|x| x.is_finite())
    }
}

impl ForceVec {
    /// `(n, f)`.
    pub fn new(ang: Vector3<f64>, lin: Vector3<f64>) -> Self {
        Self { ang, lin }
    }

    /// The zero force.
    pub fn zero() -> Self {
        Self::default()
    }

    /// Stacked `[n; f]`.
    pub fn to_vector6(&self) -> Vector6<f64> {
        Vector6::new(
            self.ang.x, self.ang.y, self.ang.z, self.lin.x, self.lin.y, self.lin.z,
        )
    }

    /// From stacked `[n; f]`.
    pub fn from_vector6(x: &Vector6<f64>) -> Self {
        Self {
            ang: Vector3::new(x[0], x[1], x[2]),
            lin: Vector3::new(x[3], x[4], x[5]),
        }
    }

    /// Scalar product `⟨m, f⟩`.
    pub fn dot(&self, m: &MotionVec) -> f64 {
        m.dot(self)
    }

    /// Scaled copy `self * k`.
    pub fn scale(&self, k: f64) -> ForceVec {
        ForceVec {
            ang: self.ang * k,
            lin: self.lin * k,
        }
    }

    /// Outer product `self selfᵀ` as a 6×6 matrix (maps motion to force); used for
    /// `U Uᵀ / d` in ABA.
    pub fn outer(&self) -> Matrix6<f64> {
        let x = self.to_vector6();
        x * x.transpose()
    }
}

macro_rules! impl_vec_ops {
    ($t:ty) => {
        impl Add for $t {
            type Output = $t;
            fn add(self, o: $t) -> $t {
                Self {
                    ang: self.ang + o.ang,
                    lin: self.lin + o.lin,
                }
            }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, o: $t) -> $t {
                Self {
                    ang: self.ang - o.ang,
                    lin: self.lin - o.lin,
                }
            }
        }
        impl Neg for $t {
            type Output = $t;
            fn neg(self) -> $t {
                Self {
                    ang: -self.ang,
                    lin: -self.lin,
                }
            }
        }
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) {
                self.ang += o.ang;
                self.lin += o.lin;
            }
        }
        impl SubAssign for $t {
            fn sub_assign(&mut self, o: $t) {
                self.ang -= o.ang;
                self.lin -= o.lin;
            }
        }
        impl Mul<f64> for $t {
            type Output = $t;
            fn mul(self, k: f64) -> $t {
                self.scale(k)
            }
        }
    };
}
impl_vec_ops!(MotionVec);
impl_vec_ops!(ForceVec);

/// Plücker coordinate transform `ᴮX_A` from frame A to frame B, stored as
/// `(E, r)`: `E` rotates A coordinates into B coordinates (a coordinate
/// transform, `E = Rᵀ` where `R` is the orientation of B in A), and `r` is the
/// position of B's origin relative to A's origin, in A coordinates.
///
/// Motion: `ᴮX_A = [E, 0; -E r×, E]`; force: `ᴮX_A* = [E, -E r×; 0, E]`
/// (Featherstone eqs. 2.24–2.26). Acting on a motion is pinocchio's `act`,
/// the inverse application `actInv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialTransform {
    /// E: rotation from A coordinates to B coordinates.
    pub rot: Matrix3<f64>,
    /// r: origin of B relative to the origin of A, in A coordinates (m).
    pub trans: Vector3<f64>,
}

impl Default for SpatialTransform {
    fn default() -> Self {
        Self::identity()
    }
}

impl SpatialTransform {
    /// `(E, r)`.
    pub fn new(rot: Matrix3<f64>, trans: Vector3<f64>) -> Self {
        Self { rot, trans }
    }

    /// The identity transform.
    pub fn identity() -> Self {
        Self {
            rot: Matrix3::identity(),
            trans: Vector3::zeros(),
        }
    }

    /// Pure translation: frame B is frame A shifted by `r` (`xlt(r)`).
    pub fn translation(r: Vector3<f64>) -> Self {
        Self {
            rot: Matrix3::identity(),
            trans: r,
        }
    }

    /// Pure rotation with coordinate-transform matrix `E` (`rot(E)`).
    pub fn rotation(e: Matrix3<f64>) -> Self {
        Self {
            rot: e,
            trans: Vector3::zeros(),
        }
    }

    /// `X m`: a motion vector in A coordinates re-expressed in B (`act`).
    pub fn apply_motion(&self, m: &MotionVec) -> MotionVec {
        MotionVec {
            ang: self.rot * m.ang,
            lin: self.rot * (m.lin - self.trans.cross(&m.ang)),
        }
    }

    /// `X* f`: a force vector in A coordinates re-expressed in B (`act`).
    pub fn apply_force(&self, f: &ForceVec) -> ForceVec {
        ForceVec {
            ang: self.rot * (f.ang - self.trans.cross(&f.lin)),
            lin: self.rot * f.lin,
        }
    }

    /// A world-frame wrench (`math::Wrench`: force, and torque about the world point
    /// `about_w`) as a force vector in this frame's coordinates about its origin,
    /// for `self = ⁱX_0` (E world → link, r the link origin in the world):
    /// n = E (τ + (p − r) × F), f = E F. The one conversion between the engine's
    /// world/COM wrenches and Featherstone's link-frame spatial forces.
    pub fn force_from_world(&self, w: &crate::math::Wrench, about_w: &Vector3<f64>) -> ForceVec {
        let torque_o = w.torque + (about_w - self.trans).cross(&w.force);
        ForceVec::new(self.rot * torque_o, self.rot * w.force)
    }

    /// `X⁻¹ m`: a motion vector in B coordinates re-expressed in A (`actInv`).
    pub fn inv_apply_motion(&self, m: &MotionVec) -> MotionVec {
        let ang = self.rot.tr_mul(&m.ang);
        MotionVec {
            ang,
            lin: self.rot.tr_mul(&m.lin) + self.trans.cross(&ang),
        }
    }

    /// `X* ⁻¹ f = Xᵀ f`: a force vector in B coordinates re-expressed in A
    /// (`actInv`); this is how child forces reach the parent in RNEA/ABA.
    pub fn inv_apply_force(&self, f: &ForceVec) -> ForceVec {
        let lin = self.rot.tr_mul(&f.lin);
        ForceVec {
            ang: self.rot.tr_mul(&f.ang) + self.trans.cross(&lin),
            lin,
        }
    }

    /// A point given in A coordinates, in B coordinates: `E (p − r)`.
    pub fn apply_point(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.rot * (p - self.trans)
    }

    /// A point given in B coordinates, in A coordinates: `Eᵀ p + r`.
    pub fn inv_apply_point(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.rot.tr_mul(p) + self.trans
    }

    /// `ᴬX_B = (ᴮX_A)⁻¹ = (Eᵀ, −E r)`.
    pub fn inverse(&self) -> Self {
        Self {
            rot: self.rot.transpose(),
            trans: -(self.rot * self.trans),
        }
    }

    /// 6×6 motion matrix `[E, 0; -E r×, E]`.
    pub fn to_motion_matrix(&self) -> Matrix6<f64> {
        let mut x = Matrix6::zeros();
        x.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.rot);
        x.fixed_view_mut::<3, 3>(3, 3).copy_from(&self.rot);
        x.fixed_view_mut::<3, 3>(3, 0)
            .copy_from(&(-self.rot * skew(&self.trans)));
        x
    }

    /// 6×6 force matrix `X* = X⁻ᵀ = [E, -E r×; 0, E]`.
    pub fn to_force_matrix(&self) -> Matrix6<f64> {
        let mut x = Matrix6::zeros();
        x.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.rot);
        x.fixed_view_mut::<3, 3>(3, 3).copy_from(&self.rot);
        x.fixed_view_mut::<3, 3>(0, 3)
            .copy_from(&(-self.rot * skew(&self.trans)));
        x
    }

    /// True when every entry is finite.
    pub fn is_finite(&self) -> bool {
        self.rot
            .iter()
            .chain(self.trans.iter())
            .all(|x| x.is_finite())
    }
}

/// Composition `ᶜX_A = ᶜX_B * ᴮX_A`: `E = E_cb E_ba`, `r = r_ba + E_baᵀ r_cb`.
impl Mul for SpatialTransform {
    type Output = SpatialTransform;
    fn mul(self, rhs: SpatialTransform) -> SpatialTransform {
        SpatialTransform {
            rot: self.rot * rhs.rot,
            trans: rhs.trans + rhs.rot.tr_mul(&self.trans),
        }
    }
}

/// Rigid-body spatial inertia `I = [Ī + m c×c×ᵀ, m c×; m c×ᵀ, m 1]`
/// (Featherstone eq. 2.63) from mass `m` (kg), centre of mass `c` (m, in the
/// frame) and rotational inertia `Ī` about the centre of mass (kg m², frame axes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialInertia {
    /// m: mass (kg).
    pub mass: f64,
    /// c: centre of mass in this frame (m).
    pub com: Vector3<f64>,
    /// Ī: rotational inertia about the centre of mass, in this frame's axes (kg m²).
    pub inertia_com: Matrix3<f64>,
}

impl Default for SpatialInertia {
    fn default() -> Self {
        Self::zero()
    }
}

impl SpatialInertia {
    /// `(m, c, Ī)`.
    pub fn new(mass: f64, com: Vector3<f64>, inertia_com: Matrix3<f64>) -> Self {
        Self {
            mass,
            com,
            inertia_com,
        }
    }

    /// The zero inertia (massless).
    pub fn zero() -> Self {
        Self {
            mass: 0.0,
            com: Vector3::zeros(),
            inertia_com: Matrix3::zeros(),
        }
    }

    /// A point mass `m` at `c`.
    pub fn point_mass(mass: f64, com: Vector3<f64>) -> Self {
        Self::new(mass, com, Matrix3::zeros())
    }

    /// 6×6 matrix form (eq. 2.63).
    pub fn to_matrix(&self) -> Matrix6<f64> {
        let cx = skew(&self.com);
        let mut i = Matrix6::zeros();
        i.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(self.inertia_com + self.mass * cx * cx.transpose()));
        i.fixed_view_mut::<3, 3>(0, 3).copy_from(&(self.mass * cx));
        i.fixed_view_mut::<3, 3>(3, 0)
            .copy_from(&(self.mass * cx.transpose()));
        i.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(self.mass * Matrix3::identity()));
        i
    }

    /// As an articulated-body inertia (for the start of ABA's backward pass).
    pub fn to_articulated(&self) -> ArticulatedInertia {
        ArticulatedInertia(self.to_matrix())
    }

    /// `ᴮX_A* I ᴬX_B`: this inertia (expressed in A) re-expressed in B, where
    /// `x = ᴮX_A`: `c' = E (c − r)`, `Ī' = E Ī Eᵀ`.
    pub fn transform(&self, x: &SpatialTransform) -> SpatialInertia {
        SpatialInertia {
            mass: self.mass,
            com: x.apply_point(&self.com),
            inertia_com: x.rot * self.inertia_com * x.rot.transpose(),
        }
    }

    /// `ᴮX_Aᵀ I ᴮX_A`: this inertia (expressed in B) re-expressed in A, where
    /// `x = ᴮX_A` (e.g. `xup[i]`, moving a child's inertia to its parent).
    pub fn inv_transform(&self, x: &SpatialTransform) -> SpatialInertia {
        SpatialInertia {
            mass: self.mass,
            com: x.inv_apply_point(&self.com),
            inertia_com: x.rot.transpose() * self.inertia_com * x.rot,
        }
    }
}

/// `I m`: `f = m (v − c × ω)`, `n = Ī ω + c × f`.
impl Mul<&MotionVec> for &SpatialInertia {
    type Output = ForceVec;
    fn mul(self, m: &MotionVec) -> ForceVec {
        let lin = self.mass * (m.lin - self.com.cross(&m.ang));
        ForceVec {
            ang: self.inertia_com * m.ang + self.com.cross(&lin),
            lin,
        }
    }
}

impl Mul<MotionVec> for SpatialInertia {
    type Output = ForceVec;
    fn mul(self, m: MotionVec) -> ForceVec {
        &self * &m
    }
}

/// Sum of two rigid bodies expressed in the same frame (parallel-axis theorem
/// about the combined centre of mass).
impl Add for SpatialInertia {
    type Output = SpatialInertia;
    fn add(self, o: SpatialInertia) -> SpatialInertia {
        let mass = self.mass + o.mass;
        if mass <= 0.0 {
            return SpatialInertia::zero();
        }
        let com = (self.com * self.mass + o.com * o.mass) / mass;
        let d1 = skew(&(self.com - com));
        let d2 = skew(&(o.com - com));
        let inertia_com = self.inertia_com
            + o.inertia_com
            + self.mass * d1 * d1.transpose()
            + o.mass * d2 * d2.transpose();
        SpatialInertia {
            mass,
            com,
            inertia_com,
        }
    }
}

impl AddAssign for SpatialInertia {
    fn add_assign(&mut self, o: SpatialInertia) {
        *self = *self + o;
    }
}

/// Articulated-body inertia `Iᴬ` (Featherstone ch. 7): a symmetric positive
/// semi-definite 6×6 map from motion to force that, unlike a rigid-body
/// inertia, has no `(m, c, Ī)` form. Rows/columns ordered `[ang; lin]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArticulatedInertia(pub Matrix6<f64>);

impl Default for ArticulatedInertia {
    fn default() -> Self {
        ArticulatedInertia(Matrix6::zeros())
    }
}

impl ArticulatedInertia {
    /// `Iᴬ m`.
    pub fn mul_motion(&self, m: &MotionVec) -> ForceVec {
        ForceVec::from_vector6(&(self.0 * m.to_vector6()))
    }

    /// `ᴮX_Aᵀ Iᴬ ᴮX_A` with `x = ᴮX_A`: the inertia (expressed in B) in A.
    ///
    /// In 3×3 blocks: with `X = diag(E, E) [1, 0; −r×, 1]` and
    /// `Iᴬ = [A, B; Bᵀ, C]`, first `A' = EᵀAE`, `B' = EᵀBE`, `C' = EᵀCE`, then
    /// with `Q = r×C'` and `P = B'r×` (so that `r×B'ᵀ = −Pᵀ` and
    /// `r×C'r× = Q r×`, since `r×ᵀ = −r×`):
    /// `XᵀIᴬX = [A' − P − Pᵀ − Q r×, B' + Q; (B' + Q)ᵀ, C']`.
    /// `Iᴬ` is symmetric: only the upper triangles of `A`, `C` are read, only
    /// those of `A'`, `C'` and the top-left block computed, and the result is
    /// exactly symmetric (mirrored). The products by `r×` are cross products
    /// (6 multiplications per column, not 9).
    pub fn inv_transform(&self, x: &SpatialTransform) -> ArticulatedInertia {
        let mut out = Matrix6::zeros();
        self.congruence_into(x, &mut out, |o, v| *o = v);
        ArticulatedInertia(out)
    }

    /// `out += ᴮX_Aᵀ Iᴬ ᴮX_A` ([`Self::inv_transform`] added in place, entry by
    /// entry, the same sums as adding its result): ABA's (A6) without the
    /// intermediate matrix.
    pub fn add_inv_transform_to(&self, x: &SpatialTransform, out: &mut ArticulatedInertia) {
        self.congruence_into(x, &mut out.0, |o, v| *o += v);
    }

    /// The entries of `XᵀIᴬX` handed to `put(out entry, value)`.
    #[allow(clippy::needless_range_loop)] // the mirroring loops index (i, j) and (j, i)
    #[inline(always)]
    fn congruence_into(
        &self,
        x: &SpatialTransform,
        out: &mut Matrix6<f64>,
        put: impl Fn(&mut f64, f64),
    ) {
        let m = &self.0;
        let e = &x.rot;
        let r = &x.trans;
        let e_at = |i: usize, j: usize| e[(i, j)];
        // Eᵀ S E of a symmetric 3×3 block S at (o, o): T = S E, then the upper
        // triangle of Eᵀ T.
        let sym_congruence = |o: usize| {
            let s = |i: usize, j: usize| {
                if i <= j {
                    m[(o + i, o + j)]
                } else {
                    m[(o + j, o + i)]
                }
            };
            let mut t = [[0.0; 3]; 3];
            for (i, row) in t.iter_mut().enumerate() {
                for (j, tij) in row.iter_mut().enumerate() {
                    *tij = s(i, 0) * e_at(0, j) + s(i, 1) * e_at(1, j) + s(i, 2) * e_at(2, j);
                }
            }
            let mut out = [[0.0; 3]; 3];
            for i in 0..3 {
                for j in i..3 {
                    let v = e_at(0, i) * t[0][j] + e_at(1, i) * t[1][j] + e_at(2, i) * t[2][j];
                    out[i][j] = v;
                    out[j][i] = v;
                }
            }
            out
        };
        let a1 = sym_congruence(0);
        let c1 = sym_congruence(3);
        // B' = Eᵀ (B E), full.
        let mut t = [[0.0; 3]; 3];
        for (i, row) in t.iter_mut().enumerate() {
            for (j, tij) in row.iter_mut().enumerate() {
                *tij = m[(i, 3)] * e_at(0, j) + m[(i, 4)] * e_at(1, j) + m[(i, 5)] * e_at(2, j);
            }
        }
        let mut b1 = [[0.0; 3]; 3];
        for (i, row) in b1.iter_mut().enumerate() {
            for (j, bij) in row.iter_mut().enumerate() {
                *bij = e_at(0, i) * t[0][j] + e_at(1, i) * t[1][j] + e_at(2, i) * t[2][j];
            }
        }
        // Q = r×C' column by column: Q[:, j] = r × C'[:, j].
        let mut q = [[0.0; 3]; 3];
        for j in 0..3 {
            let c = [c1[0][j], c1[1][j], c1[2][j]];
            q[0][j] = r.y * c[2] - r.z * c[1];
            q[1][j] = r.z * c[0] - r.x * c[2];
            q[2][j] = r.x * c[1] - r.y * c[0];
        }
        // Row i of (M r×) is (row i of M) × r.
        let times_rx = |row: &[f64; 3]| {
            [
                row[1] * r.z - row[2] * r.y,
                row[2] * r.x - row[0] * r.z,
                row[0] * r.y - row[1] * r.x,
            ]
        };
        let p = [times_rx(&b1[0]), times_rx(&b1[1]), times_rx(&b1[2])];
        let qrx = [times_rx(&q[0]), times_rx(&q[1]), times_rx(&q[2])];
        for i in 0..3 {
            for j in 0..3 {
                let tr = b1[i][j] + q[i][j];
                put(&mut out[(i, j + 3)], tr);
                put(&mut out[(j + 3, i)], tr);
            }
            for j in i..3 {
                let tl = a1[i][j] - p[i][j] - p[j][i] - qrx[i][j];
                put(&mut out[(i, j)], tl);
                put(&mut out[(i + 3, j + 3)], c1[i][j]);
                if j != i {
                    put(&mut out[(j, i)], tl);
                    put(&mut out[(j + 3, i + 3)], c1[i][j]);
                }
            }
        }
    }
}

impl Mul<&MotionVec> for &ArticulatedInertia {
    type Output = ForceVec;
    fn mul(self, m: &MotionVec) -> ForceVec {
        self.mul_motion(m)
    }
}
