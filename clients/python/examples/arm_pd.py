"""A 1 kHz joint-space PD controller with gravity compensation holding the 7-DoF arm
at a target pose over the control stream (torque control: the scene's servos are
disabled). Each state in, one command out:

    tau = Kp (q* - q) - Kd qdot + g(q)

g(q) is computed here, in plain Python, from the robot's URDF (forward kinematics,
then the torque that holds each subtree's weight about the joint axis; the static
case of RNEA); Kp_k = H_kk w^2, Kd_k = 2 H_kk w (w = 2 pi 8 Hz, H_kk the joint-space
inertia of joint k at the initial pose, from the same URDF).

In realtime mode g(q) is refreshed every 10 ticks (100 Hz; --gravity-every), as
controllers on real arms do: it costs ~0.6 ms in CPython, and a 1 kHz loop that spends
most of each millisecond in Python starves grpcio's sending thread (the GIL), so the
commands queue up and arrive tens of ms late. g changes by O(|q̇| · 10 ms) between
refreshes, and not at all once the arm holds. Lockstep mode refreshes it every tick.

    cargo run --release -- serve --scene config/scenes/arm.toml
    python clients/python/examples/arm_pd.py [--addr HOST:PORT] [--seconds 3] [--lockstep]

The world is reset first. Prints the hold error over the last 2 s and the
command -> state round trip (p50/p99); fails if the final error exceeds 1e-3 rad.
The robot base is assumed at the world origin, unrotated (as in arm.toml).
"""
import math
import os
import xml.etree.ElementTree as ET

from _args import parser
from rtphys_client import Client, joint_torque, now_ns, pb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DQ = [0.2, -0.15, 0.2, 0.2, -0.2, 0.2, 0.3]  # target offsets from the initial pose, rad


