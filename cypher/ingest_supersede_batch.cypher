// Link already-created new memories as the successors of old ones (corrections, new
// document versions). Each new memory succeeds the current end of the old one's chain: the
// old memory itself, or, when another write superseded it since the caller read it (a
// correction made at the same time in another process), that write's memory — so a chain
// never forks and a fact keeps one current value. The old memory is written before the chain
// is read (a property set and removed: nothing stays), so two transactions superseding it at
// once take turns: on Neo4j the second waits for the first's lock; on ArcadeDB (where a
// property set and removed is no write) it fails at commit on the chain end both wrote
// (superseded_by) and the driver runs it again. The superseded memory gets
// superseded_by/superseded_at and is marked unindexed until its vector payload says so; the
// new one joins the chain. The episode the superseded memory was extracted from (its source
// ends with the episode's id: "rule:fact:<id>", "llm:fact:<id>", a learned core item's
// "learned:business:<id>") gets corrected_at, the
// first time one of its statements was corrected: the turn stays as it was said, and a
// context shows it as corrected later, and the chain's id joins its corrected_chains: a read
// finds the chain's current version there and puts it first.
// params: $tenant, $pairs: [{old_id, new_id, reason, reason_after_another}], $at
// returns: old_id (the memory superseded), new_id (one row per link made; none when the old
//          memory is gone)
UNWIND $pairs AS p
MATCH (old:Memory {id: p.old_id})
WHERE old.tenant_id = $tenant
MATCH (new:Memory {id: p.new_id})
WHERE new.tenant_id = $tenant
SET old._lock = true
REMOVE old._lock
WITH p, old, new
MATCH (old)-[:SUPERSEDED_BY*0..]->(head:Memory)
WHERE head.superseded_by IS NULL AND head <> new
WITH p, old, new, head
SET new.supersedes = head.id, new.chain_id = coalesce(head.chain_id, head.id)
SET head.superseded_by = new.id, head.superseded_at = $at, head.indexed = false
CREATE (head)-[:SUPERSEDED_BY {
  reason: CASE WHEN head = old THEN p.reason ELSE p.reason_after_another END,
  at: $at
}]->(new)
WITH head, new, CASE WHEN head.source STARTS WITH 'rule:' OR head.source STARTS WITH 'llm:'
                          OR head.source STARTS WITH 'learned:'
                     THEN last(split(head.source, ':')) END AS episode_id
OPTIONAL MATCH (episode:Memory {id: episode_id})
WHERE episode.tenant_id = $tenant AND episode.type = 'episodic'
FOREACH (x IN CASE WHEN episode IS NULL THEN [] ELSE [episode] END |
  SET x.corrected_at = coalesce(x.corrected_at, $at),
      x.corrected_chains = CASE WHEN new.chain_id IN coalesce(x.corrected_chains, [])
                                THEN x.corrected_chains
                                ELSE coalesce(x.corrected_chains, []) + [new.chain_id] END)
RETURN head.id AS old_id, new.id AS new_id
