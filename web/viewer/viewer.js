// rtphys web viewer: WebGL2 renderer, orbit camera, live state over a WebSocket,
// plots on 2D canvases. Everything the page shows is also in `window.rtphys`
// (the browser test reads it).
'use strict';

const params = new URLSearchParams(location.search);
const token = params.get('token');
const recordingURL = params.get('recording');
const q = token ? '?token=' + encodeURIComponent(token) : '';
const V = {
  ready: false, world: null, state: null, drawnBodies: 0, drawn: {}, frames: 0,
  stats: [], replies: [], picked: -1, showContacts: true, showAxes: true, errors: [],
  mode: 'live', recording: null,
  showForces: true, showFrames: false, forceScale: 0.01, arrows: 0, bodyFrames: 0,
  showHaptic: true, haptic: [], jointSel: [], jointSamples: [], jointPlot: { samples: 0 },
};
window.rtphys = V;

// ---------- small vector / matrix helpers (column-major 4x4) ----------
function mat4Mul(a, b) {
  const o = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) {
    let s = 0;
    for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
    o[c * 4 + r] = s;
  }
  return o;
}
function poseMat(p, s) { // p = [x y z qw qx qy qz], s = optional scale [sx sy sz]
  const [x, y, z, w, i, j, k] = p;
  const sx = s ? s[0] : 1, sy = s ? s[1] : 1, sz = s ? s[2] : 1;
  return new Float32Array([
    (1 - 2 * (j * j + k * k)) * sx, 2 * (i * j + w * k) * sx, 2 * (i * k - w * j) * sx, 0,
    2 * (i * j - w * k) * sy, (1 - 2 * (i * i + k * k)) * sy, 2 * (j * k + w * i) * sy, 0,
    2 * (i * k + w * j) * sz, 2 * (j * k - w * i) * sz, (1 - 2 * (i * i + j * j)) * sz, 0,
    x, y, z, 1]);
}
function perspective(fovy, aspect, n, f) {
  const t = 1 / Math.tan(fovy / 2);
  return new Float32Array([t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (f + n) / (n - f), -1, 0, 0, 2 * f * n / (n - f), 0]);
}
function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }
function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
function norm(a) { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; }
function lookAt(eye, at, up) {
  const f = norm(sub(at, eye)), s = norm(cross(f, up)), u = cross(s, f);
  return new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
    -dot(s, eye), -dot(u, eye), dot(f, eye), 1]);
}

// ---------- WebGL2 ----------
const canvas = document.getElementById('gl');
const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
if (!gl) throw new Error('WebGL2 is not available in this browser');
function shader(type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src); gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}
function program(vs, fs) {
  const p = gl.createProgram();
  gl.attachShader(p, shader(gl.VERTEX_SHADER, vs)); gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fs));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}
const litProg = program(`#version 300 es
layout(location=0) in vec3 pos; layout(location=1) in vec3 nrm;
uniform mat4 vp, model; out vec3 n; out vec3 wp;
void main() { vec4 w = model * vec4(pos, 1.0); wp = w.xyz; n = mat3(model) * nrm; gl_Position = vp * w; }`,
`#version 300 es
precision highp float; in vec3 n; in vec3 wp; uniform vec4 color; uniform vec3 eye; out vec4 o;
void main() {
  vec3 N = normalize(n); vec3 L = normalize(vec3(0.4, 0.3, 1.0)); vec3 E = normalize(eye - wp);
  float d = max(dot(N, L), 0.0); float s = pow(max(dot(reflect(-L, N), E), 0.0), 32.0);
  o = vec4(color.rgb * (0.28 + 0.72 * d) + 0.25 * s, color.a);
}`);
const lineProg = program(`#version 300 es
layout(location=0) in vec3 pos; layout(location=1) in vec3 col; uniform mat4 vp; out vec3 c;
void main() { c = col; gl_Position = vp * vec4(pos, 1.0); gl_PointSize = 7.0; }`,
`#version 300 es
precision highp float; in vec3 c; out vec4 o; void main() { o = vec4(c, 1.0); }`);
const U = (p, n) => gl.getUniformLocation(p, n);
const litU = { vp: U(litProg, 'vp'), model: U(litProg, 'model'), color: U(litProg, 'color'), eye: U(litProg, 'eye') };
const lineU = { vp: U(lineProg, 'vp') };

