//! The immutable kinematic tree [`ArticulatedModel`] (built and validated by
//! [`ArticulatedModelBuilder`]) and its mutable, preallocated scratch
//! [`ArticulatedData`].
//!
//! Links are numbered `0..n` so that `parent[i] < i` (Featherstone's regular
//! numbering); `parent[i] == None` means the link hangs from the base (the
//! world). Joint `i` owns `Joint::nq()` entries of `q` starting at
//! `q_index[i]` and `Joint::nv()` entries of `q̇`, `q̈`, `τ` starting at
//! `v_index[i]` (both `None` for `Fixed`); only the floating joint has
//! `nq (7) ≠ nv (6)`. Degrees of freedom are numbered in link order, so the
//! DOF parent array `λ` (`dof_parent`) also satisfies `λ(k) < k`.
//!
//! TODO(robots): spherical and planar joints, joint limits.

use super::spatial::{ArticulatedInertia, ForceVec, MotionVec, SpatialInertia, SpatialTransform};
use nalgebra::{DMatrix, DVector, Quaternion, Rotation3, Unit, UnitQuaternion, Vector3};

/// Errors from building a model or calling the dynamics algorithms. The
/// algorithms never panic; they return one of these instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DynamicsError {
    /// `parent[link]` must be a smaller index (regular numbering).
    #[error("link {link}: parent {parent} must have a smaller index")]
    ParentOrder { link: usize, parent: usize },
    /// A joint axis must be a finite unit vector.
    #[error("link {link}: joint axis is not a unit vector (|axis| = {norm})")]
    NonUnitAxis { link: usize, norm: f64 },
    /// Mass must be positive and finite; `Ī` symmetric, positive semi-definite
    /// and obeying the triangle inequality of principal moments.
    #[error("link {link}: non-physical inertia: {reason}")]
    NonPhysicalInertia { link: usize, reason: &'static str },
    /// `x_tree[link]` or gravity contains a non-finite value or `E` is not a rotation.
    #[error("link {link}: invalid tree transform: {reason}")]
    InvalidTransform { link: usize, reason: &'static str },
    /// Gravity must be finite.
    #[error("gravity is not finite")]
    NonFiniteGravity,
    /// An input slice has the wrong length.
    #[error("{what}: expected length {expected}, got {got}")]
    InputLength {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A floating joint is only allowed on a root link (`parent == None`).
    #[error(
        "link {link}: a floating joint must be on a root link, but its parent is link {parent}"
    )]
    FloatingNotRoot { link: usize, parent: usize },
    /// A floating joint's quaternion in `q` has a zero or non-finite norm.
    #[error("link {link}: floating-joint quaternion has norm {norm}; expected ≈ 1")]
    InvalidQuaternion { link: usize, norm: f64 },
    /// The [`ArticulatedData`] was made for a different model.
    #[error("data was made for another model ({links} links, {nv} DOFs)")]
    DataMismatch { links: usize, nv: usize },
    /// A link index outside `0..num_links`.
    #[error("link index {link} out of range (the model has {num_links} links)")]
    LinkIndex { link: usize, num_links: usize },
    /// `solve_mass` was called before `factor_mass` (after the last `crba`).
    #[error("the mass matrix is not factored: call crba then factor_mass")]
    MassNotFactored,
    /// The mass matrix is not positive definite (pivot `H_kk ≤ 0` in `LᵀL`).
    #[error("mass matrix not positive definite at DOF {dof} (pivot {pivot})")]
    MassNotPositiveDefinite { dof: usize, pivot: f64 },
    /// ABA met a joint whose articulated inertia about its axis, `d[i]`, is not
    /// positive and finite (a massless subtree or non-finite state); for a
    /// floating root, its 6×6 `Iᴬ` is not positive definite (`d` is then the
    /// smallest diagonal entry) or the solve is not finite.
    #[error("link {link}: articulated joint inertia d = {d} is not positive")]
    SingularJoint { link: usize, d: f64 },
    /// The implicit step's matrix `M̃ + hθ D` ([`super::implicit`]) has a zero
    /// or non-finite pivot.
    #[error("the implicit velocity-product step's matrix M + h theta D is singular")]
    Singular,
}

