// The 3D memory space: three.js through 3d-force-graph. Nodes start at their stored UMAP
// positions and are relaxed by the library's force simulation along the memory links.
//
// All memories are one THREE.Points and all links one THREE.LineSegments, drawn by shaders
// that work out each memory's state at the scrubber's time from per-vertex attributes (its
// validity interval, creation time, half-life): moving the scrubber sets one uniform and
// touches no array, so a frame costs the GPU's draw alone (two draw calls, one vertex per
// memory), which a software rasterizer affords at 5,000 memories. Typed arrays change only
// when the layout relaxes, a filter changes, or a search lights memories up.
import ForceGraph3D from "3d-force-graph";
import * as THREE from "three";
import { TYPE_COLORS, EDGE_COLORS } from "./model.js";

const BACKGROUND = new THREE.Color("#0b1020");
const GHOST = new THREE.Color("#b91c1c");
export const PATH_COLORS = {
  ENTITY: "#fb923c", SEMANTIC: "#22d3ee", KEYWORD: "#f0abfc", CONVERSATION: "#fde047",
  CORE: "#ffffff",
};
const OUT = "gl_Position = vec4(2.0, 2.0, 2.0, 1.0); gl_PointSize = 0.0;"; // clipped away
// Linear to sRGB once per vertex: the fragment shaders (run for every pixel, the costly part
// on a software rasterizer) then only shade.
const SRGB = `
vec3 srgb(vec3 c) {
  return mix(c * 12.92, 1.055 * pow(c, vec3(0.41666)) - 0.055, step(vec3(0.0031308), c));
}`;

// The state rule of model.stateAt, in GLSL: 0 hidden, 1 current, 2 superseded. `v` is
// (validFrom, supersededAt, expiresAt, shown by the filters), times in seconds from the start.
const STATE = `
uniform float uTime;
uniform float uGhosts;
float stateOf(vec4 v) {
  if (v.w < 0.5 || v.x > uTime || v.z <= uTime) return 0.0;
  if (v.y <= uTime) return uGhosts > 0.5 ? 2.0 : 0.0;
  return 1.0;
}`;

const POINT_VERTEX = `${STATE}${SRGB}
uniform float uScale;
uniform float uPulse;
uniform float uSelected;
uniform float uOnly;      // >= 0: draw that memory alone (pixelAt)
uniform vec3 uBackground;
uniform vec3 uGhost;
attribute vec4 aTimes;   // validFrom, supersededAt, expiresAt, shown
attribute vec3 aMeta;    // createdAt, half-life in days (0: never decays), base size
attribute float aWorking;
attribute vec3 aColor;
attribute vec4 aMark;    // a search hit's path colour, a = 1 when lit
varying vec3 vColor;
void main() {
  float s = stateOf(aTimes);
  if (s == 0.0 || (uOnly >= 0.0 && float(gl_VertexID) != uOnly)) { ${OUT} return; }
  float size = aMeta.z;
  vec3 color;
  if (s == 2.0) {
    size *= 0.6;
    color = uGhost;
  } else {
    float decay = aMeta.y > 0.0 ? exp(-0.69314718 * max(0.0, uTime - aMeta.x) / (86400.0 * aMeta.y)) : 1.0;
    color = mix(uBackground, aColor, max(0.2, decay));
    if (aWorking > 0.5) size *= uPulse;
  }
  if (aMark.a > 0.5) { color = aMark.rgb; size *= 1.8; }
  if (float(gl_VertexID) == uSelected) color = vec3(1.0);
  vec4 mv = modelViewMatrix * vec4(position, 1.0);
  gl_Position = projectionMatrix * mv;
  gl_PointSize = max(2.0, 2.0 * size * uScale / -mv.z);
  vColor = srgb(color);
}`;

// A disc shaded as a sphere lit from the upper left (no lights, one pass).
const POINT_FRAGMENT = `
varying vec3 vColor;
void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(p, p);
  if (r2 > 1.0) discard;
  vec3 n = vec3(p.x, -p.y, sqrt(1.0 - r2));
  float shade = 0.3 + 0.8 * max(0.0, dot(n, vec3(-0.36, 0.48, 0.8)));
  gl_FragColor = vec4(vColor * min(shade, 1.0), 1.0);
}`;