function meshFrom(pos, nrm, idx) {
  const vao = gl.createVertexArray(); gl.bindVertexArray(vao);
  for (const [loc, data] of [[0, pos], [1, nrm]]) {
    const b = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.STATIC_DRAW);
    gl.enableVertexAttribArray(loc); gl.vertexAttribPointer(loc, 3, gl.FLOAT, false, 0, 0);
  }
  const ib = gl.createBuffer(); gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(idx), gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, n: idx.length };
}
function boxMesh(h) {
  const pos = [], nrm = [], idx = [];
  for (let a = 0; a < 3; a++) for (const sgn of [-1, 1]) {
    const b = (a + 1) % 3, c = (a + 2) % 3, base = pos.length / 3;
    for (const [u, v] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
      const p = [0, 0, 0]; p[a] = sgn * h[a]; p[b] = u * h[b]; p[c] = v * h[c];
      const nn = [0, 0, 0]; nn[a] = sgn; pos.push(...p); nrm.push(...nn);
    }
    if (sgn > 0) idx.push(base, base + 1, base + 2, base, base + 2, base + 3);
    else idx.push(base, base + 2, base + 1, base, base + 3, base + 2);
  }
  return meshFrom(pos, nrm, idx);
}
// Surface of revolution about z from a profile [(r, z, nr, nz)].
function lathe(profile, seg = 32) {
  const pos = [], nrm = [], idx = [];
  for (let i = 0; i <= seg; i++) {
    const t = 2 * Math.PI * i / seg, c = Math.cos(t), s = Math.sin(t);
    for (const [r, z, nr, nz] of profile) { pos.push(r * c, r * s, z); nrm.push(nr * c, nr * s, nz); }
  }
  const m = profile.length;
  for (let i = 0; i < seg; i++) for (let j = 0; j + 1 < m; j++) {
    const a = i * m + j, b = (i + 1) * m + j;
    idx.push(a, b, a + 1, a + 1, b, b + 1);
  }
  return meshFrom(pos, nrm, idx);
}
function sphereProfile(r, zc, from, to, n = 12) {
  const p = [];
  for (let i = 0; i <= n; i++) {
    const phi = from + (to - from) * i / n; // polar angle from -z
    const nr = Math.sin(phi), nz = -Math.cos(phi);
    p.push([r * nr, zc + r * nz, nr, nz]);
  }
  return p;
}
function sphereMesh(r) { return lathe(sphereProfile(r, 0, 0, Math.PI, 16)); }
function capsuleMesh(r, h) {
  return lathe([...sphereProfile(r, -h, 0, Math.PI / 2), ...sphereProfile(r, h, Math.PI / 2, Math.PI)]);
}
function cylinderMesh(r, h) {
  return lathe([[0, -h, 0, -1], [r, -h, 0, -1], [r, -h, 1, 0], [r, h, 1, 0], [r, h, 0, 1], [0, h, 0, 1]]);
}
function polytopeMesh(verts, faces) {
  const pos = [], nrm = [], idx = [];
  for (const f of faces) {
    const p = f.map(i => [verts[3 * i], verts[3 * i + 1], verts[3 * i + 2]]);
    const nn = norm(cross(sub(p[1], p[0]), sub(p[2], p[0])));
    const base = pos.length / 3;
    for (const v of p) { pos.push(...v); nrm.push(...nn); }
    for (let k = 1; k + 1 < p.length; k++) idx.push(base, base + k, base + k + 1);
  }
  return meshFrom(pos, nrm, idx);
}

// Dynamic line/point buffer (grid, axes, contacts).
function lineBuffer() {
  const vao = gl.createVertexArray(), buf = gl.createBuffer();
  gl.bindVertexArray(vao); gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 24, 0);
  gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 24, 12);
  gl.bindVertexArray(null);
  return {
    vao, n: 0, set(data) {
      gl.bindBuffer(gl.ARRAY_BUFFER, buf); gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(data), gl.DYNAMIC_DRAW);
      this.n = data.length / 6;
    }
  };
}
const grid = lineBuffer(), axes = lineBuffer(), contactPts = lineBuffer(), contactLines = lineBuffer();
const forceLines = lineBuffer(), frameLines = lineBuffer();
axes.set([0, 0, 0, 1, .2, .2, .5, 0, 0, 1, .2, .2, 0, 0, 0, .2, 1, .2, 0, .5, 0, .2, 1, .2, 0, 0, 0, .3, .5, 1, 0, 0, .5, .3, .5, 1]);

// ---------- scene ----------
const NAMED = { red: [.85, .2, .2], blue: [.25, .4, .9], green: [.25, .75, .3], yellow: [.95, .8, .2],
  orange: [.95, .55, .15], purple: [.6, .3, .8], white: [.9, .9, .9], black: [.2, .2, .2] };
