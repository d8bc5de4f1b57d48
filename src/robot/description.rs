//! An engine-neutral description of a robot: a tree of links joined by joints,
//! in SI units, as a URDF file states it once it has been checked.
//!
//! Invariants (established by [`crate::robot::load_urdf`] and kept by
//! [`RobotDescription::lump_fixed`]):
//! - `links[0]` is the root; links are in topological order: every joint's
//!   `parent < child`;
//! - there is one joint per non-root link, in the same order:
//!   `joints[j].child == j + 1`;
//! - a link without an [`Inertial`] (massless) is the root or is attached by a
//!   [`JointKind::Fixed`] joint: it is a named frame of its parent, not a body.
//!
//! The description does not say how the root is attached to the world: the
//! scene decides whether the base is fixed or floating.

use crate::collision::Shape;
use crate::math::{Mat3, Pose, Vec3};
use std::path::PathBuf;

/// A robot as described by a file: links, joints and the warnings raised while reading it.
#[derive(Clone, Debug)]
pub struct RobotDescription {
    /// `<robot name>`.
    pub name: String,
    /// The file it was read from (or the source name given to `parse_urdf`).
    pub source: PathBuf,
    /// `links[0]` is the root; topological order.
    pub links: Vec<LinkDesc>,
    /// `joints[j]` attaches `links[j + 1]` to its parent.
    pub joints: Vec<JointDesc>,
    /// Named frames on links: filled by [`RobotDescription::lump_fixed`] with the
    /// links it merged into their parents (`tool0`, `imu_link`, …); empty otherwise.
    pub frames: Vec<FrameDesc>,
    /// Everything read but not simulated, each as `file:line: <element>: message`.
    pub warnings: Vec<String>,
}

/// One link: its mass properties (if it has any) and its collision shapes.
#[derive(Clone, Debug)]
pub struct LinkDesc {
    pub name: String,
    /// `None`: a massless link (a frame), allowed only for the root or under a fixed joint.
    pub inertial: Option<Inertial>,
    pub collisions: Vec<CollisionDesc>,
}

/// Mass properties of a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertial {
    /// kg, positive and finite.
    pub mass: f64,
    /// Pose of the centre-of-mass frame in the link frame.
    pub origin: Pose,
    /// kg·m², about the centre of mass, in the axes of the centre-of-mass frame
    /// (symmetric, principal moments ≥ 0 and obeying the triangle inequality).
    pub inertia: Mat3,
}

impl Inertial {
    /// Inertia about the centre of mass in the axes of the link frame:
    /// `R I Rᵀ` with `R` the rotation of [`Inertial::origin`].
    pub fn inertia_in_link_axes(&self) -> Mat3 {
        let r = self.origin.rotation.to_rotation_matrix();
        r.matrix() * self.inertia * r.matrix().transpose()
    }

    /// Centre of mass in the link frame, m.
    pub fn com(&self) -> Vec3 {
        self.origin.translation.vector
    }
}

/// A collision shape placed on a link.
#[derive(Clone, Debug)]
pub struct CollisionDesc {
    /// `<collision name>`, if given.
    pub name: Option<String>,
    /// Pose of the shape's frame in the link frame.
    pub origin: Pose,
    pub shape: Shape,
}

/// The joint types of URDF that can be simulated (`planar` is refused at load time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JointKind {
    /// Rotation about `axis`, position limits.
    Revolute,
    /// Rotation about `axis`, no position limits.
    Continuous,
    /// Translation along `axis`, position limits.
    Prismatic,
    /// No motion: the child is rigidly attached.
    Fixed,
    /// Six degrees of freedom.
    Floating,
}

impl JointKind {
    /// Degrees of freedom the joint adds to the tree.
    pub fn dof(self) -> usize {
        match self {
            JointKind::Revolute | JointKind::Continuous | JointKind::Prismatic => 1,
            JointKind::Fixed => 0,
            JointKind::Floating => 6,
        }
    }