const LINE_VERTEX = `${STATE}${SRGB}
attribute vec4 aFrom;    // the source memory's aTimes
attribute vec4 aTo;      // the target memory's aTimes
attribute float aSupersedes;
attribute vec3 aColor;
varying vec3 vColor;
void main() {
  float a = stateOf(aFrom), b = stateOf(aTo);
  bool shown = aSupersedes > 0.5 ? (a == 1.0 && b == 2.0) : (a == 1.0 && b == 1.0);
  if (!shown) { ${OUT} return; }
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  vColor = srgb(aColor);
}`;

const LINE_FRAGMENT = `
varying vec3 vColor;
void main() {
  gl_FragColor = vec4(vColor, 1.0);
}`;

const DENSE = 2000; // memories: above this a view is drawn leaner (see drawnEdges, setTime)

// The links drawn: all of them, except that in a dense view each memory keeps only its
// strongest entity-overlap link (the server sends up to four): on a software rasterizer every
// link is paid per pixel every frame, and 9,000 grey lines across the ball hide the rest.
function drawnEdges(edges, memories) {
  if (memories <= DENSE) return edges;
  const overlap = edges.filter((e) => e.relation === "ENTITY_OVERLAP").sort((a, b) => b.weight - a.weight);
  const kept = new Set();
  const keep = overlap.filter((e) => {
    if (kept.has(e.source) || kept.has(e.target)) return false;
    kept.add(e.source);
    kept.add(e.target);
    return true;
  });
  return edges.filter((e) => e.relation !== "ENTITY_OVERLAP").concat(keep);
}

export class Space {
  constructor(el, model, { onSelect, onHover }) {
    this.model = model;
    this.visible = () => true; // the filter panel's predicate
    this.adaptive = true; // half resolution while the scrubber moves (large views)
    this.showGhosts = true;
    this.highlight = new Map(); // memory id -> path colour (search hits)
    this.selected = null;
    this.nodes = model.memories.map((m, i) => ({
      id: m.id, i, m, x: m.position.x, y: m.position.y, z: m.position.z,
    }));
    this.index = new Map(this.nodes.map((n) => [n.id, n]));
    this.links = drawnEdges(model.memoryEdges, this.nodes.length).map((e) => ({ source: e.source, target: e.target, e }));
    // No multisampling: on a software GPU it costs more than the whole scene.
    this.graph = ForceGraph3D({ controlType: "orbit", rendererConfig: { antialias: false } })(el)
      .backgroundColor("#0b1020")
      .showNavInfo(false)
      .nodeVisibility(false) // drawn by the Points: no object per memory in the scene
      .linkVisibility(false) // drawn by the LineSegments
      .enableNodeDrag(false)
      .enablePointerInteraction(false)
      .warmupTicks(0)
      .cooldownTicks(60)
      .cooldownTime(2500) // the relaxation is bounded in time, whatever the size
      .d3AlphaDecay(0.06)
      .onEngineTick(() => this.syncPositions())
      .onEngineStop(() => { if (!this.fitted) { this.fitted = true; this.fit(); } })
      .graphData({ nodes: this.nodes, links: this.links });
    this.graph.d3Force("center", null);
    this.graph.d3Force("charge").strength(-1.5).distanceMax(40);
    this.graph.d3Force("link").distance(12).strength((l) => 0.02 + 0.08 * (l.e.weight || 0));
    this.uniforms = {
      uTime: { value: this.rel(model.end) },
      uGhosts: { value: 1 },
      uScale: { value: 400 },
      uPulse: { value: 1 },
      uSelected: { value: -1 },
      uOnly: { value: -1 },
      uBackground: { value: BACKGROUND },
      uGhost: { value: GHOST },
    };
    this.buildPoints();
    this.buildLines();
    this.fit(0);
    this.bindPointer(el, onSelect, onHover);
    this.apply();
    this.animate();
  }

  // Seconds from the model's start (null: never), as float32: a year to about two seconds.
  rel(ms) {
    return Math.fround(ms === null || ms === undefined ? 1e30 : (ms - this.model.start) / 1000);
  }

