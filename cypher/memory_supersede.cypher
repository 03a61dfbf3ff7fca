// Make a new memory (created by memory_create in the same transaction) the next version of
// a current memory, keeping the chain. The old one gets superseded_by/superseded_at and is
// marked unindexed until its vector payload is updated; the new one joins the old one's
// chain and its ABOUT links.
// A forgotten memory (expires_at <= $now) is not superseded: forget and supersede of one
// memory at once write the same record, so one of them sees the other's write.
// params: $tenant, $old_id, $new_id, $reason, $at, $now
// The old memory is written before it is checked (a property set and removed: nothing
// stays), so of two calls superseding it at once one succeeds and the other finds it
// superseded: on Neo4j the second waits for the first's lock; on ArcadeDB (where a property
// set and removed is no write) it fails at commit on superseded_by, which both wrote, and the
// driver runs it again.
// The episode the old memory was extracted from gets corrected_at and corrected_chains (see
// ingest_supersede_batch).
// returns: id (of the new memory); no row when old_id is missing, superseded or forgotten
MATCH (old:Memory {id: $old_id, tenant_id: $tenant})
SET old._lock = true
REMOVE old._lock
WITH old
WHERE old.superseded_by IS NULL AND (old.expires_at IS NULL OR old.expires_at > $now)
MATCH (new:Memory {id: $new_id, tenant_id: $tenant})
SET new.supersedes = old.id, new.chain_id = coalesce(old.chain_id, old.id)
SET old.superseded_by = new.id, old.superseded_at = $at, old.indexed = false
CREATE (old)-[:SUPERSEDED_BY {reason: $reason, at: $at}]->(new)
WITH old, new, CASE WHEN old.source STARTS WITH 'rule:' OR old.source STARTS WITH 'llm:'
                         OR old.source STARTS WITH 'learned:'
                    THEN last(split(old.source, ':')) END AS episode_id
OPTIONAL MATCH (episode:Memory {id: episode_id})
WHERE episode.tenant_id = $tenant AND episode.type = 'episodic'
FOREACH (x IN CASE WHEN episode IS NULL THEN [] ELSE [episode] END |
  SET x.corrected_at = coalesce(x.corrected_at, $at),
      x.corrected_chains = CASE WHEN new.chain_id IN coalesce(x.corrected_chains, [])
                                THEN x.corrected_chains
                                ELSE coalesce(x.corrected_chains, []) + [new.chain_id] END)
WITH old, new
OPTIONAL MATCH (old)-[:ABOUT]->(e:Entity)
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | MERGE (new)-[:ABOUT]->(x))
RETURN DISTINCT new.id AS id