    /// The URDF spelling.
    pub fn name(self) -> &'static str {
        match self {
            JointKind::Revolute => "revolute",
            JointKind::Continuous => "continuous",
            JointKind::Prismatic => "prismatic",
            JointKind::Fixed => "fixed",
            JointKind::Floating => "floating",
        }
    }
}

/// One joint: attaches `links[child]` to `links[parent]`.
#[derive(Clone, Debug)]
pub struct JointDesc {
    pub name: String,
    pub kind: JointKind,
    /// Index into `links`, `< child`.
    pub parent: usize,
    /// Index into `links`; `joints[j].child == j + 1`.
    pub child: usize,
    /// Pose of the joint frame (= the child link frame at q = 0) in the parent link frame.
    pub origin: Pose,
    /// Unit vector in the joint frame (rotation axis or translation direction;
    /// `(1, 0, 0)` for fixed and floating joints, where it means nothing).
    pub axis: Vec3,
    /// `None` when the file gives no `<limit>`: no position, effort or velocity bound.
    pub limit: Option<JointLimit>,
    /// Viscous damping, N·m·s/rad (revolute) or N·s/m (prismatic), ≥ 0.
    pub damping: f64,
    /// Coulomb (dry) friction, N·m or N, ≥ 0.
    pub friction: f64,
}

/// Bounds of a joint. Continuous joints have `lower = −∞`, `upper = +∞`; an
/// effort or velocity the file leaves out is `+∞`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimit {
    /// rad or m.
    pub lower: f64,
    /// rad or m, ≥ `lower`.
    pub upper: f64,
    /// N·m or N, ≥ 0.
    pub effort: f64,
    /// rad/s or m/s, ≥ 0.
    pub velocity: f64,
}

/// A named frame rigidly attached to a link (what a merged fixed-joint link becomes).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameDesc {
    pub name: String,
    /// Index into `links`.
    pub link: usize,
    /// Pose of the frame in the link frame.
    pub pose: Pose,
}

impl RobotDescription {
    /// Index of the link called `name`.
    pub fn link_id(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }

