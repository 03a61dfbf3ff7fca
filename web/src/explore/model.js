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

const ms = (seconds) => (seconds === null || seconds === undefined ? null : seconds * 1000);
const code = (names, i) => (i >= 0 ? names[i] : null);

// The view from vizGraph's columns (see api/gql/viz.py): memory i is entry i of every memory
// column; links are index triples. Times become epoch milliseconds.
export function buildModel(view) {
  const c = view.columns;
  const entities = c.entityIds.map((id, j) => ({
    id, kind: "entity", type: c.entityTypes[j], label: c.entityNames[j],
    provisional: c.entityProvisional[j],
  }));
  const memories = c.memoryIds.map((id, i) => {
    const halfLifeDays = c.halfLifeDays[i];
    return {
      id, i, kind: "memory", type: c.typeNames[c.types[i]], label: c.labels[i],
      position: { x: c.positions[i * 3], y: c.positions[i * 3 + 1], z: c.positions[i * 3 + 2] },
      laidOut: c.laidOut[i], importance: c.importance[i], halfLifeDays,
      from: ms(c.validFrom[i]), supersededMs: ms(c.supersededAt[i]), expiresMs: ms(c.expiresAt[i]),
      createdMs: ms(c.createdAt[i]),
      sessionId: code(c.sessionNames, c.sessions[i]), projectId: code(c.projectNames, c.projects[i]),
      entityIds: [],
      decayClass: Object.keys(DECAY_CLASSES).find((k) => DECAY_CLASSES[k] === halfLifeDays) || "slow",
    };
  });
  for (let k = 0; k < c.memoryEntities.length; k += 2) {
    memories[c.memoryEntities[k]].entityIds.push(entities[c.memoryEntities[k + 1]].id);
  }
  const memoryEdges = [];
  for (let k = 0; k < c.links.length; k += 3) {
    memoryEdges.push({
      source: memories[c.links[k]].id, target: memories[c.links[k + 1]].id,
      relation: c.relationNames[c.links[k + 2]], weight: c.linkWeights[k / 3],
    });
  }
  const entityEdges = [];
  for (let k = 0; k < c.entityLinks.length; k += 3) {
    entityEdges.push({
      source: entities[c.entityLinks[k]].id, target: entities[c.entityLinks[k + 1]].id,
      relation: c.relationNames[c.entityLinks[k + 2]],
    });
  }
  const byId = new Map([...memories, ...entities].map((n) => [n.id, n]));
  let start = Infinity;
  for (const m of memories) {
    for (const t of [m.from, m.supersededMs, m.expiresMs]) if (t !== null && t < start) start = t;
  }
  if (start === Infinity) start = Date.now() - 86400e3;
  return {
    memories, entities, byId, memoryEdges, entityEdges, total: view.total, sampled: view.sampled,
    start, end: Math.max(Date.now(), start + 1000),
  };
}

// hidden (not yet valid, or expired/forgotten), current, or superseded (a ghost) at `t`.
export function stateAt(m, t) {
  if (m.from > t) return "hidden";
  if (m.expiresMs !== null && m.expiresMs <= t) return "hidden";
  if (m.supersededMs !== null && m.supersededMs <= t) return "superseded";
  return "current";
}

// An entity's memories for its detail panel: those there at `t` (said by then, not forgotten),
// one line per thing said. The turn and the statement extracted from it hold the same words,
// and so does a sentence said again: one line with how many memories say it, showing the one
// current at `t` if any.
export function saidAbout(memories, entityId, t) {
  const lines = new Map();
  for (const m of memories) {
    const state = m.entityIds.includes(entityId) ? stateAt(m, t) : "hidden";
    if (state === "hidden") continue;
    const key = m.label.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    const line = lines.get(key);
    if (!line) lines.set(key, { memory: m, state, count: 1 });
    else {
      line.count += 1;
      if (state === "current" && line.state !== "current") Object.assign(line, { memory: m, state });
    }
  }
  return [...lines.values()];
}

// The ranking decay at `t` (what decayFactor says at asOf): halves every half-life.
export function decayAt(m, t) {
  if (m.halfLifeDays === null || m.halfLifeDays === undefined) return 1;
  const days = Math.max(0, t - m.createdMs) / 86400e3;
  return Math.exp((-Math.LN2 * days) / m.halfLifeDays);
}
