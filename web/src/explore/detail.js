// The detail panel's HTML for a memory or an entity (text is always escaped).
import { stateAt, decayAt } from "./model.js";

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const when = (t) => {
  if (t === null || t === undefined) return "never";
  return (typeof t === "number" ? new Date(t).toISOString() : t).replace("T", " ").slice(0, 19);
};

export function memoryDetail(m, t, model) {
  const entities = m.entityIds.map((id) => model.byId.get(id)).filter(Boolean);
  const state = stateAt(m, t);
  return `<h3>${esc(m.type)} memory</h3>
    <p id="detail-content">${esc(m.label)}</p>
    <dl>
      <dt>at this time</dt><dd id="detail-state" class="${state}">${state}</dd>
      <dt>importance</dt><dd>${m.importance.toFixed(2)}</dd>
      <dt>decay</dt><dd>${decayAt(m, t).toFixed(3)} (${m.decayClass}${m.halfLifeDays ? `, half-life ${m.halfLifeDays} d` : ""})</dd>
      <dt>valid from</dt><dd>${when(m.from)}</dd>
      <dt>superseded</dt><dd>${when(m.supersededMs)}</dd>
      <dt>expires</dt><dd>${when(m.expiresMs)}</dd>
      <dt>project</dt><dd>${esc(m.projectId || "—")}</dd>
      <dt>session</dt><dd>${esc(m.sessionId || "—")}</dd>
      <dt>id</dt><dd><code>${esc(m.id)}</code></dd>
    </dl>
    <h4>Entities</h4><div>${entities.map((e) => `<span class="chip" data-entity="${e.id}">${esc(e.label)}</span>`).join("") || "none"}</div>
    <h4>Lineage</h4><ol id="lineage"><li class="muted">loading…</li></ol>`;
}

// An identity question: the provisional entity and the known entities it may be, by score.
function questionDetail(q) {
  return `<div class="question"><h4>Identity question: who is ${esc(q.entity.name)}?</h4>
    <p class="muted">${esc(q.description)}</p>
    <ol class="candidates">${q.candidates.map((c) => `<li data-entity="${c.entity.id}">
      <span class="chip">${esc(c.entity.name)}</span> ${esc(c.description)}
      <span class="score">${c.score.toFixed(2)}</span>${c.proposed ? ` <span class="muted">(proposed)</span>` : ""}</li>`).join("")}</ol>
    <p class="muted">Answer with confirmSameEntity or confirmDistinctEntities.</p></div>`;
}

export function entityDetail(info, memories, t, nameOf, questions = []) {
  const e = info.entity;
  const other = (r) => (r.sourceId === e.id ? r.targetId : r.sourceId);
  return `<h3>${esc(e.name)} <span class="muted">${esc(e.type.toLowerCase())}${e.provisional ? " · provisional" : ""}</span></h3>
    <dl>
      <dt>aliases</dt><dd>${e.aliases.map(esc).join(", ") || "—"}</dd>
      <dt>first seen</dt><dd>${when(e.firstSeen)}</dd>
      ${e.mergedIntoId ? `<dt>merged into</dt><dd><span class="chip" data-entity="${e.mergedIntoId}">${esc(e.mergedIntoId)}</span></dd>` : ""}
    </dl>
    ${questions.map(questionDetail).join("")}
    <p>${esc(e.profileSummary || "")}</p>
    <button id="expand" type="button">Expand neighbours</button>
    <h4>Relations</h4><ul>${info.relations.map((r) => `<li>${r.sourceId === e.id ? "" : "← "}${esc(r.relation)}: <span class="chip" data-entity="${other(r)}">${esc(nameOf(other(r)))}</span></li>`).join("") || "<li class=muted>none</li>"}</ul>
    <h4>Memories (${memories.length})</h4><ul>${memories.map((l) => `<li class="${l.state}" data-memory="${l.memory.id}">${esc(l.memory.label)}${l.count > 1 ? ` <span class="muted">×${l.count}</span>` : ""}</li>`).join("")}</ul>
    <h4>Supersede chains</h4>${info.chains.filter((c) => c.links.length > 1).map((c) => `<ol>${c.links.map((l) => `<li class="${l.current ? "current" : "superseded"}" data-memory="${l.memory.id}">${esc(l.memory.content)}</li>`).join("")}</ol>`).join("") || "<p class=muted>none</p>"}`;
}