const PALETTE = [[.35, .6, .9], [.9, .55, .25], [.4, .75, .45], [.8, .35, .55], [.65, .55, .85], [.85, .75, .3], [.3, .75, .75]];
function bodyColor(b) {
  const n = b.name.toLowerCase();
  for (const k in NAMED) if (n.includes(k)) return NAMED[k];
  if (b.static) return [.55, .5, .45];
  return PALETTE[b.id % PALETTE.length];
}
let items = []; // {body, mesh, local (Float32Array), color, bound}
function buildScene(w) {
  items = [];
  const gridLines = [];
  for (const g of w.geoms) {
    const s = g.shape, b = w.bodies[g.body];
    let mesh = null, bound = 0;
    if (s.type === 'plane') {
      // A ground grid in the plane's frame (world pose of a static plane).
      const m = poseMat(g.pose), E = 5;
      const P = (x, y) => { const o = poseMat(b.position.concat(b.orientation)); const mm = mat4Mul(o, m);
        return [mm[0] * x + mm[4] * y + mm[12], mm[1] * x + mm[5] * y + mm[13], mm[2] * x + mm[6] * y + mm[14]]; };
      for (let i = -E * 2; i <= E * 2; i++) {
        const t = i / 2, c = i === 0 ? [.5, .5, .55] : [.3, .32, .36];
        gridLines.push(...P(t, -E), ...c, ...P(t, E), ...c, ...P(-E, t), ...c, ...P(E, t), ...c);
      }
      continue;
    }
    if (s.type === 'box') { mesh = boxMesh(s.half); bound = Math.hypot(...s.half); }
    else if (s.type === 'sphere') { mesh = sphereMesh(s.radius); bound = s.radius; }
    else if (s.type === 'capsule') { mesh = capsuleMesh(s.radius, s.half_length); bound = s.radius + s.half_length; }
    else if (s.type === 'cylinder') { mesh = cylinderMesh(s.radius, s.half_length); bound = Math.hypot(s.radius, s.half_length); }
    else if (s.type === 'polytope') {
      mesh = polytopeMesh(s.vertices, s.faces);
      for (let i = 0; i < s.vertices.length; i += 3) bound = Math.max(bound, Math.hypot(s.vertices[i], s.vertices[i + 1], s.vertices[i + 2]));
    }
    if (mesh) items.push({ body: g.body, mesh, local: poseMat(g.pose), lp: g.pose, color: bodyColor(b), bound });
  }
  grid.set(gridLines);
  V.drawnBodies = 0;
}
function bodyPose(id) {
  const s = V.state;
  if (s && s.bodies[id]) return s.bodies[id].slice(0, 7);
  const b = V.world.bodies[id];
  return b.position.concat(b.orientation);
}

// ---------- camera ----------
const cam = { yaw: -0.9, pitch: 0.45, dist: 3.2, target: [0, 0, 0.6] };
function eyePos() {
  const c = Math.cos(cam.pitch);
  return [cam.target[0] + cam.dist * c * Math.cos(cam.yaw), cam.target[1] + cam.dist * c * Math.sin(cam.yaw),
    cam.target[2] + cam.dist * Math.sin(cam.pitch)];
}
let drag = null;
canvas.addEventListener('contextmenu', e => e.preventDefault());
canvas.addEventListener('mousedown', e => { drag = { x: e.clientX, y: e.clientY, b: e.button, shift: e.shiftKey, moved: false }; });
window.addEventListener('mouseup', e => { if (drag && !drag.moved && drag.b === 0) pick(e); drag = null; });
window.addEventListener('mousemove', e => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
  drag.x = e.clientX; drag.y = e.clientY;
  if (drag.b === 2 || drag.shift) { // pan in the view plane
    const eye = eyePos(), f = norm(sub(cam.target, eye)), r = norm(cross(f, [0, 0, 1])), u = cross(r, f);
    const k = cam.dist * 0.0015;
    for (let i = 0; i < 3; i++) cam.target[i] += (-dx * r[i] + dy * u[i]) * k;
  } else {
    cam.yaw -= dx * 0.008; cam.pitch = Math.max(-1.5, Math.min(1.5, cam.pitch + dy * 0.008));
  }
});
canvas.addEventListener('wheel', e => { e.preventDefault(); cam.dist = Math.max(0.05, Math.min(200, cam.dist * Math.exp(e.deltaY * 0.001))); }, { passive: false });

let vpMat = null;
function pick(e) {
  if (!V.world || !vpMat) return;
  const r = canvas.getBoundingClientRect();
  const nx = 2 * (e.clientX - r.left) / r.width - 1, ny = 1 - 2 * (e.clientY - r.top) / r.height;
  // Ray through the pixel: the camera basis and field of view of draw().
  const eye = eyePos(), f = norm(sub(cam.target, eye)), rr = norm(cross(f, [0, 0, 1])), u = cross(rr, f);
  const t = Math.tan(FOV / 2), a = r.width / r.height;
  const d = norm([0, 1, 2].map(i => f[i] + rr[i] * nx * t * a + u[i] * ny * t));
  let best = -1, bestT = Infinity;
  for (const it of items) {
    const m = mat4Mul(poseMat(bodyPose(it.body)), it.local), c = [m[12], m[13], m[14]];
    const oc = sub(c, eye), tc = dot(oc, d), d2 = dot(oc, oc) - tc * tc;
    if (tc > 0 && d2 < it.bound * it.bound && tc < bestT) { bestT = tc; best = it.body; }
  }
  V.picked = best;
  showPick();
}
function fmt(a) { return a.map(x => x.toFixed(3).padStart(7)).join(' '); }
function showPick() {
  const el = document.getElementById('pick');
  if (V.picked < 0 || !V.world) { el.style.display = 'none'; return; }
  const b = V.world.bodies[V.picked], s = V.state && V.state.bodies[V.picked];
  let t = `${b.name} (id ${b.id}${b.static ? ', static' : `, ${b.mass.toFixed(3)} kg`})`;
  if (s) {
    t += `\nposition ${fmt(s.slice(0, 3))} m\nquat wxyz ${fmt(s.slice(3, 7))}\nvelocity ${fmt(s.slice(7, 10))} m/s\nang.vel. ${fmt(s.slice(10, 13))} rad/s`;
    const c = (V.state.contacts || []).filter(c => c[13] === V.picked || c[14] === V.picked).length;
    t += `\ncontacts ${c}`;
  }
  el.textContent = t; el.style.display = 'block';
}

