// Record contradictions for review: both memories stay current, linked by CONFLICTS_WITH.
// params: $tenant, $rows: [{id, memory_id, existing_id, subject, predicate, reason, at}]
// returns: id
UNWIND $rows AS row
MATCH (new:Memory {id: row.memory_id})
WHERE new.tenant_id = $tenant
MATCH (old:Memory {id: row.existing_id})
WHERE old.tenant_id = $tenant
CREATE (c:Conflict)
SET c = row, c.tenant_id = $tenant
CREATE (new)-[:CONFLICTS_WITH {conflict_id: row.id, at: row.at}]->(old)
RETURN c.id AS id