  buildPoints() {
    const n = this.nodes.length;
    this.positions = new Float32Array(n * 3);
    this.times = new Float32Array(n * 4);
    const meta = new Float32Array(n * 3);
    const working = new Float32Array(n);
    const colors = new Float32Array(n * 3);
    this.marks = new Float32Array(n * 4);
    const c = new THREE.Color();
    // Above 1,000 memories the radius shrinks with the square root of the count, so a dense
    // ball stays readable (and a software rasterizer shades fewer overlapping pixels).
    const k = Math.min(1, Math.sqrt(1000 / Math.max(1, n)));
    for (const node of this.nodes) {
      const { m, i } = node;
      this.times.set([this.rel(m.from), this.rel(m.supersededMs), this.rel(m.expiresMs), 1], i * 4);
      meta.set([this.rel(m.createdMs), m.halfLifeDays || 0, k * (1.2 + 2.8 * (m.importance || 0))], i * 3);
      working[i] = m.type === "working" ? 1 : 0;
      c.set(TYPE_COLORS[m.type] || "#e5e7eb");
      colors.set([c.r, c.g, c.b], i * 3);
    }
    const g = new THREE.BufferGeometry();
    this.positionAttr = new THREE.BufferAttribute(this.positions, 3).setUsage(THREE.DynamicDrawUsage);
    this.timesAttr = new THREE.BufferAttribute(this.times, 4);
    this.marksAttr = new THREE.BufferAttribute(this.marks, 4);
    g.setAttribute("position", this.positionAttr);
    g.setAttribute("aTimes", this.timesAttr);
    g.setAttribute("aMeta", new THREE.BufferAttribute(meta, 3));
    g.setAttribute("aWorking", new THREE.BufferAttribute(working, 1));
    g.setAttribute("aColor", new THREE.BufferAttribute(colors, 3));
    g.setAttribute("aMark", this.marksAttr);
    this.meta = meta;
    const material = new THREE.ShaderMaterial({
      uniforms: this.uniforms, vertexShader: POINT_VERTEX, fragmentShader: POINT_FRAGMENT,
    });
    this.points = new THREE.Points(g, material);
    this.points.frustumCulled = false;
    this.graph.scene().add(this.points);
  }

  // Two vertices per link, plus two arrowhead strokes per supersede link; each vertex carries
  // both ends' intervals so the shader decides whether the link shows at the scrubber's time.
  buildLines() {
    this.segments = [];
    for (const l of this.links) {
      const e = l.e;
      const s = this.index.get(e.source), d = this.index.get(e.target);
      const supersedes = e.relation === "SUPERSEDES";
      this.segments.push({ s, d, part: 0, supersedes, relation: e.relation, weight: e.weight });
      if (supersedes) this.segments.push({ s, d, part: 1, supersedes }, { s, d, part: 2, supersedes });
    }
    const k = Math.max(1, this.segments.length) * 2;
    const colors = new Float32Array(k * 3);
    const kinds = new Float32Array(k);
    const c = new THREE.Color();
    this.segments.forEach((seg, j) => {
      c.set(EDGE_COLORS[seg.supersedes ? "SUPERSEDES" : seg.relation] || "#6b7280");
      if (seg.relation === "ENTITY_OVERLAP") c.lerp(BACKGROUND, 1 - Math.max(0.15, seg.weight));
      colors.set([c.r, c.g, c.b, c.r, c.g, c.b], j * 6);
      kinds[j * 2] = kinds[j * 2 + 1] = seg.supersedes ? 1 : 0;
    });
    this.linePositions = new Float32Array(k * 3);
    this.lineFrom = new Float32Array(k * 4);
    this.lineTo = new Float32Array(k * 4);
    const g = new THREE.BufferGeometry();
    this.linePositionAttr = new THREE.BufferAttribute(this.linePositions, 3).setUsage(THREE.DynamicDrawUsage);
    this.lineFromAttr = new THREE.BufferAttribute(this.lineFrom, 4);
    this.lineToAttr = new THREE.BufferAttribute(this.lineTo, 4);
    g.setAttribute("position", this.linePositionAttr);
    g.setAttribute("aFrom", this.lineFromAttr);
    g.setAttribute("aTo", this.lineToAttr);
    g.setAttribute("aSupersedes", new THREE.BufferAttribute(kinds, 1));
    g.setAttribute("aColor", new THREE.BufferAttribute(colors, 3));
    g.setDrawRange(0, this.segments.length * 2);
    const material = new THREE.ShaderMaterial({
      uniforms: this.uniforms, vertexShader: LINE_VERTEX, fragmentShader: LINE_FRAGMENT,
    });
    this.lines = new THREE.LineSegments(g, material);
    this.lines.frustumCulled = false;
    this.graph.scene().add(this.lines);
  }

  // The scrubber: one uniform. While it moves, a large view draws at half resolution (a
  // software rasterizer pays per pixel for every link); 300 ms after the last move the
  // frame is drawn at full resolution again.
  setTime(t) {
    this.uniforms.uTime.value = this.rel(t);
    if (this.nodes.length <= DENSE || !this.adaptive) return;
    const renderer = this.graph.renderer();
    if (!this.moving) renderer.setPixelRatio(window.devicePixelRatio / 2);
    clearTimeout(this.moving);
    this.moving = setTimeout(() => {
      this.moving = null;
      renderer.setPixelRatio(window.devicePixelRatio);
    }, 300);
  }

