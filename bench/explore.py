"""The explorer in headless Chromium on a seeded tenant (issue 24 bars): time to render
after load, and scrubbing frame rate.

    python -m bench.explore [--memories 5000] [--runs 3] [--screenshots docs/img]
                            [--data-dir DIR]

Seeds a tenant with a year of history (one session a day, all memory types, entities, and
corrections that supersede earlier facts) on the embedded engines with the real embedder,
runs the layout job, serves the app on loopback and opens /explore in Debian's Chromium
(Playwright, the test flags). Render time: navigation start to the first frame with every
memory drawn (the key already in the tab's session), which includes the vizGraph request;
scrub: frames per second while the time scrubber moves every frame for 3 s (as the app
draws it: half resolution while it moves in views over 2,000 memories; and again at full
resolution). With ``--data-dir`` the seeded tenant is kept there and reused by the next run
(seeding 5,000 memories takes minutes; the browser side is what changes between runs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from playwright.async_api import async_playwright

from api.app import create_app
from api.auth import create_key
from api.brain import Brain
from bench.common import NAMES, ORGS, TOPICS, VERBS, machine, write_json
from core.clock import now, set_now
from core.lifecycle_types import JobName
from core.settings import GraphSettings, LifecycleSettings, Settings
from core.types import EntityType, MemoryType, NewMemory

TENANT = "explore-bench"
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
DAY = 86_400.0
TYPES = [MemoryType.EPISODIC] * 5 + [MemoryType.FACT] * 3 + [
    MemoryType.SEMANTIC, MemoryType.PREFERENCE, MemoryType.PROCEDURAL, MemoryType.TASK,
    MemoryType.DOCUMENT, MemoryType.WORKING, MemoryType.PATTERN,
]  # fmt: skip


async def seed(brain: Brain, n: int) -> dict[str, Any]:
    """A year of one session a day; one memory in ten corrects an earlier fact."""
    rng = random.Random(5)
    g = brain.graph.tenant(TENANT)
    people = [await g.create_entity(p, EntityType.PERSON) for p in NAMES]
    orgs = [await g.create_entity(o, EntityType.ORG) for o in ORGS]
    for p in people:
        await g.relate(p.id, rng.choice(orgs).id, "works_for")
    start = now() - 365 * DAY
    per_day = max(1, n // 365)
    facts: list[str] = []
    written = corrections = 0
    day = 0
    while written < n:
        set_now(start + day * DAY)
        items = []
        for k in range(min(per_day, n - written)):
            who, org = rng.choice(people), rng.choice(orgs)
            text = (
                f"{who.name} from {org.name} {rng.choice(VERBS)} the {rng.choice(TOPICS)} "
                f"(day {day}, note {k})"
            )
            items.append(
                NewMemory(
                    content=text,
                    type=rng.choice(TYPES),
                    session_id=f"day-{day}",
                    project_id=f"p{rng.randint(0, 3)}",
                    importance=round(rng.uniform(0.2, 1.0), 2),
                    entity_ids=[who.id, org.id],
                )
            )
        stored = await brain.memories.remember_many(TENANT, items)
        written += len(stored)
        facts += [m.id for m in stored if m.type is MemoryType.FACT]
        if facts and day % 2 == 0 and written < n:
            old = facts.pop(rng.randrange(len(facts)))
            new = await brain.memories.supersede(
                TENANT, old, f"Correction on day {day}", "corrected"
            )
            facts.append(new.id)
            written += 1
            corrections += 1
        day += 1
    set_now(None)
    return {"memories": written, "corrections": corrections, "days": day}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def measure(url: str, key: str, runs: int, shots: Path | None) -> dict[str, Any]:
    renders: list[float] = []
    fps: list[float] = []
    full: list[float] = []
    idle: list[float] = []
    phases: list[dict[str, float]] = []
    async with async_playwright() as pw:
        for run in range(runs):
            with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
                ctx = await pw.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
                    viewport={"width": 1400, "height": 900},
                )  # fmt: skip
                page = await ctx.new_page()
                await page.goto(f"{url}/explore")
                await page.evaluate(f"sessionStorage.setItem('brain.apiKey', '{key}')")
                await page.reload()
                while not await page.evaluate("window.__explore && window.__explore.ready"):
                    await asyncio.sleep(0.05)
                renders.append(await page.evaluate("window.__explore.readyMs"))
                phases.append(await page.evaluate(PHASES))
                counts = await page.evaluate("window.__explore.counts()")
                await asyncio.sleep(4)  # the force simulation settles (60 ticks)
                idle.append(await page.evaluate(IDLE))
                fps.append(await page.evaluate(SCRUB))
                await asyncio.sleep(0.5)
                await page.evaluate("window.__explore.space.adaptive = false")
                full.append(await page.evaluate(SCRUB))
                await page.evaluate("window.__explore.space.adaptive = true")
                if shots and run == 0:
                    await _screenshots(page, shots)
                await ctx.close()
            print(
                f"run {run + 1}: render {renders[-1]:.0f} ms {phases[-1]}, scrub {fps[-1]:.1f} fps"
                f" ({full[-1]:.1f} at full resolution), idle {idle[-1]:.1f} fps",
                flush=True,
            )
    return {
        "render_ms": [round(r) for r in renders],
        "render_ms_median": round(statistics.median(renders)),
        "scrub_fps": [round(f, 1) for f in fps],
        "scrub_fps_median": round(statistics.median(fps), 1),
        "scrub_full_resolution_fps": [round(f, 1) for f in full],
        "scrub_full_resolution_fps_median": round(statistics.median(full), 1),
        "idle_fps": [round(f, 1) for f in idle],
        "render_phases_ms": phases,
        "scene": counts,
    }


# Where the render time went: the vizGraph request (sent to parsed), the model, the scene.
PHASES = """(() => {
  const e = window.__explore;
  return { before_request: Math.round(e.requestMs), request: Math.round(e.loadedMs - e.requestMs),
    model: Math.round(e.modelMs - e.loadedMs), scene: Math.round(e.readyMs - e.modelMs) };
})()"""


# Frames per second with nothing changing (the renderer alone), for 2 s.
IDLE = """async () => {
  let frames = 0; const t0 = performance.now();
  await new Promise((done) => {
    const step = (ts) => {
      frames += 1;
      if (ts - t0 < 2000) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  return frames / ((performance.now() - t0) / 1000);
}"""


# Move the scrubber through the whole history, one step per animation frame, for 3 s.
SCRUB = """async () => {
  const e = window.__explore, m = e.model;
  let frames = 0; const t0 = performance.now();
  await new Promise((done) => {
    const step = (ts) => {
      const k = ((ts - t0) / 3000) % 1;
      e.scrubTo(m.start + (m.end - m.start) * k);
      frames += 1;
      if (ts - t0 < 3000) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  return frames / ((performance.now() - t0) / 1000);
}"""


async def _screenshots(page: Any, shots: Path) -> None:
    shots.mkdir(parents=True, exist_ok=True)
    await page.evaluate("window.__explore.scrubTo(window.__explore.model.end)")
    await asyncio.sleep(1)
    await page.screenshot(path=str(shots / "explore-space.png"))
    await page.fill("#search", "budget")
    await page.press("#search", "Enter")
    await asyncio.sleep(3)
    await page.screenshot(path=str(shots / "explore-search.png"))
    await page.click("text=Entity graph")
    await asyncio.sleep(3)
    await page.screenshot(path=str(shots / "explore-entity-graph.png"))


async def run(n: int, runs: int, data_dir: Path, shots: Path | None) -> dict[str, Any]:
    load = os.getloadavg()
    settings = Settings(
        data_dir=data_dir,
        graph=GraphSettings(heap="2g"),
        lifecycle=LifecycleSettings(scheduler=False),
        reconcile_on_start=False,
    )
    brain = await Brain.open(settings)
    try:
        stored, _ = await brain.graph.tenant(TENANT).memory_counts()
        if stored:
            seeded: dict[str, Any] = {"memories": stored, "reused": str(data_dir)}
        else:
            t = time.perf_counter()
            seeded = await seed(brain, n)
            seeded["seconds"] = round(time.perf_counter() - t, 1)
        print(f"seeded {seeded}", flush=True)
        t = time.perf_counter()
        await brain.lifecycle.consolidate(TENANT, [JobName.LAYOUT])
        layout_s = round(time.perf_counter() - t, 1)
        _, key = await create_key(brain.graph, TENANT)
        port = _free_port()
        server = uvicorn.Server(
            uvicorn.Config(create_app(settings, brain), port=port, log_level="warning")
        )
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{port}"
        viz = await _viz_request(url, key)
        browser = await measure(url, key, runs, shots)
        server.should_exit = True
        await task
        return {
            "machine": machine(),
            "load_average": {"before": [round(x, 2) for x in load], "after": _load()},
            "seed": seeded,
            "layout_seconds": layout_s,
            "vizgraph_request_ms": viz["columns_ms"],
            "vizgraph_request": viz,
            **browser,
        }
    finally:
        await brain.close()


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def _viz_request(url: str, key: str) -> dict[str, float]:
    """The explorer's one request (vizGraph's columns, as web/src/explore/api.js asks),
    timed alone (server + transfer), median of 3; and the same view as node and edge
    objects (what the explorer asked for before the columns) for comparison."""
    columns = (
        "columns { memoryIds typeNames types positions laidOut importance validFrom"
        " supersededAt expiresAt createdAt halfLifeDays labels sessionNames sessions"
        " projectNames projects memoryEntities entityIds entityNames entityTypes"
        " entityProvisional relationNames links linkWeights entityLinks }"
    )
    objects = (
        "nodes { id type kind label content laidOut importance decayFactor validFrom"
        " supersededAt expiresAt createdAt halfLifeDays sessionId projectId entityIds"
        " position { x y z } } edges { source target relation weight kind }"
    )
    out = {}
    async with httpx.AsyncClient(timeout=120) as http:
        for name, selection in (("columns", columns), ("objects", objects)):
            query = (
                "{ vizGraph(history: true, limit: 5000, about: false) { ... on VizGraph"
                f" {{ total sampled {selection} }} }} }}"
            )
            samples = []
            for _ in range(3):
                t = time.perf_counter()
                r = await http.post(
                    f"{url}/graphql",
                    json={"query": query},
                    headers={"Authorization": f"Bearer {key}"},
                )
                r.raise_for_status()
                samples.append((time.perf_counter() - t) * 1000)
            out[f"{name}_ms"] = round(statistics.median(samples))
            out[f"{name}_bytes"] = len(r.content)
    return out


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--memories", type=int, default=5_000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--screenshots", type=Path, help="write screenshots of the views here")
    p.add_argument("--out", type=Path, default=Path("bench/results/explore.json"))
    p.add_argument("--data-dir", type=Path, help="keep the seeded tenant here (reused if there)")
    args = p.parse_args()
    if args.data_dir:
        result = asyncio.run(run(args.memories, args.runs, args.data_dir, args.screenshots))
    else:
        with tempfile.TemporaryDirectory(prefix="brain-bench-") as tmp:
            result = asyncio.run(run(args.memories, args.runs, Path(tmp), args.screenshots))
    print(
        f"render after load: {result['render_ms_median']} ms (median of {args.runs}); "
        f"scrub: {result['scrub_fps_median']} fps; vizGraph request "
        f"{result['vizgraph_request_ms']} ms; layout {result['layout_seconds']} s; "
        f"load {result['load_average']}"
    )
    write_json(args.out, result)


if __name__ == "__main__":
    main()
