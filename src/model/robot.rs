//! Articulated robots in a world: a kinematic tree in generalized coordinates
//! ([`crate::dynamics::ArticulatedModel`]) with names, joint limits, damping and
//! friction, servos, sensors and collision geometry.
//!
//! A robot's links take part in collision through *link proxies*: one
//! [`super::Body`] of kind [`super::BodyKind::Link`] per link that carries
//! geometry, with its frame at the link's centre of mass (link axes), its own mass
//! and inertia. The proxies are not integrated: the stepper writes their world pose
//! and twist from forward kinematics at every force evaluation, the contact models
//! treat them as rigid bodies (so the effective-mass clamps see the link alone — a
//! lower bound on the mass the contact really moves, hence conservative), and the
//! contact wrench on a proxy enters the articulated-body algorithm as an external
//! spatial force on its link.

use super::{Material, ModelError};
use crate::collision::Shape;
use crate::dynamics::{ArticulatedModel, Joint};
use crate::math::{Mat3, Pose, Vec3};

/// One link of a [`RobotSpec`]: its name and collision geometry (poses in the link
/// frame).
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    pub geoms: Vec<(Shape, Pose, Material)>,
}

/// The joint into one link of a [`RobotSpec`] (the same index as the link).
#[derive(Clone, Debug)]
pub struct JointSpec {
    pub name: String,
    /// Position limits (rad or m); `(-inf, inf)` for none.
    pub lower: f64,
    pub upper: f64,
    /// Effort limit |τ| (N·m or N) that clamps the commanded and servo torques;
    /// `inf` for none.
    pub effort: f64,
    /// Velocity limit (rad/s or m/s) reported to clients; not enforced.
    pub velocity: f64,
    /// Viscous damping b ≥ 0: τ = −b q̇.
    pub damping: f64,
    /// Coulomb friction torque f_c ≥ 0: τ = −f_c sign(q̇), regularized (see
    /// [`RobotJoint::friction_speed`]).
    pub friction: f64,
}

impl JointSpec {
    pub fn named(name: &str) -> Self {
        JointSpec {
            name: name.to_string(),
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            effort: f64::INFINITY,
            velocity: f64::INFINITY,
            damping: 0.0,
            friction: 0.0,
        }
    }
}

/// A named frame rigidly attached to a link.
#[derive(Clone, Debug)]
pub struct FrameSpec {
    pub name: String,
    pub link: usize,
    /// Pose of the frame in the link frame.
    pub pose: Pose,
}

/// A position/velocity servo on one joint, run inside the physics thread at every
/// force evaluation: τ = kp (q* − q) + kd (q̇* − q̇) + τ_ff, clamped to `max_torque`
/// and the joint's effort limit.
#[derive(Clone, Debug)]
pub struct ServoSpec {
    pub joint: String,
    pub kp: f64,
    pub kd: f64,
    pub max_torque: f64,
    /// Active from the start, holding the initial position.
    pub enabled: bool,
}

/// Everything needed to add one robot to a world ([`super::ModelBuilder::add_robot`]).
#[derive(Clone, Debug)]
pub struct RobotSpec {
    pub name: String,
    /// The kinematic tree; its gravity must equal the world's, and a fixed base's
    /// placement in the world is part of the root links' `x_tree`.
    pub tree: ArticulatedModel,
    /// One per tree link.
    pub links: Vec<LinkSpec>,
    /// One per tree link: the joint from its parent (or the world) into it.
    pub joints: Vec<JointSpec>,
    pub frames: Vec<FrameSpec>,
    /// Initial configuration (len nq) and velocity (len nv).
    pub q0: Vec<f64>,
    pub v0: Vec<f64>,
    pub servos: Vec<ServoSpec>,
    /// 6-axis force/torque sensors: names of joints whose transmitted wrench is read.
    pub ft_sensors: Vec<String>,
    /// IMUs: names of links whose proper acceleration and angular velocity are read.
    pub imus: Vec<String>,
    /// Collide non-adjacent links of this robot with each other.
    pub self_collision: bool,
}