  get time() {
    return this.model.start + this.uniforms.uTime.value * 1000;
  }

  // Filters, ghosts, search hits and selection into the attributes (not per frame).
  apply() {
    const c = new THREE.Color();
    for (const n of this.nodes) {
      const i = n.i;
      this.times[i * 4 + 3] = this.visible(n.m) ? 1 : 0;
      const lit = this.highlight.get(n.id);
      if (lit) c.set(lit);
      this.marks.set(lit ? [c.r, c.g, c.b, 1] : [0, 0, 0, 0], i * 4);
    }
    this.uniforms.uGhosts.value = this.showGhosts ? 1 : 0;
    const sel = this.selected ? this.index.get(this.selected) : null;
    this.uniforms.uSelected.value = sel ? sel.i : -1;
    this.timesAttr.needsUpdate = true;
    this.marksAttr.needsUpdate = true;
    this.syncLineEnds();
  }

  syncLineEnds() {
    const t = this.times;
    this.segments.forEach((seg, j) => {
      const a = t.subarray(seg.s.i * 4, seg.s.i * 4 + 4), b = t.subarray(seg.d.i * 4, seg.d.i * 4 + 4);
      this.lineFrom.set(a, j * 8);
      this.lineFrom.set(a, j * 8 + 4);
      this.lineTo.set(b, j * 8);
      this.lineTo.set(b, j * 8 + 4);
    });
    this.lineFromAttr.needsUpdate = true;
    this.lineToAttr.needsUpdate = true;
  }

  // Positions from the force simulation (each tick while it relaxes, ~60 ticks).
  syncPositions() {
    const p = this.positions;
    for (const n of this.nodes) {
      p[n.i * 3] = n.x; p[n.i * 3 + 1] = n.y; p[n.i * 3 + 2] = n.z;
    }
    this.positionAttr.needsUpdate = true;
    const pos = this.linePositions;
    this.segments.forEach(({ s, d, part }, k) => {
      let fx = s.x, fy = s.y, fz = s.z, tx = d.x, ty = d.y, tz = d.z;
      if (part > 0) {
        // An arrowhead stroke at the older version's end of a supersede link.
        let dx = tx - fx, dy = ty - fy, dz = tz - fz;
        const len = Math.hypot(dx, dy, dz) || 1;
        dx /= len; dy /= len; dz /= len;
        const side = part === 1 ? 1.5 : -1.5;
        const back = this.meta[d.i * 3 + 2] * 0.6; // the ghost's radius
        tx -= dx * back; ty -= dy * back; tz -= dz * back;
        fx = tx - dx * 4 - dy * side; fy = ty - dy * 4 + dx * side; fz = tz - dz * 4;
      }
      const o = k * 6;
      pos[o] = fx; pos[o + 1] = fy; pos[o + 2] = fz;
      pos[o + 3] = tx; pos[o + 4] = ty; pos[o + 5] = tz;
    });
    this.linePositionAttr.needsUpdate = true;
  }

  // Per frame: the working memories' pulse and the point scale (two uniforms).
  animate() {
    const step = (now) => {
      this.uniforms.uPulse.value = 1 + 0.25 * Math.sin(now / 250);
      const camera = this.graph.camera();
      const h = this.graph.renderer().domElement.height;
      this.uniforms.uScale.value = h / (2 * Math.tan((camera.fov * Math.PI) / 360));
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  // The state of memory i at the scrubber's time, read from the arrays the GPU draws
  // (the shader's rule on the same float32 values): hidden, current or superseded.
  stateOf(i) {
    const t = this.uniforms.uTime.value, v = this.times;
    const from = v[i * 4], sup = v[i * 4 + 1], exp = v[i * 4 + 2], shown = v[i * 4 + 3];
    if (shown < 0.5 || from > t || exp <= t) return "hidden";
    if (sup <= t) return this.uniforms.uGhosts.value > 0.5 ? "superseded" : "hidden";
    return "current";
  }

  // Screen-space picking: the nearest drawn memory under the pointer.
  pick(ev, el) {
    const rect = el.getBoundingClientRect();
    const camera = this.graph.camera();
    const v = new THREE.Vector3();
    const scale = this.uniforms.uScale.value * (rect.height / this.graph.renderer().domElement.height);
    let best = null, bestDepth = Infinity;
    for (const n of this.nodes) {
      const s = this.stateOf(n.i);
      if (s === "hidden") continue;
      v.set(n.x, n.y, n.z).applyMatrix4(camera.matrixWorldInverse);
      const depth = -v.z;
      if (depth <= 0) continue;
      v.applyMatrix4(camera.projectionMatrix);
      const x = rect.left + ((v.x + 1) / 2) * rect.width, y = rect.top + ((1 - v.y) / 2) * rect.height;
      const size = this.meta[n.i * 3 + 2] * (s === "superseded" ? 0.6 : 1) * (this.highlight.has(n.id) ? 1.8 : 1);
      const radius = Math.max(3, (size * scale) / depth);
      if (Math.hypot(ev.clientX - x, ev.clientY - y) <= radius && depth < bestDepth) {
        best = n;
        bestDepth = depth;
      }
    }
    return best;
  }

  bindPointer(el, onSelect, onHover) {
    let down = null;
    el.addEventListener("pointerdown", (ev) => { down = [ev.clientX, ev.clientY]; });
    el.addEventListener("pointerup", (ev) => {
      if (!down || Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > 4) return;
      const n = this.pick(ev, el);
      if (n) onSelect(n.m);
    });
    let pending = false;
    el.addEventListener("pointermove", (ev) => {
      if (pending || ev.buttons) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        const n = this.pick(ev, el);
        onHover(n ? n.m : null, ev);
      });
    });
  }

