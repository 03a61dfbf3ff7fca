// Replace a current memory with a new version and keep the chain. The old one gets
// superseded_by/superseded_at and is marked unindexed until its vector payload is updated.
// A forgotten memory (expires_at <= $now) is not superseded: forget and supersede of one
// memory at once write the same record, so one of them sees the other's write.
// params: $tenant, $old_id, $row (new memory properties), $reason, $at, $now
// The old memory is written before it is checked (a property set and removed: nothing
// stays), so of two calls superseding it at once one succeeds and the other finds it
// superseded: on Neo4j the second waits for the first's lock; on ArcadeDB (where a property
// set and removed is no write) it fails at commit on superseded_by, which both wrote, and the
// driver runs it again.
// The episode the old memory was extracted from gets corrected_at (see
// ingest_supersede_batch).
// returns: id (of the new memory); no row when old_id is missing, superseded or forgotten
MATCH (old:Memory {id: $old_id, tenant_id: $tenant})
SET old._lock = true
REMOVE old._lock
WITH old
WHERE old.superseded_by IS NULL AND (old.expires_at IS NULL OR old.expires_at > $now)
CREATE (new:Memory)
SET new = $row, new.tenant_id = $tenant, new.indexed = false, new.supersedes = old.id,
    new.chain_id = coalesce(old.chain_id, old.id),
    new.pinned_key = CASE WHEN $row.pinned THEN $tenant END,
    new.task_tenant = CASE WHEN $row.type = 'task' THEN $tenant END
SET old.superseded_by = new.id, old.superseded_at = $at, old.indexed = false
CREATE (old)-[:SUPERSEDED_BY {reason: $reason, at: $at}]->(new)
WITH old, new, CASE WHEN old.source STARTS WITH 'rule:' OR old.source STARTS WITH 'llm:'
                    THEN last(split(old.source, ':')) END AS episode_id
OPTIONAL MATCH (episode:Memory {id: episode_id})
WHERE episode.tenant_id = $tenant AND episode.type = 'episodic'
FOREACH (x IN CASE WHEN episode IS NULL THEN [] ELSE [episode] END |
  SET x.corrected_at = coalesce(x.corrected_at, $at))
WITH old, new
OPTIONAL MATCH (old)-[:ABOUT]->(e:Entity)
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | MERGE (new)-[:ABOUT]->(x))
RETURN DISTINCT new.id AS id
