// The 3D memory space: three.js through 3d-force-graph. Nodes start at their stored UMAP
// positions and are relaxed by the library's force simulation along the memory links.
// All memories are one InstancedMesh and all links one LineSegments (two draw calls), so
// thousands of memories render and scrub at interactive rates even on a software GPU.
import ForceGraph3D from "3d-force-graph";
import * as THREE from "three";
import { TYPE_COLORS, EDGE_COLORS, stateAt, decayAt } from "./model.js";

const BACKGROUND = new THREE.Color("#0b1020");
const GHOST = new THREE.Color("#b91c1c");
const SELECTED = new THREE.Color("#ffffff");
export const PATH_COLORS = {
  ENTITY: "#fb923c", SEMANTIC: "#22d3ee", KEYWORD: "#f0abfc", CONVERSATION: "#fde047",
  CORE: "#ffffff",
};

function shadeTexture() {
  const c = document.createElement("canvas");
  c.width = c.height = 64;
  const g = c.getContext("2d");
  const grad = g.createRadialGradient(24, 22, 2, 32, 32, 32);
  grad.addColorStop(0, "#ffffff");
  grad.addColorStop(0.6, "#b8b8b8");
  grad.addColorStop(1, "#404040");
  g.fillStyle = grad;
  g.fillRect(0, 0, 64, 64);
  const texture = new THREE.CanvasTexture(c);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

export class Space {
  constructor(el, model, { onSelect, onHover }) {
    this.model = model;
    this.time = model.end;
    this.visible = () => true; // the filter panel's predicate
    this.showGhosts = true;
    this.highlight = new Map(); // memory id -> path colour (search hits)
    this.selected = null;
    this.nodes = model.memories.map((m, i) => ({
      id: m.id, i, m, x: m.position.x, y: m.position.y, z: m.position.z,
    }));
    for (const n of this.nodes) {
      n.color = new THREE.Color(TYPE_COLORS[n.m.type] || "#e5e7eb");
      n.base = 1.2 + 2.8 * (n.m.importance || 0);
    }
    this.index = new Map(this.nodes.map((n) => [n.id, n]));
    this.state = new Map();
    const links = model.memoryEdges.map((e) => ({ source: e.source, target: e.target, e }));
    // No multisampling: on a software GPU it costs more than the whole scene.
    this.graph = ForceGraph3D({ controlType: "orbit", rendererConfig: { antialias: false } })(el)
      .backgroundColor("#0b1020")
      .showNavInfo(false)
      .nodeThreeObject(() => new THREE.Object3D()) // drawn by the InstancedMesh
      .linkVisibility(false) // drawn by the LineSegments
      .enableNodeDrag(false)
      .enablePointerInteraction(false)
      .warmupTicks(0)
      .cooldownTicks(60)
      .cooldownTime(2500) // the relaxation is bounded in time, whatever the size
      .d3AlphaDecay(0.06)
      .onEngineTick(() => this.syncPositions())
      .onEngineStop(() => { if (!this.fitted) { this.fitted = true; this.fit(); } })
      .graphData({ nodes: this.nodes, links });
    this.graph.d3Force("center", null);
    this.graph.d3Force("charge").strength(-1.5).distanceMax(40);
    this.graph.d3Force("link").distance(12).strength((l) => 0.02 + 0.08 * (l.e.weight || 0));
    this.links = links;
    this.buildMeshes();
    this.fit(0);
    this.bindPointer(el, onSelect, onHover);
    this.apply();
    this.pulse();
  }

  buildMeshes() {
    const n = Math.max(1, this.nodes.length);
    // Few triangles per memory: a software rasterizer pays for every one, every frame.
    const geometry = new THREE.IcosahedronGeometry(1, n > 1000 ? 0 : 1);
    // Shaded by a matcap drawn here (one texture read per pixel, no lights): lit materials
    // cost a quarter of the frame rate on a software GPU.
    const material = new THREE.MeshMatcapMaterial({ matcap: shadeTexture() });
    this.mesh = new THREE.InstancedMesh(geometry, material, n);
    this.mesh.count = this.nodes.length;
    this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    this.mesh.setColorAt(0, new THREE.Color());
    this.mesh.frustumCulled = false;
    this.graph.scene().add(this.mesh);
    // Two vertices per link, plus two arrowhead strokes per supersede link.
    this.segments = [];
    for (const l of this.links) {
      const e = l.e;
      const c = new THREE.Color(EDGE_COLORS[e.relation] || "#6b7280");
      if (e.relation === "ENTITY_OVERLAP") c.lerp(BACKGROUND, 1 - Math.max(0.15, e.weight));
      const seg = {
        s: this.index.get(e.source), d: this.index.get(e.target),
        supersedes: e.relation === "SUPERSEDES", rgb: [c.r, c.g, c.b],
      };
      this.segments.push({ ...seg, part: 0 });
      if (seg.supersedes) this.segments.push({ ...seg, part: 1 }, { ...seg, part: 2 });
    }
    const positions = new Float32Array(Math.max(1, this.segments.length) * 6);
    const colors = new Float32Array(Math.max(1, this.segments.length) * 6);
    const lines = new THREE.BufferGeometry();
    lines.setAttribute("position", new THREE.BufferAttribute(positions, 3).setUsage(THREE.DynamicDrawUsage));
    lines.setAttribute("color", new THREE.BufferAttribute(colors, 3).setUsage(THREE.DynamicDrawUsage));
    this.lines = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ vertexColors: true }));
    this.lines.frustumCulled = false;
    this.graph.scene().add(this.lines);
  }

  setTime(t) {
    this.time = t;
    this.apply();
  }

  // Colour, size and visibility of every memory and link at the current time and filters.
  // Called every frame while scrubbing: no allocation, no colour parsing, arrays by index.
  apply() {
    const t = this.time;
    const matrix = this._matrix || (this._matrix = new THREE.Matrix4());
    const color = this._color || (this._color = new THREE.Color());
    const state = this.state;
    for (const n of this.nodes) {
      const m = n.m;
      let s = stateAt(m, t);
      if (s !== "hidden" && !this.visible(m)) s = "hidden";
      if (s === "superseded" && !this.showGhosts) s = "hidden";
      state.set(n.id, s);
      n.state = s;
      let size = n.base;
      if (s === "hidden") size = 0;
      else if (s === "superseded") {
        size *= 0.6;
        color.copy(GHOST);
      } else {
        color.copy(n.color).lerp(BACKGROUND, 1 - Math.max(0.2, decayAt(m, t)));
      }
      if (s !== "hidden" && this.highlight.has(n.id)) {
        color.set(this.highlight.get(n.id));
        size *= 1.8;
      }
      if (this.selected === n.id && s !== "hidden") color.copy(SELECTED);
      n.size = size;
      matrix.makeScale(size, size, size).setPosition(n.x, n.y, n.z);
      this.mesh.setMatrixAt(n.i, matrix);
      this.mesh.setColorAt(n.i, color);
    }
    this.mesh.instanceMatrix.needsUpdate = true;
    if (this.mesh.instanceColor) this.mesh.instanceColor.needsUpdate = true;
    this.applyLines();
  }

  edgeShown(e) {
    const a = this.state.get(e.source);
    const b = this.state.get(e.target);
    if (e.relation === "SUPERSEDES") return a === "current" && b === "superseded";
    return a === "current" && b === "current";
  }

  applyLines() {
    const pos = this.lines.geometry.attributes.position.array;
    const col = this.lines.geometry.attributes.color.array;
    const segs = this.segments;
    for (let k = 0; k < segs.length; k++) {
      const { s, d, part, supersedes, rgb } = segs[k];
      const shown = supersedes
        ? s.state === "current" && d.state === "superseded"
        : s.state === "current" && d.state === "current";
      const o = k * 6;
      let fx = s.x, fy = s.y, fz = s.z, tx = d.x, ty = d.y, tz = d.z;
      if (part > 0) {
        // An arrowhead stroke at the older version's end of a supersede link.
        let dx = tx - fx, dy = ty - fy, dz = tz - fz;
        const len = Math.hypot(dx, dy, dz) || 1;
        dx /= len; dy /= len; dz /= len;
        const side = part === 1 ? 1.5 : -1.5;
        const back = d.size || 1;
        tx -= dx * back; ty -= dy * back; tz -= dz * back;
        fx = tx - dx * 4 - dy * side; fy = ty - dy * 4 + dx * side; fz = tz - dz * 4;
      }
      if (!shown) { tx = fx; ty = fy; tz = fz; }
      pos[o] = fx; pos[o + 1] = fy; pos[o + 2] = fz;
      pos[o + 3] = tx; pos[o + 4] = ty; pos[o + 5] = tz;
      col[o] = col[o + 3] = rgb[0];
      col[o + 1] = col[o + 4] = rgb[1];
      col[o + 2] = col[o + 5] = rgb[2];
    }
    this.lines.geometry.attributes.position.needsUpdate = true;
    this.lines.geometry.attributes.color.needsUpdate = true;
  }

  syncPositions() {
    const matrix = new THREE.Matrix4();
    for (const n of this.nodes) {
      const size = n.size || 0;
      matrix.makeScale(size, size, size).setPosition(n.x, n.y, n.z);
      this.mesh.setMatrixAt(n.i, matrix);
    }
    this.mesh.instanceMatrix.needsUpdate = true;
    this.applyLines();
  }

  // Working memories pulse (their size breathes) while they are current.
  pulse() {
    const working = this.nodes.filter((n) => n.m.type === "working");
    if (!working.length) return;
    const matrix = new THREE.Matrix4();
    const step = (now) => {
      const k = 1 + 0.25 * Math.sin(now / 250);
      for (const n of working) {
        const size = (n.size || 0) * k;
        matrix.makeScale(size, size, size).setPosition(n.x, n.y, n.z);
        this.mesh.setMatrixAt(n.i, matrix);
      }
      this.mesh.instanceMatrix.needsUpdate = true;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  bindPointer(el, onSelect, onHover) {
    const ray = new THREE.Raycaster();
    const pick = (ev) => {
      const rect = el.getBoundingClientRect();
      const p = new THREE.Vector2(
        ((ev.clientX - rect.left) / rect.width) * 2 - 1,
        -((ev.clientY - rect.top) / rect.height) * 2 + 1,
      );
      ray.setFromCamera(p, this.graph.camera());
      const hit = ray.intersectObject(this.mesh).find((h) => this.nodes[h.instanceId].size > 0);
      return hit ? this.nodes[hit.instanceId] : null;
    };
    let down = null;
    el.addEventListener("pointerdown", (ev) => { down = [ev.clientX, ev.clientY]; });
    el.addEventListener("pointerup", (ev) => {
      if (!down || Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > 4) return;
      const n = pick(ev);
      if (n) onSelect(n.m);
    });
    let pending = false;
    el.addEventListener("pointermove", (ev) => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        const n = pick(ev);
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
    this.apply();
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

  counts() {
    const out = { current: 0, superseded: 0, edges: {} };
    for (const s of this.state.values()) if (s !== "hidden") out[s] += 1;
    for (const l of this.links) {
      if (this.edgeShown(l.e)) out.edges[l.e.relation] = (out.edges[l.e.relation] || 0) + 1;
    }
    return out;
  }

  resize(w, h) {
    this.graph.width(w).height(h);
  }
}