// ---------- draw ----------
const FOV = 0.8;
function draw() {
  requestAnimationFrame(draw);
  advancePlayback();
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.floor(canvas.clientWidth * dpr)), h = Math.max(1, Math.floor(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  gl.viewport(0, 0, w, h);
  gl.clearColor(0.106, 0.118, 0.141, 1); gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.DEPTH_TEST);
  if (!V.world) return;
  const eye = eyePos();
  vpMat = mat4Mul(perspective(FOV, w / h, 0.01, 500), lookAt(eye, cam.target, [0, 0, 1]));
  gl.useProgram(litProg);
  gl.uniformMatrix4fv(litU.vp, false, vpMat); gl.uniform3fv(litU.eye, eye);
  const drawn = {};
  for (const it of items) {
    const bm = poseMat(bodyPose(it.body)), m = mat4Mul(bm, it.local);
    drawn[it.body] = [bm[12], bm[13], bm[14]];
    const c = it.color, hi = it.body === V.picked ? 0.25 : 0;
    gl.uniformMatrix4fv(litU.model, false, m); gl.uniform4f(litU.color, c[0] + hi, c[1] + hi, c[2] + hi, 1);
    gl.bindVertexArray(it.mesh.vao); gl.drawElements(gl.TRIANGLES, it.mesh.n, gl.UNSIGNED_INT, 0);
  }
  V.drawn = drawn; V.drawnBodies = Object.keys(drawn).length; V.frames++;
  gl.useProgram(lineProg); gl.uniformMatrix4fv(lineU.vp, false, vpMat);
  gl.bindVertexArray(grid.vao); gl.drawArrays(gl.LINES, 0, grid.n);
  if (V.showContacts && V.state) {
    const pts = [], ln = [];
    for (const c of V.state.contacts) {
      pts.push(c[0], c[1], c[2], 1, .9, .1);
      const L = 0.08;
      ln.push(c[0], c[1], c[2], 1, .9, .1, c[0] + L * c[3], c[1] + L * c[4], c[2] + L * c[5], 1, .5, .1);
    }
    contactPts.set(pts); contactLines.set(ln);
    gl.disable(gl.DEPTH_TEST);
    gl.bindVertexArray(contactLines.vao); gl.drawArrays(gl.LINES, 0, contactLines.n);
    gl.bindVertexArray(contactPts.vao); gl.drawArrays(gl.POINTS, 0, contactPts.n);
    gl.enable(gl.DEPTH_TEST);
  }
  // Force arrows: each contact's force (world, N) from its point, V.forceScale m per N,
  // with a two-stroke head; contacts carrying no force draw none.
  let arrows = 0;
  if (V.showForces && V.state) {
    const ln = [], col = [1, .25, .2];
    for (const c of V.state.contacts) {
      const f = [c[6], c[7], c[8]], mag = Math.hypot(f[0], f[1], f[2]);
      if (!(mag > 0)) continue;
      const e = [c[0] + V.forceScale * f[0], c[1] + V.forceScale * f[1], c[2] + V.forceScale * f[2]];
      ln.push(c[0], c[1], c[2], ...col, ...e, ...col);
      const d = norm(f), side = norm(Math.abs(d[2]) < 0.9 ? cross(d, [0, 0, 1]) : cross(d, [1, 0, 0]));
      const h = Math.min(0.02, 0.3 * V.forceScale * mag);
      for (const sgn of [1, -1]) ln.push(...e, ...col, e[0] - h * d[0] + sgn * 0.5 * h * side[0],
        e[1] - h * d[1] + sgn * 0.5 * h * side[1], e[2] - h * d[2] + sgn * 0.5 * h * side[2], ...col);
      arrows++;
    }
    forceLines.set(ln);
    gl.disable(gl.DEPTH_TEST);
    gl.bindVertexArray(forceLines.vao); gl.drawArrays(gl.LINES, 0, forceLines.n);
    gl.enable(gl.DEPTH_TEST);
  }
  V.arrows = arrows;
  // Body frames: x, y, z axes (red, green, blue, 0.1 m) of every drawn body.
  let nframes = 0;
  if (V.showFrames) {
    const ln = [], L = 0.1, C = [[1, .2, .2], [.2, 1, .2], [.3, .5, 1]];
    for (const id in drawn) {
      const m = poseMat(bodyPose(+id)), o = [m[12], m[13], m[14]];
      for (let a = 0; a < 3; a++) ln.push(...o, ...C[a], o[0] + L * m[4 * a], o[1] + L * m[4 * a + 1], o[2] + L * m[4 * a + 2], ...C[a]);
      nframes++;
    }
    frameLines.set(ln);
    gl.bindVertexArray(frameLines.vao); gl.drawArrays(gl.LINES, 0, frameLines.n);
  }
  V.bodyFrames = nframes;
  drawHaptic();
  if (V.showAxes) { gl.bindVertexArray(axes.vao); gl.drawArrays(gl.LINES, 0, axes.n); }
  gl.bindVertexArray(null);
}