/// A joint between `parent[i]` and link `i`. Axes are unit vectors in the
/// joint's predecessor frame (which coincides with the link frame at `q = 0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Joint {
    /// Rotation by `q` (rad) about the axis; `s = [axis; 0]`.
    Revolute(Unit<Vector3<f64>>),
    /// Translation by `q` (m) along the axis; `s = [0; axis]`.
    Prismatic(Unit<Vector3<f64>>),
    /// Welded; no degree of freedom.
    Fixed,
    /// Six degrees of freedom (a free-flying base), allowed on root links only.
    /// `q = [x, y, z, qw, qx, qy, qz]`: the link origin `p` in the predecessor
    /// frame (the world when `x_tree` is the identity) and the unit quaternion
    /// `Q` rotating link coordinates into predecessor coordinates. `q̇`-space
    /// (length 6) is the link's spatial velocity `[ω; v]` in **link**
    /// coordinates (Featherstone's body coordinates; `v` is the velocity of
    /// the link origin), so the motion subspace is `S = 1₆` (eq. (F1) of
    /// [`crate::dynamics`]). The quaternion is normalized where it is used,
    /// so the intermediate stages of an explicit integrator may leave it
    /// slightly off the unit sphere; see [`super::configuration::normalize`].
    Floating,
}

impl Joint {
    /// Number of configuration coordinates (0, 1, or 7 for `Floating`).
    pub fn nq(&self) -> usize {
        match self {
            Joint::Revolute(_) | Joint::Prismatic(_) => 1,
            Joint::Fixed => 0,
            Joint::Floating => 7,
        }
    }

    /// Number of degrees of freedom (0, 1, or 6 for `Floating`).
    pub fn nv(&self) -> usize {
        match self {
            Joint::Revolute(_) | Joint::Prismatic(_) => 1,
            Joint::Fixed => 0,
            Joint::Floating => 6,
        }
    }

    /// `XJ(q)`: the transform from the predecessor frame to the link frame
    /// (Featherstone Table 4.1); `q` is this joint's slice of the
    /// configuration (length `nq()`; missing entries read as zero and a
    /// degenerate quaternion as the identity — the algorithms reject both
    /// before calling this). For the floating joint `XJ = (E = Rᵀ, r = p)`
    /// with `R` the rotation of the normalized quaternion (eq. (F2)).
    pub fn transform(&self, q: &[f64]) -> SpatialTransform {
        let at = |k: usize| q.get(k).copied().unwrap_or(0.0);
        match self {
            Joint::Revolute(axis) => {
                // E = R(axis, q)ᵀ: coordinates in the rotated (successor) frame
                SpatialTransform::rotation(
                    Rotation3::from_axis_angle(axis, at(0)).matrix().transpose(),
                )
            }
            Joint::Prismatic(axis) => SpatialTransform::translation(axis.into_inner() * at(0)),
            Joint::Fixed => SpatialTransform::identity(),
            Joint::Floating => {
                let r = quaternion_at(q, 3).to_rotation_matrix();
                SpatialTransform::new(r.matrix().transpose(), Vector3::new(at(0), at(1), at(2)))
            }
        }
    }

    /// Motion subspace `s` of a one-DoF joint, constant in the link frame
    /// (zero for `Fixed`; `Floating` has `S = 1₆`, handled by the algorithms).
    pub fn motion_subspace(&self) -> MotionVec {
        match self {
            Joint::Revolute(axis) => MotionVec::new(axis.into_inner(), Vector3::zeros()),
            Joint::Prismatic(axis) => MotionVec::new(Vector3::zeros(), axis.into_inner()),
            Joint::Fixed | Joint::Floating => MotionVec::zero(),
        }
    }
}

/// `Some(k)` when the motion subspace of `joint` is exactly `e_k` of `[ω; v]`
/// (its other entries `+0.0`, so that `s.scale(x)` has `0.0 * x` there, as
/// [`joint_motion`] builds it).
fn coordinate_axis(joint: &Joint) -> Option<usize> {
    let s = match joint {
        Joint::Revolute(_) | Joint::Prismatic(_) => joint.motion_subspace().to_vector6(),
        Joint::Fixed | Joint::Floating => return None,
    };
    let k = s.iter().position(|&x| x == 1.0)?;
    s.iter()
        .enumerate()
        .all(|(j, &x)| j == k || x.to_bits() == 0)
        .then_some(k)
}

