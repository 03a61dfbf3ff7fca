// The 2D entity graph (force-graph on a canvas): entities of the view and their relations;
// expanding an entity adds its neighbours. POSSIBLY_SAME_AS links (open identity questions)
// are dashed orange, merges dotted.
import ForceGraph from "force-graph";

const ENTITY_COLORS = {
  person: "#60a5fa", org: "#f472b6", project: "#34d399", place: "#fbbf24", system: "#a78bfa",
  process: "#f87171", concept: "#9ca3af",
};
const SPECIAL = { POSSIBLY_SAME_AS: "#fb923c", MERGED_INTO: "#e5e7eb" };

export class EntityGraph {
  constructor(el, model, { onSelect }) {
    this.el = el;
    this.nodes = new Map(model.entities.map((e) => [e.id, { id: e.id, name: e.label, type: e.type }]));
    this.links = new Map();
    for (const r of model.entityEdges) this.addLink(r.source, r.target, r.relation);
    this.selected = null;
    this.graph = ForceGraph()(el)
      .backgroundColor("#0b1020")
      .nodeId("id")
      .nodeLabel((n) => `${n.name} (${n.type})`)
      .nodeCanvasObject((n, ctx, scale) => this.drawNode(n, ctx, scale))
      .nodePointerAreaPaint((n, color, ctx) => {
        ctx.fillStyle = color;
        ctx.beginPath();
        ctx.arc(n.x, n.y, 7, 0, 2 * Math.PI);
        ctx.fill();
      })
      .linkColor((l) => SPECIAL[l.relation] || "#6b7280")
      .linkLineDash((l) => (l.relation === "POSSIBLY_SAME_AS" ? [4, 3] : l.relation === "MERGED_INTO" ? [1, 2] : null))
      .linkLabel((l) => l.relation)
      .linkDirectionalArrowLength(4)
      .linkDirectionalArrowRelPos(1)
      .onNodeClick((n) => onSelect(n.id))
      .cooldownTicks(100)
      .onEngineStop(() => this.fit())
      .graphData(this.data());
  }

  addLink(source, target, relation) {
    const key = `${source}|${target}|${relation}`;
    if (!this.links.has(key) && this.nodes.has(source) && this.nodes.has(target)) {
      this.links.set(key, { source, target, relation });
    }
  }

  data() {
    return { nodes: [...this.nodes.values()], links: [...this.links.values()].map((l) => ({ ...l })) };
  }

  // Neighbours of an entity (from `relationships`), with names fetched for new ones.
  expand(relations, named) {
    for (const e of named) if (!this.nodes.has(e.id)) this.nodes.set(e.id, { id: e.id, name: e.name, type: e.type.toLowerCase() });
    for (const r of relations) this.addLink(r.sourceId, r.targetId, r.relation);
    this.graph.graphData(this.data());
  }

  drawNode(n, ctx, scale) {
    const r = n.id === this.selected ? 7 : 5;
    ctx.fillStyle = ENTITY_COLORS[n.type] || "#e5e7eb";
    ctx.beginPath();
    ctx.arc(n.x, n.y, r, 0, 2 * Math.PI);
    ctx.fill();
    if (n.id === this.selected) {
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1.5 / scale;
      ctx.stroke();
    }
    ctx.font = `${11 / scale}px system-ui`;
    ctx.fillStyle = "#e5e7eb";
    ctx.fillText(n.name, n.x + r + 2, n.y + 3);
  }

  select(id) {
    this.selected = id;
    this.graph.nodeCanvasObject(this.graph.nodeCanvasObject()); // redraw
  }

  fit() {
    this.graph.zoomToFit(0, 80);
    this.graph.zoom(Math.min(this.graph.zoom(), 3)); // a few entities should not fill the screen
  }

  // Page coordinates of an entity (tests click through them).
  screenPos(id) {
    const n = this.nodes.get(id);
    if (!n || n.x === undefined) return null;
    const p = this.graph.graph2ScreenCoords(n.x, n.y);
    const rect = this.el.getBoundingClientRect();
    return { x: rect.left + p.x, y: rect.top + p.y };
  }

  resize(w, h) {
    this.graph.width(w).height(h);
  }

  get size() {
    return { nodes: this.nodes.size, links: this.links.size };
  }
}
