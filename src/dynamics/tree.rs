//! The immutable kinematic tree [`ArticulatedModel`] (built and validated by
//! [`ArticulatedModelBuilder`]) and its mutable, preallocated scratch
//! [`ArticulatedData`].
//!
//! Links are numbered `0..n` so that `parent[i] < i` (Featherstone's regular
//! numbering); `parent[i] == None` means the link hangs from the fixed base.
//! Every joint has 0 or 1 degrees of freedom; `v_index[i]` is the index of
//! joint `i`'s coordinate in `q`, `q̇`, `q̈`, `τ` (`None` for `Fixed`).
//!
//! TODO(robots): floating-base (`Free`, 6 DoF with a quaternion, nq ≠ nv) and
//! multi-DoF joints (spherical, planar) are not supported yet. They need
//! `nq`/`nv` offsets per joint and a `6×k` motion subspace; the algorithms are
//! written per link so that the change stays local to `Joint` and the
//! `s[i]`/`u[i]`/`d[i]` scratch.

use super::spatial::{ArticulatedInertia, ForceVec, MotionVec, SpatialInertia, SpatialTransform};
use nalgebra::{DMatrix, DVector, Rotation3, Unit, Vector3};

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
    /// ABA met a joint whose articulated inertia about its axis, `d[i]`, is not
    /// positive and finite (a massless subtree or non-finite state).
    #[error("link {link}: articulated joint inertia d = {d} is not positive")]
    SingularJoint { link: usize, d: f64 },
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
}

impl Joint {
    /// Number of degrees of freedom (0 or 1).
    pub fn nv(&self) -> usize {
        match self {
            Joint::Revolute(_) | Joint::Prismatic(_) => 1,
            Joint::Fixed => 0,
        }
    }

    /// `XJ(q)`: the transform from the predecessor frame to the link frame
    /// (Featherstone Table 4.1). For `Fixed`, `q` is ignored.
    pub fn transform(&self, q: f64) -> SpatialTransform {
        match self {
            Joint::Revolute(axis) => {
                // E = R(axis, q)ᵀ: coordinates in the rotated (successor) frame
                SpatialTransform::rotation(Rotation3::from_axis_angle(axis, q).matrix().transpose())
            }
            Joint::Prismatic(axis) => SpatialTransform::translation(axis.into_inner() * q),
            Joint::Fixed => SpatialTransform::identity(),
        }
    }

    /// Motion subspace `s` (zero for `Fixed`), constant in the link frame.
    pub fn motion_subspace(&self) -> MotionVec {
        match self {
            Joint::Revolute(axis) => MotionVec::new(axis.into_inner(), Vector3::zeros()),
            Joint::Prismatic(axis) => MotionVec::new(Vector3::zeros(), axis.into_inner()),
            Joint::Fixed => MotionVec::zero(),
        }
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
    v_index: Vec<Option<usize>>,
    gravity: Vector3<f64>,
    nv: usize,
}

impl ArticulatedModel {
    /// Number of links (bodies).
    pub fn num_links(&self) -> usize {
        self.parent.len()
    }
    /// Number of degrees of freedom (= length of `q`, `q̇`, `q̈`, `τ`).
    pub fn nv(&self) -> usize {
        self.nv
    }
    /// Number of configuration coordinates (= nv while every joint has ≤ 1 DoF).
    pub fn nq(&self) -> usize {
        self.nv
    }
    /// Index of each joint's first coordinate in `q`.
    pub fn q_index(&self) -> &[Option<usize>] {
        &self.v_index
    }
    /// `parent[i]`; `None` for links attached to the fixed base.
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
    /// Index of each joint's coordinate in `q` (`None` for `Fixed`).
    pub fn v_index(&self) -> &[Option<usize>] {
        &self.v_index
    }
    /// Gravitational acceleration `a_g` in base coordinates (m/s²), e.g. `(0, 0, -9.81)`.
    pub fn gravity(&self) -> Vector3<f64> {
        self.gravity
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
        let mut v_index = Vec::with_capacity(self.parent.len());
        let mut nv = 0;
        for i in 0..self.parent.len() {
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
                Joint::Fixed => {}
            }
            check_transform(i, &self.x_tree[i])?;
            check_inertia(i, &self.inertia[i])?;
            if self.joint[i].nv() == 1 {
                v_index.push(Some(nv));
                nv += 1;
            } else {
                v_index.push(None);
            }
        }
        Ok(ArticulatedModel {
            parent: self.parent,
            joint: self.joint,
            x_tree: self.x_tree,
            inertia: self.inertia,
            v_index,
            gravity: self.gravity,
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
    /// `s[i]`: joint motion subspace (zero for `Fixed`).
    pub s: Vec<MotionVec>,
    /// `v[i]`: spatial velocity of link `i`.
    pub v: Vec<MotionVec>,
    /// `a[i]`: spatial acceleration of link `i` (includes `−a_g`).
    pub a: Vec<MotionVec>,
    /// `f[i]`: RNEA: net force transmitted across joint `i`.
    pub f: Vec<ForceVec>,
    /// `ia[i]`: articulated-body inertia `Iᴬ_i`.
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
    /// `τ`: output of `rnea`.
    pub tau: DVector<f64>,
    /// `q̈`: output of `aba`.
    pub qdd: DVector<f64>,
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
            tau: DVector::zeros(nv),
            qdd: DVector::zeros(nv),
        }
    }
}

/// Optional inputs shared by the algorithms.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExtInputs<'a> {
    /// External spatial force on each link, in that link's frame (len = links).
    pub f_ext: Option<&'a [ForceVec]>,
    /// Viscous joint damping `b_i ≥ 0` (N m s/rad or N s/m; len = nv); the
    /// joint torque `−b_i q̇_i` acts alongside `τ`.
    pub damping: Option<&'a [f64]>,
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
        Ok(())
    }

    /// External force on link `i` (zero if none given).
    pub(crate) fn f_ext(&self, i: usize) -> ForceVec {
        self.f_ext
            .and_then(|f| f.get(i).copied())
            .unwrap_or_default()
    }

    /// Damping torque `b_k q̇_k` for coordinate `k` (zero if none given).
    pub(crate) fn damping_torque(&self, k: usize, qd: f64) -> f64 {
        self.damping
            .and_then(|b| b.get(k).copied())
            .map_or(0.0, |b| b * qd)
    }
}

/// Joint coordinate of link `i` in a vector (0 for `Fixed`).
pub(crate) fn coord(v_index: Option<usize>, x: &[f64]) -> f64 {
    v_index.and_then(|k| x.get(k).copied()).unwrap_or(0.0)
}
