// The memory explorer: sign in with an API key, load the tenant's history once, then scrub,
// filter, search and click through it. See docs/EXPLORER.md.
import "./style.css";
import { getKey, setKey } from "../key.js";
import * as api from "./api.js";
import { buildModel, TYPE_COLORS, EDGE_COLORS, DECAY_CLASSES, stateAt, decayAt, saidAbout } from "./model.js";
import { Space, PATH_COLORS } from "./space.js";
import { EntityGraph } from "./entities.js";
import { memoryDetail, entityDetail, esc } from "./detail.js";

const LIMIT = Number(new URLSearchParams(location.search).get("limit")) || 5000;
const $ = (id) => document.getElementById(id);
const hooks = (window.__explore = { ready: false });

function showSignin(message) {
  $("app").hidden = true;
  $("signin").hidden = false;
  $("signin-error").textContent = message || "";
}

$("signin-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  setKey($("key").value);
  start();
});
$("signout").addEventListener("click", () => {
  setKey("");
  location.reload();
});

async function start() {
  if (!getKey()) return showSignin();
  $("signin-error").textContent = "Loading…";
  let view;
  try {
    hooks.requestMs = performance.now();
    view = await api.loadHistory(LIMIT);
    hooks.loadedMs = performance.now();
  } catch (e) {
    if (e instanceof api.KeyRefused) setKey("");
    hooks.refused = e instanceof api.KeyRefused;
    return showSignin(e instanceof api.KeyRefused ? `Key refused: ${e.message}` : String(e.message));
  }
  $("signin").hidden = true;
  $("app").hidden = false;
  const model = buildModel(view);
  hooks.modelMs = performance.now();
  open(model);
}