    /// Index of the joint called `name`.
    pub fn joint_id(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// Index of the named frame called `name` (see [`RobotDescription::frames`]).
    pub fn frame_id(&self, name: &str) -> Option<usize> {
        self.frames.iter().position(|f| f.name == name)
    }

    /// Sum of the link masses, kg.
    pub fn total_mass(&self) -> f64 {
        self.links
            .iter()
            .filter_map(|l| l.inertial.as_ref())
            .map(|i| i.mass)
            .sum()
    }

    /// Degrees of freedom of the joints (not counting how the root is attached).
    pub fn dof(&self) -> usize {
        self.joints.iter().map(|j| j.kind.dof()).sum()
    }

    /// Pose of every link frame in the root frame at q = 0 (`x_rl[i]`).
    pub fn zero_pose_frames(&self) -> Vec<Pose> {
        let mut x = vec![Pose::identity(); self.links.len()];
        for j in &self.joints {
            x[j.child] = x[j.parent] * j.origin;
        }
        x
    }

    /// The same robot with every link attached by a `fixed` joint merged into its
    /// parent (recursively, so into the nearest link that moves):
    /// - masses add; the centre of mass is the mass-weighted mean; the inertia
    ///   about the new centre of mass is `Σ (R_k I_k R_kᵀ + m_k (|d_k|² 1 − d_k d_kᵀ))`
    ///   with `d_k` from the new centre of mass to link k's (parallel-axis theorem),
    ///   in the axes of the receiving link;
    /// - collision shapes are re-expressed in the receiving link's frame;
    /// - each merged link becomes a named frame (kept frames are re-expressed too);
    /// - joints after a merged link get their origin re-expressed.
    ///
    /// Indices change; names do not. Joint order and topological order are kept.
    pub fn lump_fixed(&self) -> RobotDescription {
        let n = self.links.len();
        // body[i]: the link that receives link i; x_bi[i]: pose of link i in it.
        let mut body: Vec<usize> = (0..n).collect();
        let mut x_bi = vec![Pose::identity(); n];
        for j in &self.joints {
            if j.kind == JointKind::Fixed {
                body[j.child] = body[j.parent];
                x_bi[j.child] = x_bi[j.parent] * j.origin;
            }
        }
        // New index of every kept link (a link is kept when it receives itself).
        let mut new_index = vec![usize::MAX; n];
        let mut kept = Vec::new();
        for i in 0..n {
            if body[i] == i {
                new_index[i] = kept.len();
                kept.push(i);
            }
        }
        let target = |i: usize| new_index[body[i]];

        // Mass properties: gather every contribution in the receiving link's frame.
        let mut links: Vec<LinkDesc> = kept
            .iter()
            .map(|&i| LinkDesc {
                name: self.links[i].name.clone(),
                inertial: None,
                collisions: Vec::new(),
            })
            .collect();
        let mut parts: Vec<Vec<(f64, Vec3, Mat3)>> = vec![Vec::new(); kept.len()];
        for (i, l) in self.links.iter().enumerate() {
            let t = target(i);
            if let Some(inertial) = &l.inertial {
                let x_bc = x_bi[i] * inertial.origin;
                let r = x_bc.rotation.to_rotation_matrix();
                let i_b = r.matrix() * inertial.inertia * r.matrix().transpose();
                parts[t].push((inertial.mass, x_bc.translation.vector, i_b));
            }
            for c in &l.collisions {
                links[t].collisions.push(CollisionDesc {
                    name: c.name.clone(),
                    origin: x_bi[i] * c.origin,
                    shape: c.shape.clone(),
                });
            }
        }
        for (k, &i) in kept.iter().enumerate() {
            links[k].inertial = if parts[k].len() == 1 && self.links[i].inertial.is_some() {
                // Nothing merged into it: keep the link's own numbers untouched.
                self.links[i].inertial
            } else {
                combine_inertials(&parts[k])
            };
        }

        let joints = self
            .joints
            .iter()
            .filter(|j| j.kind != JointKind::Fixed)
            .map(|j| JointDesc {
                parent: target(j.parent),
                child: new_index[j.child],
                origin: x_bi[j.parent] * j.origin,
                ..j.clone()
            })
            .collect();

        let mut frames: Vec<FrameDesc> = self
            .frames
            .iter()
            .map(|f| FrameDesc {
                name: f.name.clone(),
                link: target(f.link),
                pose: x_bi[f.link] * f.pose,
            })
            .collect();
        for i in 0..n {
            if body[i] != i {
                frames.push(FrameDesc {
                    name: self.links[i].name.clone(),
                    link: target(i),
                    pose: x_bi[i],
                });
            }
        }

        RobotDescription {
            name: self.name.clone(),
            source: self.source.clone(),
            links,
            joints,
            frames,
            warnings: self.warnings.clone(),
        }
    }
}

/// Sum of rigid mass distributions `(m_k, c_k, I_k)` given in one frame (centre of
/// mass `c_k`, inertia `I_k` about it in that frame's axes): total mass, centre of
/// mass, and inertia about it by the parallel-axis theorem, `I = Σ I_k + m_k (|d|² 1 − d dᵀ)`
/// with `d = c_k − c`. `None` for no parts.
fn combine_inertials(parts: &[(f64, Vec3, Mat3)]) -> Option<Inertial> {
    if parts.is_empty() {
        return None;
    }
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    let com = parts
        .iter()
        .map(|p| p.1 * p.0)
        .fold(Vec3::zeros(), |a, b| a + b)
        / mass;
    let mut inertia = Mat3::zeros();
    for (m, c, i) in parts {
        let d = c - com;
        inertia += i + (Mat3::identity() * d.norm_squared() - d * d.transpose()) * *m;
    }
    // Exact symmetry (the sum of symmetric terms is symmetric up to rounding).
    inertia = (inertia + inertia.transpose()) * 0.5;
    Some(Inertial {
        mass,
        origin: Pose::translation(com.x, com.y, com.z),
        inertia,
    })
}