/// The (normalized) unit quaternion stored as `[w, x, y, z]` at `q[k..k + 4]`;
/// the identity if it is missing, zero or not finite.
pub(crate) fn quaternion_at(q: &[f64], k: usize) -> UnitQuaternion<f64> {
    match q.get(k..k + 4) {
        Some(c) => {
            let quat = Quaternion::new(c[0], c[1], c[2], c[3]);
            let n = quat.norm();
            if n.is_finite() && n > 0.0 {
                UnitQuaternion::new_unchecked(quat / n)
            } else {
                UnitQuaternion::identity()
            }
        }
        None => UnitQuaternion::identity(),
    }
}

/// An immutable kinematic tree in generalized coordinates (Featherstone's
/// `model` struct): only [`ArticulatedModelBuilder::finalize`] makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticulatedModel {
    parent: Vec<Option<usize>>,
    joint: Vec<Joint>,
    x_tree: Vec<SpatialTransform>,
    inertia: Vec<SpatialInertia>,
    /// `inertia[i]` as a 6×6 matrix, the articulated inertia ABA starts from.
    inertia_matrix: Vec<ArticulatedInertia>,
    /// `Some(k)` when a one-DoF joint's `s` is exactly the `k`-th unit vector of
    /// `[ω; v]` (a revolute or prismatic joint about a link coordinate axis, as
    /// in DH-style URDFs): ABA takes `U = Iᴬ s` as column `k` and `sᵀ pᴬ` as
    /// entry `k` (the same numbers as the products, without them).
    axis: Vec<Option<usize>>,
    /// Links welded to the world: no joint DoF between them and the base (a
    /// fixed root and its fixed descendants). ABA reads their articulated
    /// inertia and bias force nowhere, so it does not form them.
    welded: Vec<bool>,
    q_index: Vec<Option<usize>>,
    v_index: Vec<Option<usize>>,
    dof_parent: Vec<Option<usize>>,
    gravity: Vector3<f64>,
    nq: usize,
    nv: usize,
}

impl ArticulatedModel {
    /// Number of links (bodies).
    pub fn num_links(&self) -> usize {
        self.parent.len()
    }
    /// Length of the configuration `q` (`= nv` without floating joints).
    pub fn nq(&self) -> usize {
        self.nq
    }
    /// Number of degrees of freedom (= length of `q̇`, `q̈`, `τ`).
    pub fn nv(&self) -> usize {
        self.nv
    }
    /// `parent[i]`; `None` for links attached to the base (world).
    pub fn parent(&self) -> &[Option<usize>] {
        &self.parent
    }
    /// The joint of each link.
    pub fn joint(&self) -> &[Joint] {
        &self.joint
    }
    /// `x_tree[i] = ᵖʳᵉᵈX_parent`: fixed transform from the parent link frame
    /// (or the base) to joint `i`'s predecessor frame.
    pub fn x_tree(&self) -> &[SpatialTransform] {
        &self.x_tree
    }
    /// Spatial inertia of each link in its own frame.
    pub fn inertia(&self) -> &[SpatialInertia] {
        &self.inertia
    }
    /// `inertia()[i]` as a 6×6 matrix (ABA's initial `Iᴬ_i`, eq. (A3)).
    pub(crate) fn inertia_matrix(&self) -> &[ArticulatedInertia] {
        &self.inertia_matrix
    }
    /// Per link, the coordinate `k` with `s = e_k` (see the field), else `None`.
    pub(crate) fn axis(&self) -> &[Option<usize>] {
        &self.axis
    }
    /// Per link, whether it is welded to the world (see the field).
    pub(crate) fn welded(&self) -> &[bool] {
        &self.welded
    }
    /// Start of each joint's coordinates in `q` (`None` for `Fixed`).
    pub fn q_index(&self) -> &[Option<usize>] {
        &self.q_index
    }
    /// Start of each joint's coordinates in `q̇`, `q̈`, `τ` (`None` for `Fixed`).
    pub fn v_index(&self) -> &[Option<usize>] {
        &self.v_index
    }
    /// DOF parent array `λ(k)` of the expanded tree (Featherstone §6.5): the
    /// previous DOF of the same joint, else the last DOF of the nearest
    /// ancestor joint that has one; `None` at a root. `λ(k) < k`. It gives
    /// the sparsity of `H` (`H_ij ≠ 0` only if `i` is an ancestor of `j` or
    /// vice versa), which `factor_mass` exploits.
    pub fn dof_parent(&self) -> &[Option<usize>] {
        &self.dof_parent
    }
    /// Gravitational acceleration `a_g` in base coordinates (m/s²), e.g. `(0, 0, -9.81)`.
    pub fn gravity(&self) -> Vector3<f64> {
        self.gravity
    }
    /// Total mass of the tree (kg).
    pub fn total_mass(&self) -> f64 {
        self.inertia.iter().map(|i| i.mass).sum()
    }
    /// Spatial acceleration of the base that stands in for gravity: `a₀ = −a_g`.
    pub(crate) fn base_acceleration(&self) -> MotionVec {
        MotionVec::new(Vector3::zeros(), -self.gravity)
    }