// Haptic devices (state frames' `haptic`: [id, target(7), tool(7), force(3), contact]):
// the device's target pose as a small sphere with its frame, the coupling spring as
// a line from it to the tool body, the force rendered to the device as an arrow
// from the target (V.forceScale m per N). V.haptic lists what was drawn.
const hapticLines = lineBuffer();
let hapticSphere = null;
function drawHaptic() {
  const drawnH = [];
  if (V.showHaptic && V.state && V.state.haptic && V.state.haptic.length) {
    if (!hapticSphere) hapticSphere = sphereMesh(0.012);
    const ln = [], spring = [.95, .85, .2], fcol = [.3, 1, .5], C = [[1, .2, .2], [.2, 1, .2], [.3, .5, 1]];
    gl.useProgram(litProg);
    for (const h of V.state.haptic) {
      const tp = h.slice(1, 8), tool = h.slice(8, 11), f = h.slice(15, 18);
      gl.uniformMatrix4fv(litU.model, false, poseMat(tp)); gl.uniform4f(litU.color, .9, .3, .9, 1);
      gl.bindVertexArray(hapticSphere.vao); gl.drawElements(gl.TRIANGLES, hapticSphere.n, gl.UNSIGNED_INT, 0);
      const m = poseMat(tp), o = [m[12], m[13], m[14]], L = 0.05;
      for (let a = 0; a < 3; a++) ln.push(...o, ...C[a], o[0] + L * m[4 * a], o[1] + L * m[4 * a + 1], o[2] + L * m[4 * a + 2], ...C[a]);
      ln.push(...o, ...spring, ...tool, ...spring);
      const e = [o[0] + V.forceScale * f[0], o[1] + V.forceScale * f[1], o[2] + V.forceScale * f[2]];
      if (Math.hypot(f[0], f[1], f[2]) > 0) ln.push(...o, ...fcol, ...e, ...fcol);
      drawnH.push({ id: h[0], target: o, tool, force: f, contact: h[18] > 0 });
    }
    gl.useProgram(lineProg);
    hapticLines.set(ln);
    gl.disable(gl.DEPTH_TEST);
    gl.bindVertexArray(hapticLines.vao); gl.drawArrays(gl.LINES, 0, hapticLines.n);
    gl.enable(gl.DEPTH_TEST);
  }
  V.haptic = drawnH;
}

// ---------- plots ----------
const PLOTS = [
  { key: 'lateness', title: 'tick lateness p50 / p99 (µs)', series: s => [s.lateness_us[0], s.lateness_us[1]] },
  { key: 'compute', title: 'tick compute p50 / p99 (µs)', series: s => [s.compute_us[0], s.compute_us[1]] },
  { key: 'rtf', title: 'realtime factor (last second)', series: s => [s.rtf] },
  { key: 'overruns', title: 'overruns, dropped states (total)', series: s => [s.overruns, s.dropped] },
  { key: 'ke', title: 'kinetic energy (J)', series: s => [s.kinetic_energy] },
  { key: 'contacts', title: 'contact points', series: s => [s.contact_points] },
  { key: 'pen', title: 'max penetration (mm)', series: s => [s.max_penetration * 1e3] },
];
const COLORS = ['#5fb0ff', '#ff9f43', '#7bd88f'];
const WINDOW_S = 30;
const side = document.getElementById('side');
for (const p of PLOTS) {
  p.canvas = document.createElement('canvas'); p.canvas.id = 'plot-' + p.key; side.appendChild(p.canvas);
  p.samples = 0;
}
// Joint plots: the selected joints' q and τ (state frames' `joints`, [q, τ] per
// joint) over the last JOINT_WINDOW_S of simulated time.
const JOINT_WINDOW_S = 10;
const JCOLORS = ['#5fb0ff', '#ff9f43', '#7bd88f', '#ff6b81', '#c39bff', '#f5d76e', '#4fd1c5'];
const jointBox = document.createElement('div'); jointBox.id = 'joints'; jointBox.style.display = 'none';
jointBox.innerHTML = '<label style="font-size:11px;color:#aab">joints (ctrl/shift: several)<br>' +
  '<select id="jointsel" multiple size="4" style="width:100%;background:#101216;color:#dde"></select></label>';
