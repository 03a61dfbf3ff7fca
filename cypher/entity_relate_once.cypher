// Relate two entities of the tenant unless the source already has this relation to the
// target, in one round trip. With $set_parent, a new relation also makes the target the
// parent of a source that has none ("Peter works for WOBS"). Two transactions relating the
// same pair at once cannot both find no relation: on Neo4j the source is written before the
// check (a property set and removed: nothing stays), so the second waits for the first's
// lock; on ArcadeDB the second fails at commit on the relationship both created between the
// same two nodes (measured; a property set and removed alone changes nothing there, see
// entity_create_once) and the driver runs it again.
// params: $tenant, $row {id, source_id, target_id, relation, since, until, source_memory_id},
//         $set_parent
// returns: created, e (the source's properties after the change); no row when either
//          entity is missing
MATCH (a:Entity {id: $row.source_id, tenant_id: $tenant})
MATCH (b:Entity {id: $row.target_id, tenant_id: $tenant})
SET a._lock = true
REMOVE a._lock
WITH a, b
OPTIONAL MATCH (a)-[old:RELATED]->(b)
WHERE old.relation = $row.relation
WITH a, b, count(old) = 0 AS fresh
FOREACH (x IN CASE WHEN fresh THEN [b] ELSE [] END |
  CREATE (a)-[r:RELATED]->(x)
  SET r.id = $row.id, r.relation = $row.relation, r.since = $row.since, r.until = $row.until,
      r.source_memory_id = $row.source_memory_id)
FOREACH (x IN CASE WHEN fresh AND $set_parent AND a.parent_id IS NULL THEN [b] ELSE [] END |
  SET a.parent_id = x.id)
RETURN fresh AS created, properties(a) AS e