    /// Check an input vector of length `nv`.
    pub(crate) fn check_len(&self, what: &'static str, got: usize) -> Result<(), DynamicsError> {
        if got == self.nv {
            Ok(())
        } else {
            Err(DynamicsError::InputLength {
                what,
                expected: self.nv,
                got,
            })
        }
    }

    /// Check a configuration: length `nq`, every floating joint's quaternion
    /// of finite, non-negligible norm (it need not be exactly 1).
    pub(crate) fn check_q(&self, q: &[f64]) -> Result<(), DynamicsError> {
        if q.len() != self.nq {
            return Err(DynamicsError::InputLength {
                what: "q",
                expected: self.nq,
                got: q.len(),
            });
        }
        for (i, j) in self.joint.iter().enumerate() {
            if let (Joint::Floating, Some(k)) = (j, self.q_index[i]) {
                let norm = q
                    .get(k + 3..k + 7)
                    .map_or(f64::NAN, |c| c.iter().map(|x| x * x).sum::<f64>().sqrt());
                if !(norm.is_finite() && norm > 1e-6) {
                    return Err(DynamicsError::InvalidQuaternion { link: i, norm });
                }
            }
        }
        Ok(())
    }

    /// Check that `data` was made for a model of this shape.
    pub(crate) fn check_data(&self, data: &ArticulatedData) -> Result<(), DynamicsError> {
        let n = self.num_links();
        let ok = [
            data.xup.len(),
            data.x_base.len(),
            data.s.len(),
            data.v.len(),
            data.a.len(),
            data.f.len(),
            data.ia.len(),
            data.pa.len(),
            data.big_u.len(),
            data.d.len(),
            data.u.len(),
            data.c.len(),
            data.ic.len(),
        ]
        .iter()
        .all(|&l| l == n)
            && data.mass_matrix.nrows() == self.nv
            && data.mass_matrix.ncols() == self.nv
            && data.mass_factor.nrows() == self.nv
            && data.mass_factor.ncols() == self.nv
            && data.tau.len() == self.nv
            && data.qdd.len() == self.nv
            && data.dof_parent == self.dof_parent;
        if ok {
            Ok(())
        } else {
            Err(DynamicsError::DataMismatch {
                links: data.xup.len(),
                nv: data.tau.len(),
            })
        }
    }

    /// Check a link index.
    pub(crate) fn check_link(&self, link: usize) -> Result<(), DynamicsError> {
        if link < self.num_links() {
            Ok(())
        } else {
            Err(DynamicsError::LinkIndex {
                link,
                num_links: self.num_links(),
            })
        }
    }
}

/// Builds an [`ArticulatedModel`] link by link and validates it in `finalize`.
#[derive(Debug, Clone, Default)]
pub struct ArticulatedModelBuilder {
    parent: Vec<Option<usize>>,
    joint: Vec<Joint>,
    x_tree: Vec<SpatialTransform>,
    inertia: Vec<SpatialInertia>,
    gravity: Vector3<f64>,
}

impl ArticulatedModelBuilder {
    /// An empty tree with gravity `(0, 0, -9.81)` m/s².
    pub fn new() -> Self {
        Self {
            gravity: Vector3::new(0.0, 0.0, -9.81),
            ..Default::default()
        }
    }

    /// Set gravity (m/s², base coordinates).
    pub fn gravity(mut self, g: Vector3<f64>) -> Self {
        self.gravity = g;
        self
    }