const jq = document.createElement('canvas'), jt = document.createElement('canvas');
jq.id = 'plot-joint-q'; jt.id = 'plot-joint-tau';
jointBox.appendChild(jq); jointBox.appendChild(jt);
side.insertBefore(jointBox, side.firstChild);
const jointSel = jointBox.querySelector('#jointsel');
jointSel.onchange = () => { V.jointSel = [...jointSel.selectedOptions].map(o => +o.value); drawJointPlots(); };
function setupJoints(w) {
  const js = w.joints || [];
  jointSel.innerHTML = '';
  for (const j of js) {
    const o = document.createElement('option'); o.value = j.id; o.textContent = `${j.name} (${j.type})`;
    jointSel.appendChild(o);
  }
  if (js.length) jointSel.options[0].selected = true;
  V.jointSel = js.length ? [js[0].id] : [];
  V.jointSamples = [];
  jointBox.style.display = js.length ? 'block' : 'none';
}
function pushJoints(m) {
  if (!m.joints || !m.joints.length) return;
  const S = V.jointSamples;
  if (S.length && m.time < S[S.length - 1].time) S.length = 0; // reset / restore
  if (S.length && m.tick === S[S.length - 1].tick) S.pop(); // the same tick resent
  S.push({ time: m.time, tick: m.tick, q: m.joints.map(j => j[0]), tau: m.joints.map(j => j[1]) });
  while (S.length && S[0].time < m.time - JOINT_WINDOW_S) S.shift();
}
function plotSeries(c, title, pts, now, win, colors, unit) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.floor(c.clientWidth * dpr), h = Math.floor(c.clientHeight * dpr);
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  const x = c.getContext('2d'); x.setTransform(dpr, 0, 0, dpr, 0, 0);
  const W = c.clientWidth, H = c.clientHeight, top = 16, bot = H - 4;
  x.clearRect(0, 0, W, H);
  let lo = Infinity, hi = -Infinity;
  for (const [, v] of pts) for (const y of v) if (Number.isFinite(y)) { lo = Math.min(lo, y); hi = Math.max(hi, y); }
  if (!(hi > lo)) { lo = (Number.isFinite(lo) ? lo : 0) - 1e-3; hi = lo + 2e-3; }
  const pad = 0.1 * (hi - lo); lo -= pad; hi += pad;
  x.fillStyle = '#aab'; x.font = '11px sans-serif';
  const last = pts.length ? pts[pts.length - 1][1].map(v => (+v).toPrecision(4)).join(' / ') : '–';
  x.fillText(`${title}: ${last} ${unit}`, 4, 11);
  x.strokeStyle = '#2a2e38'; x.beginPath();
  for (let t = Math.ceil(now - win); t <= now; t++) { const X = W * (1 - (now - t) / win); x.moveTo(X, top); x.lineTo(X, bot); }
  x.stroke();
  const n = pts.length ? pts[0][1].length : 0;
  for (let k = 0; k < n; k++) {
    x.strokeStyle = colors[k % colors.length]; x.beginPath();
    pts.forEach(([t, v], i) => {
      const X = W * (1 - (now - t) / win), Y = bot - (bot - top) * (v[k] - lo) / (hi - lo);
      if (i) x.lineTo(X, Y); else x.moveTo(X, Y);
    });
    x.stroke();
  }
}
function drawJointPlots() {
  const S = V.jointSamples, sel = V.jointSel;
  if (!S.length || !sel.length) { V.jointPlot = { samples: 0, joints: sel }; return; }
  const now = S[S.length - 1].time;
  const q = S.map(s => [s.time, sel.map(j => s.q[j])]), tau = S.map(s => [s.time, sel.map(j => s.tau[j])]);
  plotSeries(jq, 'joint q', q, now, JOINT_WINDOW_S, JCOLORS, 'rad | m');
  plotSeries(jt, 'joint τ', tau, now, JOINT_WINDOW_S, JCOLORS, 'N·m | N');
  const L = S[S.length - 1];
  V.jointPlot = { samples: S.length, joints: sel.slice(), tick: L.tick, time: L.time,
    q: q[q.length - 1][1], tau: tau[tau.length - 1][1] };
}