  // Frame the memories: the camera looks at their centre from outside their bounding ball.
  fit(ms = 600) {
    if (!this.nodes.length) return;
    const c = new THREE.Vector3();
    for (const n of this.nodes) c.add(new THREE.Vector3(n.x, n.y, n.z));
    c.divideScalar(this.nodes.length);
    let r = 1;
    for (const n of this.nodes) r = Math.max(r, c.distanceTo(new THREE.Vector3(n.x, n.y, n.z)));
    const d = Math.max(40, r * 2.4);
    this.graph.cameraPosition({ x: c.x, y: c.y, z: c.z + d }, { x: c.x, y: c.y, z: c.z }, ms);
  }

  select(id) {
    this.selected = id;
    const sel = id ? this.index.get(id) : null;
    this.uniforms.uSelected.value = sel ? sel.i : -1;
  }

  focus(id) {
    const n = this.index.get(id);
    if (!n) return;
    const d = Math.hypot(n.x, n.y, n.z) || 1;
    const k = 1 + 60 / d;
    this.graph.cameraPosition({ x: n.x * k, y: n.y * k, z: n.z * k }, n, 800);
  }

  // Page coordinates of a memory on screen (tests click through them).
  screenPos(id) {
    const n = this.index.get(id);
    if (!n) return null;
    const v = new THREE.Vector3(n.x, n.y, n.z).project(this.graph.camera());
    const rect = this.graph.renderer().domElement.getBoundingClientRect();
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }

  // What the scene draws at the scrubber's time: memories by state and links by relation,
  // from the attribute arrays the shaders read.
  counts() {
    const out = { current: 0, superseded: 0, edges: {} };
    const state = this.nodes.map((n) => this.stateOf(n.i));
    for (const s of state) if (s !== "hidden") out[s] += 1;
    for (const seg of this.segments) {
      if (seg.part) continue;
      const a = state[seg.s.i], b = state[seg.d.i];
      const shown = seg.supersedes ? a === "current" && b === "superseded" : a === "current" && b === "current";
      if (shown) out.edges[seg.relation] = (out.edges[seg.relation] || 0) + 1;
    }
    return out;
  }

  // The colour the shaders draw at a memory's centre at the scrubber's time, that memory
  // alone in the frame (no other memory or link in front): tests read what the GPU drew.
  pixelAt(id) {
    const n = this.index.get(id);
    if (!n) return null;
    const renderer = this.graph.renderer();
    const v = new THREE.Vector3(n.x, n.y, n.z).project(this.graph.camera());
    const canvas = renderer.domElement;
    const x = Math.round(((v.x + 1) / 2) * canvas.width), y = Math.round(((v.y + 1) / 2) * canvas.height);
    this.uniforms.uOnly.value = n.i;
    this.lines.visible = false;
    renderer.render(this.graph.scene(), this.graph.camera());
    const gl = renderer.getContext();
    const px = new Uint8Array(4);
    gl.readPixels(x, y, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    this.uniforms.uOnly.value = -1;
    this.lines.visible = true;
    return [px[0], px[1], px[2]];
  }

  resize(w, h) {
    this.graph.width(w).height(h);
  }
}