    /// Append link `i = num_links()`: `parent` (must be `< i` or `None`), its
    /// joint, `x_tree = ᵖʳᵉᵈX_parent` and its inertia in the link frame.
    /// Returns the new link's index.
    pub fn add_link(
        &mut self,
        parent: Option<usize>,
        joint: Joint,
        x_tree: SpatialTransform,
        inertia: SpatialInertia,
    ) -> usize {
        self.parent.push(parent);
        self.joint.push(joint);
        self.x_tree.push(x_tree);
        self.inertia.push(inertia);
        self.parent.len() - 1
    }

    /// Validate and freeze.
    pub fn finalize(self) -> Result<ArticulatedModel, DynamicsError> {
        if !self.gravity.iter().all(|x| x.is_finite()) {
            return Err(DynamicsError::NonFiniteGravity);
        }
        let n = self.parent.len();
        let (mut q_index, mut v_index) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut dof_parent = Vec::new();
        // last DOF of each link's nearest ancestor-or-self joint with DOFs
        let mut last_dof: Vec<Option<usize>> = Vec::with_capacity(n);
        let (mut nq, mut nv) = (0, 0);
        for i in 0..n {
            if let Some(p) = self.parent[i] {
                if p >= i {
                    return Err(DynamicsError::ParentOrder { link: i, parent: p });
                }
            }
            match self.joint[i] {
                Joint::Revolute(a) | Joint::Prismatic(a) => {
                    let norm = a.norm();
                    if !norm.is_finite() || (norm - 1.0).abs() > 1e-9 {
                        return Err(DynamicsError::NonUnitAxis { link: i, norm });
                    }
                }
                Joint::Floating => {
                    if let Some(p) = self.parent[i] {
                        return Err(DynamicsError::FloatingNotRoot { link: i, parent: p });
                    }
                }
                Joint::Fixed => {}
            }
            check_transform(i, &self.x_tree[i])?;
            check_inertia(i, &self.inertia[i])?;
            let inherited = self.parent[i].and_then(|p| last_dof[p]);
            let (jq, jv) = (self.joint[i].nq(), self.joint[i].nv());
            if jv > 0 {
                q_index.push(Some(nq));
                v_index.push(Some(nv));
                for k in nv..nv + jv {
                    dof_parent.push(if k == nv { inherited } else { Some(k - 1) });
                }
                nq += jq;
                nv += jv;
                last_dof.push(Some(nv - 1));
            } else {
                q_index.push(None);
                v_index.push(None);
                last_dof.push(inherited);
            }
        }
        let inertia_matrix = self.inertia.iter().map(|i| i.to_articulated()).collect();
        let axis = self.joint.iter().map(coordinate_axis).collect();
        // No DoF on the path to the base (`last_dof` none): welded to the world.
        let welded = last_dof.iter().map(Option::is_none).collect();
        Ok(ArticulatedModel {
            parent: self.parent,
            joint: self.joint,
            x_tree: self.x_tree,
            inertia: self.inertia,
            inertia_matrix,
            axis,
            welded,
            q_index,
            v_index,
            dof_parent,
            gravity: self.gravity,
            nq,
            nv,
        })
    }
}

fn check_transform(link: usize, x: &SpatialTransform) -> Result<(), DynamicsError> {
    if !x.is_finite() {
        return Err(DynamicsError::InvalidTransform {
            link,
            reason: "non-finite entry",
        });
    }
    let ortho = (x.rot * x.rot.transpose() - nalgebra::Matrix3::identity()).amax();
    if ortho > 1e-9 || x.rot.determinant() < 0.0 {
        return Err(DynamicsError::InvalidTransform {
            link,
            reason: "E is not a proper rotation",
        });
    }
    Ok(())
}