function drawPlots() {
  const now = V.stats.length ? V.stats[V.stats.length - 1].uptime : 0;
  for (const p of PLOTS) {
    const c = p.canvas, dpr = window.devicePixelRatio || 1;
    const w = Math.floor(c.clientWidth * dpr), h = Math.floor(c.clientHeight * dpr);
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
    const x = c.getContext('2d'); x.setTransform(dpr, 0, 0, dpr, 0, 0);
    const W = c.clientWidth, H = c.clientHeight, top = 16, bot = H - 4;
    x.clearRect(0, 0, W, H);
    const pts = V.stats.filter(s => s.uptime >= now - WINDOW_S).map(s => [s.uptime, p.series(s)]);
    let lo = 0, hi = 1e-12;
    for (const [, v] of pts) for (const y of v) if (Number.isFinite(y)) { lo = Math.min(lo, y); hi = Math.max(hi, y); }
    hi = hi + 0.1 * (hi - lo);
    x.fillStyle = '#aab'; x.font = '11px sans-serif';
    const last = pts.length ? pts[pts.length - 1][1].map(v => (+v).toPrecision(4)).join(' / ') : '–';
    x.fillText(`${p.title}: ${last}`, 4, 11);
    x.strokeStyle = '#2a2e38'; x.beginPath();
    for (let t = Math.ceil(now - WINDOW_S); t <= now; t++) if (t % 5 === 0) { const X = W * (1 - (now - t) / WINDOW_S); x.moveTo(X, top); x.lineTo(X, bot); }
    x.stroke();
    const n = pts.length ? pts[0][1].length : 0;
    for (let k = 0; k < n; k++) {
      x.strokeStyle = COLORS[k]; x.beginPath();
      pts.forEach(([t, v], i) => {
        const X = W * (1 - (now - t) / WINDOW_S), Y = bot - (bot - top) * (v[k] - lo) / (hi - lo);
        if (i) x.lineTo(X, Y); else x.moveTo(X, Y);
      });
      x.stroke();
    }
    p.samples = pts.length;
  }
}

// ---------- network ----------
let ws = null;
async function loadWorld() {
  const r = await fetch('api/world' + q);
  if (!r.ok) throw new Error(`GET /api/world: ${r.status} ${await r.text()}`);
  V.world = await r.json();
  V.state = null;
  buildScene(V.world);
  setupJoints(V.world);
}
function send(cmd) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(cmd)); }
function connect() {
  const u = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + location.pathname.replace(/[^/]*$/, '') + 'ws' + q;
  ws = new WebSocket(u);
  ws.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.t === 'state') {
      if (V.world && m.generation === V.world.generation) {
        V.state = m;
        pushJoints(m);
        drawJointPlots();
      }
      V.ready = V.world !== null;
    } else if (m.t === 'stats') {
      V.stats.push(m);
      while (V.stats.length && V.stats[0].uptime < m.uptime - 2 * WINDOW_S) V.stats.shift();
      drawPlots();
    } else if (m.t === 'world') {
      loadWorld().catch(e => console.error(String(e)));
    } else if (m.t === 'reply') {
      V.replies.push(m);
      if (m.cmd === 'record' && m.ok) { V.recordingFile = m.file; document.getElementById('record').textContent = 'Stop rec'; }
      if (m.cmd === 'record' && !m.ok) V.recordingFile = null;
      if (m.cmd === 'stop_record') {
        document.getElementById('record').textContent = 'Record';
        if (m.ok) {
          const a = document.getElementById('reclink');
          a.href = '?recording=' + encodeURIComponent('recordings/' + m.file + q);
          a.textContent = `${m.file} (${m.frames} frames)`;
        }
        V.recordingFile = null;
      }
      if (!m.ok) console.warn(`${m.cmd}: ${m.error}`);
    }
    updateStatus();
  };
  ws.onclose = () => { document.getElementById('status').textContent = 'disconnected — retrying…'; setTimeout(connect, 1000); };
}
// ---------- recordings (docs/RECORDING.md) ----------
// Header: "RTPHYSVR", u32 version, u32 header length, header JSON; then fixed-size
// frames (u64 tick, f64 time, 7 f32 per body), so frame k is found by arithmetic.
function parseRecording(buf) {
  if (buf.byteLength < 16) throw new Error('not an rtphys recording: ' + buf.byteLength + ' bytes');
  const dv = new DataView(buf);
  const magic = new TextDecoder().decode(new Uint8Array(buf, 0, 8));
  if (magic !== 'RTPHYSVR') throw new Error('not an rtphys recording (magic ' + JSON.stringify(magic) + ')');
  const version = dv.getUint32(8, true);
  if (version !== 1) throw new Error('recording version ' + version + ' is not supported (this page reads 1)');
  const hlen = dv.getUint32(12, true);
  if (16 + hlen > buf.byteLength) throw new Error('recording truncated in its header');
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 16, hlen)));
  const n = header.bodies, size = 16 + 28 * n, base = 16 + hlen;
  return { header, dv, n, size, base, count: Math.floor((buf.byteLength - base) / size), frame: 0, playing: false, clock: 0 };
}
function recFrame(k) {
  const R = V.recording, o = R.base + k * R.size, dv = R.dv, bodies = [];
  for (let i = 0; i < R.n; i++) {
    const p = [];
    for (let j = 0; j < 7; j++) p.push(dv.getFloat32(o + 16 + 28 * i + 4 * j, true));
    bodies.push(p);
  }
  return { t: 'state', tick: Number(dv.getBigUint64(o, true)), time: dv.getFloat64(o + 8, true),
    generation: V.world.generation, paused: !R.playing, faulted: false, bodies, contacts: [] };
}
function showFrame(k) {
  const R = V.recording;
  if (!R || !R.count) return;
  R.frame = Math.max(0, Math.min(R.count - 1, Math.round(k)));
  V.state = recFrame(R.frame);
  document.getElementById('scrub').value = R.frame;
  document.getElementById('frame').textContent = `frame ${R.frame + 1}/${R.count} · tick ${V.state.tick} · t ${V.state.time.toFixed(3)} s`;
  updateStatus();
}
function openRecording(buf, name) {
  const R = parseRecording(buf);
  if (ws) { ws.onclose = null; ws.close(); ws = null; }
  V.mode = 'recording'; V.recording = R; R.name = name;
  V.world = R.header.world; V.stats = []; drawPlots();
  buildScene(V.world);
  for (const id of ['pause', 'resume', 'step', 'reset', 'record']) document.getElementById(id).style.display = 'none';
  document.getElementById('timeline').style.display = 'flex';
  document.getElementById('scrub').max = Math.max(0, R.count - 1);
  showFrame(0);
  V.ready = true;
}
function setPlaying(on) {
  const R = V.recording;
  if (!R) return;
  if (on && R.frame >= R.count - 1) showFrame(0);
  R.playing = on; R.clock = performance.now(); R.start = R.frame;
  document.getElementById('play').textContent = on ? 'Pause' : 'Play';
}
function advancePlayback() { // real time: frame_rate_hz frames per second
  const R = V.recording;
  if (!R || !R.playing) return;
  const k = R.start + (performance.now() - R.clock) / 1000 * R.header.frame_rate_hz;
  if (k >= R.count - 1) { showFrame(R.count - 1); setPlaying(false); } else if (Math.floor(k) !== R.frame) showFrame(Math.floor(k));
}
document.getElementById('scrub').oninput = e => { setPlaying(false); showFrame(+e.target.value); };
document.getElementById('play').onclick = () => setPlaying(!V.recording.playing);
document.getElementById('recfile').onchange = e => {
  const f = e.target.files[0];
  if (f) f.arrayBuffer().then(b => openRecording(b, f.name)).catch(err => {
    document.getElementById('status').textContent = String(err); console.error(String(err));
  });
};
V.showFrame = showFrame; V.setPlaying = setPlaying;