# --- 3-vectors and 3x3 matrices as lists -------------------------------------------
def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mv(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def tr(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def rpy(r, p, y):
    """URDF fixed-axis roll-pitch-yaw: R = Rz(y) Ry(p) Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]


def axis_angle(u, q):
    """Rodrigues: rotation by q about the unit axis u."""
    c, s = math.cos(q), math.sin(q)
    x, y, z = u
    t = 1.0 - c
    return [
        [c + x * x * t, x * y * t - z * s, x * z * t + y * s],
        [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
        [z * x * t - y * s, z * y * t + x * s, c + z * z * t],
    ]


def floats(s, default):
    return [float(x) for x in s.split()] if s else default


class Urdf:
    """The links (mass, COM, inertia) and joints (origin, axis) of a URDF tree."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.links = {}
        for l in root.findall("link"):
            i = l.find("inertial")
            if i is None:
                self.links[l.get("name")] = (0.0, [0.0] * 3, [[0.0] * 3 for _ in range(3)])
                continue
            o = i.find("origin")
            com = floats(o.get("xyz") if o is not None else None, [0.0] * 3)
            r_in = rpy(*floats(o.get("rpy") if o is not None else None, [0.0] * 3))
            a = i.find("inertia").attrib
            g = lambda k: float(a.get(k, 0.0))
            inertia = [
                [g("ixx"), g("ixy"), g("ixz")],
                [g("ixy"), g("iyy"), g("iyz")],
                [g("ixz"), g("iyz"), g("izz")],
            ]
            # Rotational inertia about the COM in link axes.
            self.links[l.get("name")] = (float(i.find("mass").get("value")), com, mm(mm(r_in, inertia), tr(r_in)))
        self.joints = []  # (name, type, parent, child, xyz, R_origin, axis), parents before children
        pending = root.findall("joint")
        known = set(self.links) - {j.find("child").get("link") for j in pending}
        while pending:
            for j in list(pending):
                parent = j.find("parent").get("link")
                if parent not in known:
                    continue
                o = j.find("origin")
                ax = j.find("axis")
                self.joints.append((
                    j.get("name"),
                    j.get("type"),
                    parent,
                    j.find("child").get("link"),
                    floats(o.get("xyz") if o is not None else None, [0.0] * 3),
                    rpy(*floats(o.get("rpy") if o is not None else None, [0.0] * 3)),
                    floats(ax.get("xyz") if ax is not None else None, [1.0, 0.0, 0.0]),
                ))
                known.add(self.joints[-1][3])
                pending.remove(j)
        self.root = next(iter(set(self.links) - {j[3] for j in self.joints}))
        self.sub = {j[3]: self.subtree(j[3]) for j in self.joints}

    def kinematics(self, q):
        """World pose of every link, and each DoF joint's (origin, world axis, child)."""
        pose = {self.root: ([0.0] * 3, [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])}
        axes = {}
        for name, typ, parent, child, xyz, r_o, axis in self.joints:
            p_p, r_p = pose[parent]
            p = add(p_p, mv(r_p, xyz))
            r = mm(r_p, r_o)
            if typ in ("revolute", "continuous"):
                axes[name] = (p, mv(r, axis), child)
                r = mm(r, axis_angle(axis, q.get(name, 0.0)))
            pose[child] = (p, r)
        return pose, axes

    def subtree(self, link):
        out, todo = [], [link]
        while todo:
            l = todo.pop()
            out.append(l)
            todo += [j[3] for j in self.joints if j[2] == l]
        return out

    def gravity(self, q, gvec):
        """g_k = -a_k . (S_k - M_k p_k) x g, with M_k and S_k = sum_i m_i c_i the mass
        and first mass moment of the subtree moved by joint k (the per-tick form)."""
        pose, axes = self.kinematics(q)
        mc = {}
        for l, (m, com, _) in self.links.items():
            p_l, r_l = pose[l]
            c = add(p_l, mv(r_l, com))
            mc[l] = (m, [m * x for x in c])
        g = {}
        for name, (p, a, child) in axes.items():
            mass, s1 = 0.0, [0.0, 0.0, 0.0]
            for l in self.sub[child]:
                m, mcl = mc[l]
                mass += m
                s1 = add(s1, mcl)
            g[name] = -dot(a, cross(sub(s1, [mass * x for x in p]), gvec))
        return g

    def gravity_and_inertia(self, q, gvec):
        """g_k = -a_k . sum_i (c_i - p_k) x (m_i g) (the torque holding the subtree's
        weight) and H_kk = sum_i a_k . I_i a_k + m_i |a_k x (c_i - p_k)|^2."""
        pose, axes = self.kinematics(q)
        g, h = {}, {}
        for name, (p, a, child) in axes.items():
            tau, hkk = 0.0, 0.0
            for l in self.sub[child]:
                m, com, inertia = self.links[l]
                if m == 0.0:
                    continue
                p_l, r_l = pose[l]
                c = add(p_l, mv(r_l, com))
                r = sub(c, p)
                tau -= dot(a, cross(r, [m * x for x in gvec]))
                i_w = mm(mm(r_l, inertia), tr(r_l))
                axr = cross(a, r)
                hkk += dot(a, mv(i_w, a)) + m * dot(axr, axr)
            g[name], h[name] = tau, hkk
        return g, h


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--urdf", default=os.path.join(ROOT, "config", "robots", "arm7.urdf"))
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--lockstep", action="store_true", help="one tick per command (else realtime)")
    p.add_argument("--gravity-every", type=int, default=None,
                   help="ticks between g(q) refreshes (default: 10 realtime, 1 lockstep)")
    a = p.parse_args()
    every = a.gravity_every or (1 if a.lockstep else 10)
    assert a.seconds >= 2.5, "--seconds: at least 2.5 (0.5 s to move, 2 s to hold)"
    robot = Urdf(a.urdf)
    with Client(a.addr) as c:
        w = c.world()
        names = [j.name.split("/", 1)[1] for j in w.joints]
        if len(names) != 7 or any(n not in {j[0] for j in robot.joints} for n in names):
            raise SystemExit(f"the server's joints {names} are not those of {a.urdf}: serve config/scenes/arm.toml")
        gvec = list(w.gravity)
        prev = pb.RunMode.Name(w.mode).replace("RUN_MODE_", "").lower()
        if a.lockstep:
            c.set_mode("lockstep")
        try:
            c.reset()
            ctl = c.control(
                name="arm_pd.py",
                lockstep=a.lockstep,
                watchdog_timeout_s=0.1,
                safe_behavior="zero",
                latest_only=True,
                fields=[pb.STATE_FIELD_JOINTS, pb.STATE_FIELD_ACKS],
            )
            s = ctl.next_state()
            q = {names[j.id]: j.position for j in s.joints}
            target = [j.position + d for j, d in zip(s.joints, DQ)]
            _, h0 = robot.gravity_and_inertia(q, gvec)
            omega = 2.0 * math.pi * 8.0
            kp = [h0[n] * omega * omega for n in names]
            kd = [2.0 * h0[n] * omega for n in names]
            t0 = s.tick
            ticks = round(a.seconds / w.dt)
            hold_from = t0 + ticks - round(2.0 / w.dt)
            max_err = [0.0] * 7
            rtt = []
            pending = None
            g, g_tick = None, None
            while s.tick < t0 + ticks:
                if g is None or s.tick - g_tick >= every:
                    q = {names[j.id]: j.position for j in s.joints}
                    g, g_tick = robot.gravity(q, gvec), s.tick
                cmd = []
                for j in s.joints:
                    k = j.id
                    tau = kp[k] * (target[k] - j.position) - kd[k] * j.velocity + g[names[k]]
                    cmd.append(joint_torque(k, tau))
                sent = now_ns()
                seq = ctl.send_joints(cmd)
                if pending is None:
                    pending = (seq, sent)
                s = ctl.next_state()
                if s.errors:
                    raise SystemExit(f"command {s.errors[0].seq} rejected: {s.errors[0].message}")
                ack = ctl.own_ack(s)
                if pending is not None and ack is not None and ack.seq >= pending[0]:
                    rtt.append((now_ns() - pending[1]) / 1e3)
                    pending = None
                if s.tick >= hold_from:
                    for j in s.joints:
                        max_err[j.id] = max(max_err[j.id], abs(j.position - target[j.id]))
            final = [abs(j.position - target[j.id]) for j in s.joints]
            ctl.close()
        finally:
            if a.lockstep:
                c.set_mode(prev)
    rtt.sort()
    pct = lambda f: rtt[min(len(rtt) - 1, int(f * len(rtt)))]
    mode = "lockstep" if a.lockstep else "realtime"
    print(f"arm_pd.py ({mode}): {s.tick - t0} ticks, max |q - q*| over the last 2 s = {max(max_err):.2e} rad, final = {max(final):.2e} rad")
    print(f"round trip command -> acknowledging state: p50 {pct(0.5):.0f} us, p99 {pct(0.99):.0f} us ({len(rtt)} samples)")
    assert max(final) < 1e-3, f"hold failed: final errors {final}"
    print("OK")


if __name__ == "__main__":
    main()