fn check_inertia(link: usize, inertia: &SpatialInertia) -> Result<(), DynamicsError> {
    let bad = |reason| Err(DynamicsError::NonPhysicalInertia { link, reason });
    if !(inertia.mass.is_finite() && inertia.mass > 0.0) {
        return bad("mass must be positive and finite");
    }
    let ic = inertia.inertia_com;
    if !ic.iter().chain(inertia.com.iter()).all(|x| x.is_finite()) {
        return bad("non-finite centre of mass or inertia");
    }
    let scale = ic.amax().max(f64::MIN_POSITIVE);
    if (ic - ic.transpose()).amax() > 1e-9 * scale {
        return bad("rotational inertia is not symmetric");
    }
    // principal moments: PSD and triangle inequality I₁ + I₂ ≥ I₃
    let ev = nalgebra::SymmetricEigen::new(ic).eigenvalues;
    let tol = 1e-9 * scale;
    if ev.iter().any(|&l| l < -tol) {
        return bad("rotational inertia is not positive semi-definite");
    }
    let (a, b, c) = (ev[0], ev[1], ev[2]);
    if a + b < c - tol || b + c < a - tol || a + c < b - tol {
        return bad("principal moments violate the triangle inequality");
    }
    Ok(())
}

/// Mutable per-link scratch and results for one [`ArticulatedModel`]
/// (Featherstone's local variables, preallocated so that `rnea`, `crba` and
/// `aba` do not allocate). All spatial quantities of link `i` are in link
/// `i`'s frame.
#[derive(Debug, Clone)]
pub struct ArticulatedData {
    /// `xup[i] = ⁱX_parent(i)` = `XJ(q_i) * x_tree[i]`.
    pub xup: Vec<SpatialTransform>,
    /// `x_base[i] = ⁱX_0`: base-to-link transform (link pose), from [`super::kinematics`].
    pub x_base: Vec<SpatialTransform>,
    /// `s[i]`: motion subspace of a one-DoF joint (zero for `Fixed` and
    /// `Floating`, whose `S = 1₆` the algorithms apply directly).
    pub s: Vec<MotionVec>,
    /// `v[i]`: spatial velocity of link `i`.
    pub v: Vec<MotionVec>,
    /// `a[i]`: spatial acceleration of link `i` (includes `−a_g`).
    pub a: Vec<MotionVec>,
    /// `f[i]`: spatial force transmitted across joint `i` from the parent
    /// (or the base) to link `i`'s subtree, written by `rnea` and
    /// [`super::wrenches::joint_wrenches`].
    pub f: Vec<ForceVec>,
    /// `ia[i]`: articulated-body inertia `Iᴬ_i`; after `aba`, for a link with
    /// a one-DoF joint, the `Iᵃ_i = Iᴬ_i − U_i U_iᵀ/d_i` it passed to its parent
    /// in the upper triangle (eq. (A5), computed in place; the lower triangle
    /// keeps `Iᴬ_i`'s).
    pub ia: Vec<ArticulatedInertia>,
    /// `pa[i]`: articulated-body bias force `pᴬ_i`.
    pub pa: Vec<ForceVec>,
    /// `big_u[i] = Iᴬ_i s_i` (Featherstone's `U_i`).
    pub big_u: Vec<ForceVec>,
    /// `d[i] = s_iᵀ U_i`.
    pub d: Vec<f64>,
    /// `u[i] = τ_i − s_iᵀ pᴬ_i` (Featherstone's scalar `u_i`).
    pub u: Vec<f64>,
    /// `c[i] = v_i ×ₘ (s_i q̇_i)`: velocity-product acceleration.
    pub c: Vec<MotionVec>,
    /// `ic[i]`: CRBA composite rigid-body inertia of the subtree at `i`.
    pub ic: Vec<SpatialInertia>,
    /// `H(q)`: joint-space mass matrix (nv × nv), written by `crba`.
    pub mass_matrix: DMatrix<f64>,
    /// `L` of `H = Lᵀ L` (Featherstone's LTL, §6.5), written by
    /// [`super::mass::factor_mass`]: lower triangular with the branch
    /// sparsity of `H` (no fill-in); the strict upper triangle is zero.
    pub mass_factor: DMatrix<f64>,
    /// True when `mass_factor` is the factor of the current `mass_matrix`.
    pub mass_factored: bool,
    /// Copy of the model's DOF parent array `λ` (so that `solve_mass` needs
    /// only the data).
    pub(crate) dof_parent: Vec<Option<usize>>,
    /// `τ`: output of `rnea`.
    pub tau: DVector<f64>,
    /// `q̈`: output of `aba`.
    pub qdd: DVector<f64>,
    /// The `(q, q̇)` that `xup`, `x_base` and `v` were last computed at
    /// ([`KinematicsKey`]): a call at the same, bit-identical `q` (and `q̇`)
    /// reuses them instead of recomputing bit-identical values.
    pub(crate) kin: KinematicsKey,
}