function open(model) {
  const stage = document.querySelector(".stage");
  const select = (m) => selectMemory(m);
  const space = new Space($("space"), model, { onSelect: select, onHover: hover });
  const graph = new EntityGraph($("entities"), model, { onSelect: (id) => selectEntity(id) });
  const fit = () => {
    space.resize(stage.clientWidth, stage.clientHeight);
    graph.resize(stage.clientWidth, stage.clientHeight);
  };
  new ResizeObserver(fit).observe(stage);
  fit();
  const state = { model, space, graph, t: model.end };
  buildFilters(state);
  buildTimeline(state);
  buildSearch(state);
  buildTabs(graph);
  $("status").textContent = `${model.memories.length} memories` +
    (model.sampled ? ` (a stable sample of ${model.total})` : "") + `, ${model.entities.length} entities`;
  // Open identity questions join the entity graph when they arrive (the 3D view needs none).
  api.identityQuestions().then((questions) => {
    graph.addQuestions(questions);
    hooks.questions = questions.length;
  }, (e) => { $("status").textContent += ` (identity questions: ${e.message})`; hooks.questions = -1; });

  async function selectMemory(m) {
    space.select(m.id);
    $("detail").innerHTML = memoryDetail(m, state.t, model);
    bindChips();
    try {
      const links = await api.lineage(m.id);
      const self = links.find((l) => l.memory.id === m.id);
      if (self) $("detail-content").textContent = self.memory.content; // the label is cut at 80
      $("lineage").innerHTML = links.map((l) =>
        `<li class="${l.current ? "current" : "superseded"}" data-memory="${l.memory.id}">
          ${esc(l.memory.content)} ${l.current ? "(current)" : `(replaced${l.reason ? `: ${esc(l.reason)}` : ""})`}</li>`).join("");
    } catch (e) {
      $("lineage").textContent = e.message;
    }
  }

  async function selectEntity(id) {
    graph.select(id);
    const node = model.byId.get(id);
    $("detail").innerHTML = `<h3>${esc(node ? node.label : id)}</h3><p class="muted">Loading…</p>`;
    try {
      const info = await api.entity(id);
      const memories = saidAbout(model.memories, id, state.t);
      const nameOf = (eid) => model.byId.get(eid)?.label ?? graph.nodes.get(eid)?.name ?? eid.slice(0, 8);
      $("detail").innerHTML = entityDetail(info, memories, state.t, nameOf, graph.questionsOf(id));
      bindChips();
      $("expand").addEventListener("click", async () => {
        const ids = info.relations.flatMap((r) => [r.sourceId, r.targetId]);
        graph.expand(info.relations, await api.entities([...new Set(ids)]));
      });
    } catch (e) {
      $("detail").innerHTML += `<p class="error">${esc(e.message)}</p>`;
    }
  }

  function bindChips() {
    for (const el of $("detail").querySelectorAll("[data-memory]")) {
      el.addEventListener("click", () => {
        const m = model.byId.get(el.dataset.memory);
        if (m) { selectMemory(m); space.focus(m.id); }
      });
    }
    for (const el of $("detail").querySelectorAll("[data-entity]")) {
      el.addEventListener("click", () => selectEntity(el.dataset.entity));
    }
  }

  function hover(m, ev) {
    const tip = $("tooltip");
    if (!m) { tip.hidden = true; return; }
    const rect = stage.getBoundingClientRect();
    tip.hidden = false;
    tip.style.left = `${ev.clientX - rect.left + 12}px`;
    tip.style.top = `${ev.clientY - rect.top + 12}px`;
    tip.innerHTML = `<b>${esc(m.type)}</b> · ${stateAt(m, state.t)} · decay ${decayAt(m, state.t).toFixed(2)}<br>${esc(m.label)}`;
  }

  Object.assign(hooks, {
    model, space, graph,
    counts: () => ({
      ...space.counts(), entities: graph.size.nodes, relations: graph.size.links,
      sameAs: graph.size.sameAs, provisional: graph.size.provisional,
    }),
    identities: () => graph.identities(),
    pixelAt: (id) => space.pixelAt(id),
    entityPixel: (id) => graph.pixelAt(id),
    scrubTo: (t) => state.scrub(t),
    screenPos: (id) => space.screenPos(id),
    entityPos: (id) => graph.screenPos(id),
    idOf: (label) => (model.memories.find((m) => m.label === label) || {}).id,
    current: () => model.memories.filter((m) => space.stateOf(m.i) === "current").map((m) => m.label),
  });
  requestAnimationFrame(() => requestAnimationFrame(() => {
    hooks.readyMs = performance.now();
    hooks.ready = true;
  }));
}

function buildFilters(state) {
  const { model, space } = state;
  const types = [...new Set(model.memories.map((m) => m.type))].sort();
  const checked = (box) => [...$(box).querySelectorAll("input:checked")].map((i) => i.value);
  $("f-types").innerHTML += types.map((t) => `<label><input type="checkbox" value="${t}" checked>
    <span class="swatch" style="background:${TYPE_COLORS[t] || "#e5e7eb"}"></span>${t}</label>`).join("");
  $("f-decay").innerHTML += Object.keys(DECAY_CLASSES).map((d) =>
    `<label><input type="checkbox" value="${d}" checked>${d}</label>`).join("");
  const projects = [...new Set(model.memories.map((m) => m.projectId).filter(Boolean))].sort();
  $("f-project").innerHTML += projects.map((p) => `<option>${esc(p)}</option>`).join("");
  $("f-entity").innerHTML += model.entities.map((e) => `<option value="${e.id}">${esc(e.label)}</option>`).join("");
  $("legend").innerHTML = Object.entries(EDGE_COLORS).map(([k, c]) =>
    `<div><span class="line" style="background:${c}"></span>${k.toLowerCase().replace("_", " ")}</div>`).join("") +
    Object.entries(PATH_COLORS).map(([k, c]) =>
    `<div><span class="swatch" style="background:${c}"></span>search hit: ${k.toLowerCase()}</div>`).join("");
  const update = () => {
    const ts = new Set(checked("f-types"));
    const ds = new Set(checked("f-decay"));
    const project = $("f-project").value;
    const entity = $("f-entity").value;
    space.visible = (m) => ts.has(m.type) && ds.has(m.decayClass) &&
      (!project || m.projectId === project) && (!entity || m.entityIds.includes(entity));
    space.showGhosts = $("f-superseded").checked;
    space.apply();
  };
  $("filters").addEventListener("change", update);
}