function updateStatus() {
  const s = V.state, st = V.stats[V.stats.length - 1];
  if (!s || !V.world) return;
  if (V.mode === 'recording') {
    document.getElementById('status').textContent =
      `recording ${V.recording.name} · ${V.world.scene} · ${V.world.method} · ${V.recording.count} frames at ${V.recording.header.frame_rate_hz.toFixed(1)} Hz`;
    showPick();
    return;
  }
  document.getElementById('status').textContent =
    `${V.world.scene} · ${V.world.method} · tick ${s.tick} · t ${s.time.toFixed(3)} s · ${s.paused ? 'PAUSED' : 'running'}` +
    (s.faulted ? ' · FAULTED (Reset)' : '') + (st ? ` · RTF ${st.rtf.toFixed(3)}` : '') + ` · ${s.contacts.length} contacts`;
  showPick();
}
document.getElementById('pause').onclick = () => send({ cmd: 'pause' });
document.getElementById('resume').onclick = () => send({ cmd: 'resume' });
document.getElementById('step').onclick = () => send({ cmd: 'step', n: 1 });
document.getElementById('reset').onclick = () => send({ cmd: 'reset' });
document.getElementById('record').onclick = () => {
  if (V.recordingFile) send({ cmd: 'stop_record' });
  else send({ cmd: 'record', file: 'viewer-' + new Date().toISOString().replace(/[:.]/g, '-') + '.rtrec', rate_hz: 30 });
};
document.getElementById('contacts').onchange = e => { V.showContacts = e.target.checked; };
document.getElementById('axes').onchange = e => { V.showAxes = e.target.checked; };
document.getElementById('forces').onchange = e => { V.showForces = e.target.checked; };
document.getElementById('frames').onchange = e => { V.showFrames = e.target.checked; };
document.getElementById('haptic').onchange = e => { V.showHaptic = e.target.checked; };
window.addEventListener('resize', drawPlots);

const start = recordingURL
  ? fetch(recordingURL).then(async r => {
    if (!r.ok) throw new Error(`GET ${recordingURL}: ${r.status} ${await r.text()}`);
    openRecording(await r.arrayBuffer(), recordingURL.replace(/[?].*$/, '').replace(/^.*\//, ''));
    requestAnimationFrame(draw);
  })
  : loadWorld().then(() => { connect(); requestAnimationFrame(draw); });
start.catch(e => {
  document.getElementById('status').textContent = String(e);
  console.error(String(e));
});