/// A degree-of-freedom joint of a [`RobotModel`] (fixed and floating joints are
/// not listed).
#[derive(Clone, Debug)]
pub struct RobotJoint {
    pub name: String,
    /// The tree link the joint moves.
    pub link: usize,
    /// Index of the coordinate in the robot's q and q̇ (1-DoF joints).
    pub qi: usize,
    pub vi: usize,
    pub prismatic: bool,
    pub lower: f64,
    pub upper: f64,
    pub effort: f64,
    pub velocity: f64,
    pub damping: f64,
    pub friction: f64,
    /// H_kk at the initial configuration: the joint's scale of inertia (kg·m² or kg),
    /// which sets the limit spring and the friction regularization.
    pub inertia0: f64,
    /// Joint-limit spring and damper (000's penalty law on a one-sided joint
    /// constraint): τ = k_lim (limit − q) − b_lim q̇ while beyond the limit, never
    /// pulling. k_lim = H_kk ω², b_lim = 2 H_kk ω with ω h = 0.3.
    pub limit_k: f64,
    pub limit_b: f64,
    /// Index of the joint's servo in `RobotModel::servos` (and `RobotData::servo`).
    pub servo: Option<usize>,
    /// Below this speed the Coulomb friction torque is f_c q̇ / v_f (a viscous
    /// regularization of sign(q̇)); v_f = max(1e-4, 2 f_c h / H_kk), so that the
    /// slope f_c / v_f keeps one explicit step from reversing q̇.
    pub friction_speed: f64,
}

/// A servo of a [`RobotModel`].
#[derive(Clone, Debug)]
pub struct Servo {
    /// Index into `RobotModel::joints`.
    pub joint: usize,
    pub kp: f64,
    pub kd: f64,
    pub max_torque: f64,
    /// Active from the start (set-point: the joint's initial position).
    pub enabled: bool,
}

/// A sensor attached to a link or joint.
#[derive(Clone, Debug)]
pub struct SensorSite {
    pub name: String,
    pub link: usize,
}

/// The frozen form of a [`RobotSpec`] inside a [`super::Model`].
#[derive(Clone, Debug)]
pub struct RobotModel {
    pub name: String,
    pub tree: ArticulatedModel,
    pub floating: bool,
    pub link_names: Vec<String>,
    /// Proxy body of each link (`None` for a link without geometry).
    pub link_body: Vec<Option<usize>>,
    /// Whether each link can move at all (some joint between it and the world has a
    /// degree of freedom); welded links do not collide with static bodies.
    pub link_moves: Vec<bool>,
    /// The mass a contact on each link is taken to carry for the penalty gains
    /// (kg): the whole robot's.
    pub supported_mass: Vec<f64>,
    pub total_mass: f64,
    pub joints: Vec<RobotJoint>,
    /// Names of the joint into every link (fixed joints included).
    pub link_joint_names: Vec<String>,
    pub frames: Vec<FrameSpec>,
    pub servos: Vec<Servo>,
    pub ft_sensors: Vec<SensorSite>,
    pub imus: Vec<SensorSite>,
    pub self_collision: bool,
    /// Offsets of this robot's q and q̇ in `Data::qpos` / `Data::qvel`.
    pub q_offset: usize,
    pub v_offset: usize,
    pub q0: Vec<f64>,
    pub v0: Vec<f64>,
    /// Offsets (in this robot's q) of unit quaternions to renormalize.
    pub quat_at: Vec<usize>,
}

impl RobotModel {
    pub fn nq(&self) -> usize {
        self.tree.nq()
    }
    pub fn nv(&self) -> usize {
        self.tree.nv()
    }
    pub fn joint_id(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
    pub fn link_id(&self, name: &str) -> Option<usize> {
        self.link_names.iter().position(|l| l == name)
    }
    pub fn frame_id(&self, name: &str) -> Option<usize> {
        self.frames.iter().position(|f| f.name == name)
    }
    /// Whether links `a` and `b` of this robot are parent and child.
    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        let p = self.tree.parent();
        p[a] == Some(b) || p[b] == Some(a)
    }
}

