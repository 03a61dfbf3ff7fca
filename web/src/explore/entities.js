// The 2D entity graph (force-graph on a canvas): entities of the view and their relations;
// expanding an entity adds its neighbours. Open identity questions are drawn in it: a
// provisional entity is a hollow ring with a dashed outline, and a dashed orange
// POSSIBLY_SAME_AS link labelled with its score joins it to each entity it may be; merges
// are dotted.
import ForceGraph from "force-graph";

const ENTITY_COLORS = {
  person: "#60a5fa", org: "#f472b6", project: "#34d399", place: "#fbbf24", system: "#a78bfa",
  process: "#f87171", concept: "#9ca3af",
};
const SPECIAL = { POSSIBLY_SAME_AS: "#fb923c", MERGED_INTO: "#e5e7eb" };

export class EntityGraph {
  constructor(el, model, { onSelect }) {
    this.el = el;
    this.nodes = new Map(model.entities.map((e) => [e.id, {
      id: e.id, name: e.label, type: e.type, provisional: !!e.provisional,
    }]));
    this.links = new Map();
    this.questions = new Map(); // provisional entity id -> its identity question
    for (const r of model.entityEdges) this.addLink(r.source, r.target, r.relation);
    this.selected = null;
    this.graph = ForceGraph()(el)
      .backgroundColor("#0b1020")
      .nodeId("id")
      .nodeLabel((n) => `${n.name} (${n.type}${n.provisional ? ", provisional: who is it?" : ""})`)
      .nodeCanvasObject((n, ctx, scale) => this.drawNode(n, ctx, scale))
      .nodePointerAreaPaint((n, color, ctx) => {
        ctx.fillStyle = color;
        ctx.beginPath();
        ctx.arc(n.x, n.y, 7, 0, 2 * Math.PI);
        ctx.fill();
      })
      .linkColor((l) => SPECIAL[l.relation] || "#6b7280")
      .linkLineDash((l) => (l.relation === "POSSIBLY_SAME_AS" ? [4, 3] : l.relation === "MERGED_INTO" ? [1, 2] : null))
      .linkLabel((l) => (l.score === undefined ? l.relation : `${l.relation} ${l.score.toFixed(2)}`))
      .linkWidth((l) => (l.relation === "POSSIBLY_SAME_AS" ? 1 + 2 * l.score : 1))
      .linkDirectionalArrowLength((l) => (l.relation === "POSSIBLY_SAME_AS" ? 0 : 4))
      .linkDirectionalArrowRelPos(1)
      .linkCanvasObjectMode(() => "after")
      .linkCanvasObject((l, ctx, scale) => this.drawScore(l, ctx, scale))
      .onNodeClick((n) => onSelect(n.id))
      .onLinkClick((l) => { if (l.relation === "POSSIBLY_SAME_AS") onSelect(l.source.id ?? l.source); })
      .cooldownTicks(100)
      .onEngineStop(() => this.fit())
      .graphData(this.data());
  }

  addLink(source, target, relation, score) {
    const key = `${source}|${target}|${relation}`;
    if (!this.links.has(key) && this.nodes.has(source) && this.nodes.has(target)) {
      this.links.set(key, score === undefined ? { source, target, relation } : { source, target, relation, score });
    }
  }

  // Open identity questions (from identityQuestions): each provisional entity, the entities
  // it may be (added when not in view) and a scored POSSIBLY_SAME_AS link to each.
  addQuestions(questions) {
    const add = (e, provisional) => {
      const known = this.nodes.get(e.id);
      if (known) known.provisional = known.provisional || provisional;
      else this.nodes.set(e.id, { id: e.id, name: e.name, type: e.type.toLowerCase(), provisional });
    };
    for (const q of questions) {
      this.questions.set(q.entity.id, q);
      add(q.entity, true);
      for (const c of q.candidates) {
        add(c.entity, false);
        this.addLink(q.entity.id, c.entity.id, "POSSIBLY_SAME_AS", c.score);
      }
    }
    if (questions.length) this.graph.graphData(this.data());
  }

  // The questions an entity is part of: its own (provisional), or those naming it a candidate.
  questionsOf(id) {
    if (this.questions.has(id)) return [this.questions.get(id)];
    return [...this.questions.values()].filter((q) => q.candidates.some((c) => c.entity.id === id));
  }

  drawScore(l, ctx, scale) {
    if (l.score === undefined || typeof l.source !== "object") return;
    ctx.font = `${10 / scale}px system-ui`;
    ctx.fillStyle = SPECIAL.POSSIBLY_SAME_AS;
    ctx.textAlign = "center";
    ctx.fillText(l.score.toFixed(2), (l.source.x + l.target.x) / 2, (l.source.y + l.target.y) / 2 - 2 / scale);
    ctx.textAlign = "start";
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
    const color = ENTITY_COLORS[n.type] || "#e5e7eb";
    ctx.beginPath();
    ctx.arc(n.x, n.y, r, 0, 2 * Math.PI);
    if (n.provisional) {
      // Hollow with a dashed outline: an identity not settled yet.
      ctx.fillStyle = "#0b1020";
      ctx.fill();
      ctx.setLineDash([2, 1.5]);
      ctx.strokeStyle = color;
      ctx.lineWidth = 1.5;
      ctx.stroke();
      ctx.setLineDash([]);
    } else {
      ctx.fillStyle = color;
      ctx.fill();
    }
    if (n.id === this.selected) {
      ctx.beginPath();
      ctx.arc(n.x, n.y, r + 1.5, 0, 2 * Math.PI);
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1.5 / scale;
      ctx.stroke();
    }
    ctx.font = `${n.provisional ? "italic " : ""}${11 / scale}px system-ui`;
    ctx.fillStyle = "#e5e7eb";
    ctx.fillText(n.provisional ? `${n.name}?` : n.name, n.x + r + 2, n.y + 3);
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

  // The colour drawn at an entity's centre (tests: a provisional entity is hollow).
  pixelAt(id) {
    const pos = this.screenPos(id);
    const canvas = this.el.querySelector("canvas");
    if (!pos || !canvas) return null;
    const rect = canvas.getBoundingClientRect();
    const x = Math.round(((pos.x - rect.left) * canvas.width) / rect.width);
    const y = Math.round(((pos.y - rect.top) * canvas.height) / rect.height);
    const px = canvas.getContext("2d").getImageData(x, y, 1, 1).data;
    return [px[0], px[1], px[2]];
  }

  resize(w, h) {
    this.graph.width(w).height(h);
  }

  get size() {
    let links = 0, sameAs = 0, provisional = 0;
    for (const l of this.links.values()) l.relation === "POSSIBLY_SAME_AS" ? (sameAs += 1) : (links += 1);
    for (const n of this.nodes.values()) if (n.provisional) provisional += 1;
    return { nodes: this.nodes.size, links, sameAs, provisional };
  }

  // What the canvas shows of the identity questions (tests read it).
  identities() {
    return {
      provisional: [...this.nodes.values()].filter((n) => n.provisional).map((n) => n.name).sort(),
      sameAs: [...this.links.values()].filter((l) => l.relation === "POSSIBLY_SAME_AS").map((l) => ({
        from: this.nodes.get(l.source.id ?? l.source).name, to: this.nodes.get(l.target.id ?? l.target).name,
        score: l.score,
      })),
    };
  }
}