/// Which configuration the kinematic caches of an [`ArticulatedData`] hold:
/// `xup`, `x_base` are a function of `q` alone and `v` of `(q, q̇)` (eqs. (R1)–(R2)),
/// so a call with bit-identical inputs may skip them (the step poses the links at
/// the end of one tick and again at the start of the next, at the same state).
/// Compared bit by bit (`to_bits`: `-0.0 ≠ 0.0`); a non-finite `q` or `q̇` is
/// never remembered as valid.
#[derive(Debug, Clone, Default)]
pub(crate) struct KinematicsKey {
    q: Vec<f64>,
    qd: Vec<f64>,
    /// `xup`, `x_base` hold the poses at `q`.
    poses: bool,
    /// `v` holds the link twists at `(q, qd)` (implies `poses`).
    twists: bool,
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl KinematicsKey {
    fn with_capacity(nq: usize, nv: usize) -> Self {
        KinematicsKey {
            q: Vec::with_capacity(nq),
            qd: Vec::with_capacity(nv),
            poses: false,
            twists: false,
        }
    }
    /// Whether the poses are those at `q`.
    pub(crate) fn poses_at(&self, q: &[f64]) -> bool {
        self.poses && same_bits(&self.q, q)
    }
    /// Whether the poses and twists are those at `(q, qd)`.
    pub(crate) fn twists_at(&self, q: &[f64], qd: &[f64]) -> bool {
        self.twists && self.poses_at(q) && same_bits(&self.qd, qd)
    }
    /// The poses were just computed at `q` (the twists are stale). A non-finite
    /// `q` is not remembered.
    pub(crate) fn set_poses(&mut self, q: &[f64]) {
        self.q.clear();
        self.q.extend_from_slice(q);
        self.poses = q.iter().all(|x| x.is_finite());
        self.twists = false;
    }
    /// The twists were just computed at `qd` over the poses of the key's `q`.
    pub(crate) fn set_twists(&mut self, qd: &[f64]) {
        self.qd.clear();
        self.qd.extend_from_slice(qd);
        self.twists = self.poses && qd.iter().all(|x| x.is_finite());
    }
}

impl ArticulatedData {
    /// Allocate all scratch for `model` (the only allocation).
    pub fn new(model: &ArticulatedModel) -> Self {
        let n = model.num_links();
        let nv = model.nv();
        Self {
            xup: vec![SpatialTransform::identity(); n],
            x_base: vec![SpatialTransform::identity(); n],
            s: model.joint.iter().map(Joint::motion_subspace).collect(),
            v: vec![MotionVec::zero(); n],
            a: vec![MotionVec::zero(); n],
            f: vec![ForceVec::zero(); n],
            ia: vec![ArticulatedInertia::default(); n],
            pa: vec![ForceVec::zero(); n],
            big_u: vec![ForceVec::zero(); n],
            d: vec![0.0; n],
            u: vec![0.0; n],
            c: vec![MotionVec::zero(); n],
            ic: vec![SpatialInertia::zero(); n],
            mass_matrix: DMatrix::zeros(nv, nv),
            mass_factor: DMatrix::zeros(nv, nv),
            mass_factored: false,
            dof_parent: model.dof_parent.clone(),
            tau: DVector::zeros(nv),
            qdd: DVector::zeros(nv),
            kin: KinematicsKey::with_capacity(model.nq(), nv),
        }
    }
}

/// Optional inputs shared by the algorithms.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExtInputs<'a> {
    /// External spatial force on each link, in that link's frame (len = links).
    pub f_ext: Option<&'a [ForceVec]>,
    /// Viscous joint damping `b_k ≥ 0` per DOF (N m s/rad or N s/m; len =
    /// nv); the generalized force `−b_k q̇_k` acts alongside `τ` (for a
    /// floating joint it damps the body-coordinate twist).
    pub damping: Option<&'a [f64]>,
    /// Extra joint-space inertia `a_k ≥ 0` on the diagonal per one-DoF
    /// coordinate (len = nv; ignored for a floating joint): ABA solves
    /// `(H + diag(a)) q̈ = τ − C`. With `a_k = h k_d + h² k_p` it makes a joint's
    /// PD law implicit in q̈ (the stable-PD form τ = k_p (q* − q − h q̇) +
    /// k_d (q̇* − q̇ − h q̈)), which keeps stiff servos and dampers on light
    /// links stable under explicit integration.
    pub armature: Option<&'a [f64]>,
}