/// Checks a spec and freezes everything but the proxy bodies (added by the model
/// builder, which knows the body indices). `h`: the world's step.
pub(crate) fn freeze(
    spec: RobotSpec,
    gravity: Vec3,
    h: f64,
    q_offset: usize,
    v_offset: usize,
) -> Result<RobotModel, ModelError> {
    let name = spec.name.clone();
    let err = |msg: String| ModelError::Invalid(format!("robot '{name}': {msg}"));
    let tree = spec.tree;
    let n = tree.num_links();
    if spec.links.len() != n || spec.joints.len() != n {
        return Err(err(format!(
            "{} links and {} joints given for a tree of {n} links",
            spec.links.len(),
            spec.joints.len()
        )));
    }
    if (tree.gravity() - gravity).amax() > 0.0 {
        return Err(err("the tree's gravity differs from the world's".into()));
    }
    if spec.q0.len() != tree.nq() || spec.v0.len() != tree.nv() {
        return Err(err(format!(
            "initial state has {} coordinates and {} velocities; the tree needs {} and {}",
            spec.q0.len(),
            spec.v0.len(),
            tree.nq(),
            tree.nv()
        )));
    }
    if !spec.q0.iter().chain(&spec.v0).all(|x| x.is_finite()) {
        return Err(err("initial state is not finite".into()));
    }
    // A floating joint (6 DoF, 7 coordinates: position then a unit quaternion) is
    // the only joint with more than one degree of freedom.
    let floating = tree.joint().iter().any(|j| j.nv() == 6);
    let mut quat_at = Vec::new();
    for (i, j) in tree.joint().iter().enumerate() {
        if j.nv() == 6 {
            if let Some(qi) = tree.q_index()[i] {
                quat_at.push(qi + 3);
            }
        }
    }
    let total_mass: f64 = tree.inertia().iter().map(|i| i.mass).sum();
    let mut link_moves = vec![false; n];
    for i in 0..n {
        let own = tree.joint()[i].nv() > 0;
        link_moves[i] = own || tree.parent()[i].is_some_and(|p| link_moves[p]);
    }
    // A link's contact may carry the whole robot: a floating robot's weight, or a
    // fixed-base robot's servos pressing with the arm behind them (the subtree
    // alone made a link's contact spring soft: millimetres of sink under a servo
    // press). The stability clamps still see the link alone.
    let supported_mass = vec![total_mass; n];

    // H_kk at q0: the inertia scale of each joint.
    let mut ad = crate::dynamics::ArticulatedData::new(&tree);
    crate::dynamics::crba(&tree, &mut ad, &spec.q0)
        .map_err(|e| err(format!("mass matrix at the initial configuration: {e}")))?;
    let mut joints = Vec::new();
    for (i, js) in spec.joints.iter().enumerate() {
        let jerr = |msg: String| err(format!("joint '{}': {msg}", js.name));
        if js.lower.is_nan() || js.upper.is_nan() || js.lower > js.upper {
            return Err(jerr(format!(
                "lower limit {} must not exceed upper limit {}",
                js.lower, js.upper
            )));
        }
        for (k, v) in [
            ("effort", js.effort),
            ("velocity", js.velocity),
            ("damping", js.damping),
            ("friction", js.friction),
        ] {
            if v.is_nan() || v < 0.0 {
                return Err(jerr(format!("{k} must be ≥ 0, got {v}")));
            }
        }
        let prismatic = match tree.joint()[i] {
            Joint::Revolute(_) => false,
            Joint::Prismatic(_) => true,
            _ => continue,
        };
        let (Some(qi), Some(vi)) = (tree.q_index()[i], tree.v_index()[i]) else {
            continue;
        };
        let inertia0 = ad.mass_matrix[(vi, vi)];
        let omega = 0.3 / h;
        joints.push(RobotJoint {
            name: js.name.clone(),
            link: i,
            qi,
            vi,
            prismatic,
            lower: js.lower,
            upper: js.upper,
            effort: js.effort,
            velocity: js.velocity,
            damping: js.damping,
            friction: js.friction,
            inertia0,
            limit_k: inertia0 * omega * omega,
            limit_b: 2.0 * inertia0 * omega,
            friction_speed: (2.0 * js.friction * h / inertia0).max(1e-4),
            servo: None,
        });
    }
    let mut names = std::collections::HashSet::new();
    for l in &spec.links {
        if !names.insert(l.name.as_str()) {
            return Err(err(format!("duplicate link name '{}'", l.name)));
        }
    }
    let mut jnames = std::collections::HashSet::new();
    for j in &joints {
        if !jnames.insert(j.name.as_str()) {
            return Err(err(format!("duplicate joint name '{}'", j.name)));
        }
    }
    let link_names: Vec<String> = spec.links.iter().map(|l| l.name.clone()).collect();
    let link_joint_names: Vec<String> = spec.joints.iter().map(|j| j.name.clone()).collect();
    let mut frames: Vec<FrameSpec> = link_names
        .iter()
        .enumerate()
        .map(|(i, l)| FrameSpec {
            name: l.clone(),
            link: i,
            pose: Pose::identity(),
        })
        .collect();
    for f in spec.frames {
        if f.link >= n {
            return Err(err(format!(
                "frame '{}' on missing link {}",
                f.name, f.link
            )));
        }
        if frames.iter().any(|g| g.name == f.name) {
            continue; // a link's own frame, or a duplicate of the same name
        }
        frames.push(f);
    }
    let mut servos = Vec::new();
    for s in &spec.servos {
        let joint = joints
            .iter()
            .position(|j| j.name == s.joint)
            .ok_or_else(|| err(format!("servo on unknown joint '{}'", s.joint)))?;
        for (k, v) in [("kp", s.kp), ("kd", s.kd), ("max_torque", s.max_torque)] {
            if v.is_nan() || v < 0.0 {
                return Err(err(format!(
                    "servo '{}': {k} must be ≥ 0, got {v}",
                    s.joint
                )));
            }
        }
        if joints[joint].servo.is_some() {
            return Err(err(format!("two servos on joint '{}'", s.joint)));
        }
        joints[joint].servo = Some(servos.len());
        servos.push(Servo {
            joint,
            kp: s.kp,
            kd: s.kd,
            max_torque: s.max_torque,
            enabled: s.enabled,
        });
    }
    let mut ft_sensors = Vec::new();
    for j in &spec.ft_sensors {
        let link = link_joint_names
            .iter()
            .position(|n| n == j)
            .ok_or_else(|| err(format!("force/torque sensor on unknown joint '{j}'")))?;
        ft_sensors.push(SensorSite {
            name: j.clone(),
            link,
        });
    }
    let mut imus = Vec::new();
    for l in &spec.imus {
        let link = link_names
            .iter()
            .position(|n| n == l)
            .ok_or_else(|| err(format!("IMU on unknown link '{l}'")))?;
        imus.push(SensorSite {
            name: l.clone(),
            link,
        });
    }
    Ok(RobotModel {
        name: spec.name,
        tree,
        floating,
        link_names,
        link_body: vec![None; n],
        link_moves,
        supported_mass,
        total_mass,
        joints,
        link_joint_names,
        frames,
        servos,
        ft_sensors,
        imus,
        self_collision: spec.self_collision,
        q_offset,
        v_offset,
        q0: spec.q0,
        v0: spec.v0,
        quat_at,
    })
}

