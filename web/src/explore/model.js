// The view's data: nodes with their validity intervals, and the state of each at an instant.
// Everything the scrubber needs is here, so moving it asks the server nothing.

export const TYPE_COLORS = {
  episodic: "#3b82f6", semantic: "#22c55e", working: "#facc15", document: "#9ca3af",
  procedural: "#a855f7", preference: "#f97316", fact: "#14b8a6", pattern: "#d97706",
  task: "#f43f5e",
};
export const EDGE_COLORS = {
  SUPERSEDES: "#ef4444", ENTITY_OVERLAP: "#9ca3af", SAME_SESSION: "#3b82f6",
  TEMPORAL_SEQ: "#22c55e",
};
export const DECAY_CLASSES = { none: null, slow: 90, medium: 14, fast: 2 };

const ms = (iso) => (iso ? Date.parse(iso) : null);

export function buildModel(view) {
  const memories = [];
  const entities = [];
  for (const n of view.nodes) {
    const node = {
      ...n,
      from: ms(n.validFrom) ?? ms(n.createdAt) ?? 0,
      supersededMs: ms(n.supersededAt),
      expiresMs: ms(n.expiresAt),
      createdMs: ms(n.createdAt) ?? 0,
      decayClass: Object.keys(DECAY_CLASSES).find((k) => DECAY_CLASSES[k] === n.halfLifeDays) || "slow",
    };
    (n.kind === "memory" ? memories : entities).push(node);
  }
  const byId = new Map([...memories, ...entities].map((n) => [n.id, n]));
  const memoryEdges = view.edges.filter((e) => e.kind === "memory" && byId.has(e.source) && byId.has(e.target));
  const entityEdges = view.edges.filter((e) => e.kind === "entity");
  const times = memories.flatMap((m) => [m.from, m.supersededMs, m.expiresMs]).filter((t) => t && t < 1e14);
  const start = times.length ? Math.min(...times) : Date.now() - 86400e3;
  return {
    memories, entities, byId, memoryEdges, entityEdges, total: view.total, sampled: view.sampled,
    start, end: Date.now(),
  };
}

// hidden (not yet valid, or expired/forgotten), current, or superseded (a ghost) at `t`.
export function stateAt(m, t) {
  if (m.from > t) return "hidden";
  if (m.expiresMs !== null && m.expiresMs <= t) return "hidden";
  if (m.supersededMs !== null && m.supersededMs <= t) return "superseded";
  return "current";
}

// The ranking decay at `t` (what decayFactor says at asOf): halves every half-life.
export function decayAt(m, t) {
  if (m.halfLifeDays === null || m.halfLifeDays === undefined) return 1;
  const days = Math.max(0, t - m.createdMs) / 86400e3;
  return Math.exp((-Math.LN2 * days) / m.halfLifeDays);
}