impl ExtInputs<'_> {
    pub(crate) fn check(&self, model: &ArticulatedModel) -> Result<(), DynamicsError> {
        if let Some(f) = self.f_ext {
            if f.len() != model.num_links() {
                return Err(DynamicsError::InputLength {
                    what: "f_ext",
                    expected: model.num_links(),
                    got: f.len(),
                });
            }
        }
        if let Some(b) = self.damping {
            model.check_len("damping", b.len())?;
        }
        if let Some(a) = self.armature {
            model.check_len("armature", a.len())?;
        }
        Ok(())
    }

    /// External force on link `i` (zero if none given).
    pub(crate) fn f_ext(&self, i: usize) -> ForceVec {
        self.f_ext
            .and_then(|f| f.get(i).copied())
            .unwrap_or_default()
    }

    /// Armature `a_k` of coordinate `k` (zero if none given).
    pub(crate) fn armature(&self, k: usize) -> f64 {
        self.armature.and_then(|a| a.get(k).copied()).unwrap_or(0.0)
    }

    /// Damping torque `b_k q̇_k` for coordinate `k` (zero if none given).
    pub(crate) fn damping_torque(&self, k: usize, qd: f64) -> f64 {
        self.damping
            .and_then(|b| b.get(k).copied())
            .map_or(0.0, |b| b * qd)
    }
}

/// Joint coordinate of a one-DoF joint in a vector (0 for `Fixed` or out of range).
pub(crate) fn coord(index: Option<usize>, x: &[f64]) -> f64 {
    index.and_then(|k| x.get(k).copied()).unwrap_or(0.0)
}

/// Six consecutive entries `x[k..k + 6]` as a motion vector (zero if out of range).
pub(crate) fn motion_at(x: &[f64], k: usize) -> MotionVec {
    match x.get(k..k + 6) {
        Some(c) => MotionVec::new(
            Vector3::new(c[0], c[1], c[2]),
            Vector3::new(c[3], c[4], c[5]),
        ),
        None => MotionVec::zero(),
    }
}

/// Write a force vector's six components into `x[k..k + 6]` (ignored if out of range).
pub(crate) fn write_force(x: &mut [f64], k: usize, f: &ForceVec) {
    if let Some(c) = x.get_mut(k..k + 6) {
        c[..3].copy_from_slice(f.ang.as_slice());
        c[3..].copy_from_slice(f.lin.as_slice());
    }
}

/// `vJ = S q̇_i` (eq. (R1)): the joint velocity of link `i` from `qd`
/// (`S = s[i]` for one-DoF joints, `1₆` for `Floating`).
#[inline]
pub(crate) fn joint_motion(model: &ArticulatedModel, i: usize, qd: &[f64]) -> MotionVec {
    if let (Some(&Some(j)), Some(&Some(k))) = (model.axis.get(i), model.v_index.get(i)) {
        // s = e_j: `s.scale(q̇)` is q̇ at j and 0·q̇ (±0, as the product gives it)
        // elsewhere; built without the general scaling.
        let x = coord(Some(k), qd);
        let z = 0.0 * x;
        let (ang, lin) = match j {
            0 => ((x, z, z), (z, z, z)),
            1 => ((z, x, z), (z, z, z)),
            2 => ((z, z, x), (z, z, z)),
            3 => ((z, z, z), (x, z, z)),
            4 => ((z, z, z), (z, x, z)),
            _ => ((z, z, z), (z, z, x)),
        };
        return MotionVec::new(
            Vector3::new(ang.0, ang.1, ang.2),
            Vector3::new(lin.0, lin.1, lin.2),
        );
    }
    match (model.joint.get(i), model.v_index.get(i).copied().flatten()) {
        (Some(Joint::Floating), Some(k)) => motion_at(qd, k),
        (Some(j), Some(k)) => j.motion_subspace().scale(coord(Some(k), qd)),
        _ => MotionVec::zero(),
    }
}