function buildTimeline(state) {
  const { model, space } = state;
  const span = Math.max(1, model.end - model.start);
  const label = () => { $("when").textContent = new Date(state.t).toISOString().replace("T", " ").slice(0, 19) + " UTC"; };
  state.scrub = (t) => {
    state.t = Math.min(model.end, Math.max(model.start, t));
    $("scrub").value = String(Math.round(((state.t - model.start) / span) * 1000));
    space.setTime(state.t);
    label();
  };
  $("scrub").addEventListener("input", () => {
    state.t = model.start + (span * Number($("scrub").value)) / 1000;
    space.setTime(state.t);
    label();
  });
  // On release the server is asked what was current at that instant (vizGraph(asOf)).
  $("scrub").addEventListener("change", () => check(state));
  let playing = null;
  $("play").addEventListener("click", () => {
    if (playing) { cancelAnimationFrame(playing); playing = null; $("play").textContent = "▶"; return; }
    $("play").textContent = "⏸";
    const t0 = performance.now();
    const from = Number($("scrub").value) >= 1000 ? 0 : Number($("scrub").value);
    const step = (now) => {
      const v = Math.min(1000, from + (now - t0) / 8);
      state.scrub(model.start + (span * v) / 1000);
      if (v < 1000) playing = requestAnimationFrame(step);
      else { playing = null; $("play").textContent = "▶"; check(state); }
    };
    playing = requestAnimationFrame(step);
  });
  label();
}

async function check(state) {
  const at = state.t;
  $("server-state").textContent = "asking the server…";
  try {
    const view = await api.currentAt(at, LIMIT);
    const server = new Set(view.columns.memoryIds);
    const local = state.model.memories.filter((m) => stateAt(m, at) === "current").map((m) => m.id);
    const differ = local.filter((id) => !server.has(id)).length + [...server].filter((id) => !state.model.byId.has(id)).length;
    $("server-state").textContent = `server: ${server.size} current at this time` +
      (differ && !state.model.sampled ? ` (${differ} differ)` : " (matches)");
  } catch (e) {
    $("server-state").textContent = e.message;
  }
}

function buildSearch(state) {
  $("search-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const q = $("search").value.trim();
    state.space.highlight.clear();
    $("hits").innerHTML = "";
    if (!q) { state.space.apply(); return; }
    try {
      const hits = await api.search(q);
      for (const h of hits) state.space.highlight.set(h.memory.id, PATH_COLORS[h.paths[0]] || "#fff");
      state.space.apply();
      $("hits").innerHTML = hits.map((h) => `<li data-id="${h.memory.id}">
        <span class="swatch" style="background:${PATH_COLORS[h.paths[0]] || "#fff"}"></span>
        ${esc(h.memory.content.slice(0, 80))} <span class="muted">${h.paths.join("+").toLowerCase()} · ${h.score.toFixed(2)}</span></li>`).join("");
      for (const li of $("hits").querySelectorAll("li")) {
        li.addEventListener("click", () => {
          const m = state.model.byId.get(li.dataset.id);
          if (m) state.space.focus(m.id);
        });
      }
      window.__explore.hits = hits.length;
    } catch (e) {
      $("hits").innerHTML = `<li class="error">${esc(e.message)}</li>`;
    }
  });
}

function buildTabs(graph) {
  for (const b of document.querySelectorAll(".tabs button")) {
    b.addEventListener("click", () => {
      $("tooltip").hidden = true;
      if (b.dataset.view === "entities") setTimeout(() => graph.fit(), 50);
      for (const o of document.querySelectorAll(".tabs button")) o.classList.toggle("active", o === b);
      $("space").hidden = b.dataset.view !== "space";
      $("entities").hidden = b.dataset.view !== "entities";
    });
  }
}

start();