/// Mass, COM (link frame) and inertia about the COM (link axes) of tree link `i`.
pub(crate) fn link_mass_properties(tree: &ArticulatedModel, i: usize) -> (f64, Vec3, Mat3) {
    let si = &tree.inertia()[i];
    (si.mass, si.com, si.inertia_com)
}

/// A sensor of a robot: index into its `ft_sensors` or `imus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensorKind {
    ForceTorque(u32),
    Imu(u32),
}

/// The dense ids of joints, frames and sensors over all robots.
#[allow(clippy::type_complexity)]
pub(crate) fn global_ids(
    robots: &[RobotModel],
) -> (Vec<(u32, u32)>, Vec<(u32, u32)>, Vec<(u32, SensorKind)>) {
    let (mut j, mut f, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for (ri, r) in robots.iter().enumerate() {
        let ri = ri as u32;
        j.extend((0..r.joints.len() as u32).map(|k| (ri, k)));
        f.extend((0..r.frames.len() as u32).map(|k| (ri, k)));
        s.extend((0..r.ft_sensors.len() as u32).map(|k| (ri, SensorKind::ForceTorque(k))));
        s.extend((0..r.imus.len() as u32).map(|k| (ri, SensorKind::Imu(k))));
    }
    (j, f, s)
}

/// Lookup of robot items by name.
impl super::Model {
    /// A joint id by "robot/joint", or by a bare joint name that only one robot has.
    pub fn joint_id(&self, name: &str) -> Result<usize, String> {
        let found = |ri: usize, jn: &str| {
            self.joint_ids.iter().position(|&(r, j)| {
                r as usize == ri && self.robots[ri].joints[j as usize].name == jn
            })
        };
        if let Some((rn, jn)) = name.split_once('/') {
            if let Some(ri) = self.robot_id(rn) {
                if let Some(id) = found(ri, jn) {
                    return Ok(id);
                }
            }
        }
        let mut hits = (0..self.robots.len()).filter_map(|ri| found(ri, name));
        match (hits.next(), hits.next()) {
            (Some(id), None) => Ok(id),
            (Some(_), Some(_)) => Err(format!(
                "joint name {name:?} is ambiguous: several robots have it; say \"robot/{name}\""
            )),
            _ => Err(format!("no joint named {name:?}")),
        }
    }
    /// The qualified name "robot/joint" of joint `id`.
    pub fn joint_name(&self, id: usize) -> String {
        let (r, j) = self.joint_ids[id];
        let r = &self.robots[r as usize];
        format!("{}/{}", r.name, r.joints[j as usize].name)
    }
    pub fn frame_name(&self, id: usize) -> String {
        let (r, f) = self.frame_ids[id];
        let r = &self.robots[r as usize];
        format!("{}/{}", r.name, r.frames[f as usize].name)
    }
    pub fn sensor_name(&self, id: usize) -> String {
        let (r, k) = self.sensor_ids[id];
        let r = &self.robots[r as usize];
        let n = match k {
            SensorKind::ForceTorque(i) => &r.ft_sensors[i as usize].name,
            SensorKind::Imu(i) => &r.imus[i as usize].name,
        };
        format!("{}/{}", r.name, n)
    }
}

/// How a robot's root link is attached to the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Base {
    /// Welded to the world at this pose of the root link frame.
    Fixed(Pose),
    /// A floating joint (6 DoF) whose initial configuration puts the root link frame
    /// at this pose.
    Floating(Pose),
}

