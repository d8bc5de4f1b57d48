//! Point Jacobians for contacts and end effectors (eq. (J1) of
//! [`crate::dynamics`]).

use super::spatial::MotionVec;
use super::tree::{ArticulatedData, ArticulatedModel, DynamicsError, Joint};
use nalgebra::{Matrix6xX, Vector3};

/// Column `c` of `out` from a motion vector `m` in world coordinates:
/// `[ω; v_O + ω × p]`.
fn put_column(out: &mut Matrix6xX<f64>, c: usize, m: &MotionVec, p: &Vector3<f64>) {
    let v = m.lin + m.ang.cross(p);
    let mut col = out.column_mut(c);
    col.fixed_rows_mut::<3>(0).copy_from(&m.ang);
    col.fixed_rows_mut::<3>(3).copy_from(&v);
}

/// The 6×nv Jacobian of `link`'s point currently at `p_world` (world
/// coordinates, m), into the caller-owned `out` (6 rows, `nv` columns; the
/// column count is checked): `[ω; v_p] = J q̇` with `ω` the link's angular
/// velocity and `v_p` the velocity of the link-fixed point at `p_world`,
/// both in world coordinates (rows 0–2: `ω`, rows 3–5: `v_p`). Needs
/// `x_base` from `forward_kinematics`. Column `k` of an ancestor joint `j`
/// is its motion subspace in world coordinates `⁰X_j S_j` shifted to `p`
/// (eq. (J1)); a floating joint's six columns are the link-coordinate unit
/// twists (because its `q̇` is the body twist). Columns of joints not on the
/// path from the link to the root are zero. `O(nv + depth)`, no allocation.
pub fn point_jacobian(
    model: &ArticulatedModel,
    data: &ArticulatedData,
    link: usize,
    p_world: &Vector3<f64>,
    out: &mut Matrix6xX<f64>,
) -> Result<(), DynamicsError> {
    model.check_link(link)?;
    model.check_data(data)?;
    if out.ncols() != model.nv() {
        return Err(DynamicsError::InputLength {
            what: "jacobian columns",
            expected: model.nv(),
            got: out.ncols(),
        });
    }
    out.fill(0.0);
    let mut j = Some(link);
    while let Some(jj) = j {
        let x = &data.x_base[jj];
        match (model.joint()[jj], model.v_index()[jj]) {
            (Joint::Floating, Some(k)) => {
                for e in 0..6 {
                    let mut unit = [0.0; 6];
                    unit[e] = 1.0;
                    let s = MotionVec::new(
                        Vector3::new(unit[0], unit[1], unit[2]),
                        Vector3::new(unit[3], unit[4], unit[5]),
                    );
                    put_column(out, k + e, &x.inv_apply_motion(&s), p_world);
                }
            }
            (_, Some(k)) => {
                put_column(out, k, &x.inv_apply_motion(&data.s[jj]), p_world);
            }
            (_, None) => {}
        }
        j = model.parent()[jj];
    }
    Ok(())
}
