//! Robots: URDF files read into an engine-neutral [`RobotDescription`] (links,
//! joints, mass properties, collision shapes), checked with errors that name the
//! file, the line and the element. The robots shipped with rtphys are in
//! `config/robots/` (see its README).

pub mod description;
pub mod urdf;

pub use description::{
    CollisionDesc, FrameDesc, Inertial, JointDesc, JointKind, JointLimit, LinkDesc,
    RobotDescription,
};
pub use urdf::{load_urdf, parse_urdf, UrdfError, UrdfErrorKind, UrdfOptions};