/// Spatial transform `ᶜX_p` of a child frame placed at pose `x` in its parent:
/// E = Rᵀ (parent → child coordinates), r = the child origin in the parent.
pub fn transform_of_pose(x: &Pose) -> crate::dynamics::SpatialTransform {
    crate::dynamics::SpatialTransform::new(
        x.rotation.to_rotation_matrix().matrix().transpose(),
        x.translation.vector,
    )
}

impl RobotSpec {
    /// A robot from a checked description: links attached by fixed joints are merged
    /// into their parents (their names become frames), the root is fixed or floating
    /// per `base`, every collision shape gets `materials[collision name]`, else
    /// `materials[link name]`, else `material`, the joints start at
    /// zero (the floating base at its pose). Errors say which link or joint is at
    /// fault.
    pub fn from_description(
        desc: &crate::robot::RobotDescription,
        name: &str,
        base: Base,
        gravity: Vec3,
        material: Material,
        materials: &std::collections::BTreeMap<String, Material>,
    ) -> Result<RobotSpec, String> {
        use crate::dynamics::{ArticulatedModelBuilder, SpatialInertia};
        use crate::robot::JointKind;
        let d = desc.lump_fixed();
        let inertia_of = |l: &crate::robot::LinkDesc| {
            l.inertial
                .map(|i| SpatialInertia::new(i.mass, i.com(), i.inertia_in_link_axes()))
        };
        let root = d
            .links
            .first()
            .ok_or_else(|| "the robot has no links".to_string())?;
        let mut b = ArticulatedModelBuilder::new().gravity(gravity);
        let (root_joint, root_name) = match base {
            Base::Fixed(x) => {
                // A welded root never moves: its mass only has to be valid.
                let i = inertia_of(root).unwrap_or_else(|| {
                    SpatialInertia::new(1.0, Vec3::zeros(), Mat3::identity() * 1e-3)
                });
                b.add_link(None, Joint::Fixed, transform_of_pose(&x), i);
                (JointSpec::named("world_joint"), root.name.clone())
            }
            Base::Floating(_) => {
                let i = inertia_of(root).ok_or_else(|| {
                    format!(
                        "root link '{}' has no <inertial>: a floating base needs mass",
                        root.name
                    )
                })?;
                b.add_link(
                    None,
                    Joint::Floating,
                    crate::dynamics::SpatialTransform::identity(),
                    i,
                );
                (JointSpec::named("floating_base"), root.name.clone())
            }
        };
        let mut joints = vec![root_joint];
        for j in &d.joints {
            let child = &d.links[j.child];
            let axis = nalgebra::Unit::try_new(j.axis, 1e-12)
                .ok_or_else(|| format!("joint '{}': zero axis", j.name))?;
            let joint = match j.kind {
                JointKind::Revolute | JointKind::Continuous => Joint::Revolute(axis),
                JointKind::Prismatic => Joint::Prismatic(axis),
                JointKind::Fixed => Joint::Fixed,
                JointKind::Floating => {
                    return Err(format!(
                        "joint '{}': a floating joint between two links is not supported \
                         (make the root floating with base = \"floating\")",
                        j.name
                    ))
                }
            };
            let inertia = inertia_of(child).ok_or_else(|| {
                format!(
                    "link '{}' has no <inertial> but joint '{}' moves it",
                    child.name, j.name
                )
            })?;
            b.add_link(Some(j.parent), joint, transform_of_pose(&j.origin), inertia);
            let mut js = JointSpec::named(&j.name);
            js.damping = j.damping;
            js.friction = j.friction;
            if let Some(l) = &j.limit {
                if j.kind != JointKind::Continuous {
                    js.lower = l.lower;
                    js.upper = l.upper;
                }
                js.effort = l.effort;
                js.velocity = l.velocity;
            }
            joints.push(js);
        }
        let tree = b.finalize().map_err(|e| {
            // The tree numbers links as the description does.
            format!("{e} (link 0 = '{}')", root_name)
        })?;
        let links = d
            .links
            .iter()
            .map(|l| LinkSpec {
                name: l.name.clone(),
                geoms: l
                    .collisions
                    .iter()
                    .map(|c| {
                        let m = c
                            .name
                            .as_ref()
                            .and_then(|n| materials.get(n))
                            .or_else(|| materials.get(&l.name))
                            .copied()
                            .unwrap_or(material);
                        (c.shape.clone(), c.origin, m)
                    })
                    .collect(),
            })
            .collect();
        let frames = d
            .frames
            .iter()
            .map(|f| FrameSpec {
                name: f.name.clone(),
                link: f.link,
                pose: f.pose,
            })
            .collect();
        let mut q0 = crate::dynamics::neutral_configuration(&tree);
        if let Base::Floating(x) = base {
            let (p, r) = (x.translation.vector, x.rotation);
            q0[..7].copy_from_slice(&[p.x, p.y, p.z, r.w, r.i, r.j, r.k]);
        }
        let v0 = vec![0.0; tree.nv()];
        Ok(RobotSpec {
            name: name.to_string(),
            tree,
            links,
            joints,
            frames,
            q0,
            v0,
            servos: Vec::new(),
            ft_sensors: Vec::new(),
            imus: Vec::new(),
            self_collision: false,
        })
    }

    /// Set the initial position of a named joint.
    pub fn set_joint_position(&mut self, joint: &str, q: f64) -> Result<(), String> {
        let i = self
            .joints
            .iter()
            .position(|j| j.name == joint)
            .ok_or_else(|| format!("no joint named '{joint}'"))?;
        match (self.tree.joint()[i].nv(), self.tree.q_index()[i]) {
            (1, Some(k)) => {
                self.q0[k] = q;
                Ok(())
            }
            _ => Err(format!("joint '{joint}' has no single coordinate")),
        }
    }
}
