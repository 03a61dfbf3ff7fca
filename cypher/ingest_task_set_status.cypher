// Move a task to a new status if it is in one of the allowed ones; dismissed and expired
// tasks also expire as memories (they leave retrieval, the record stays).
// params: $tenant, $id, $status, $from: [string], $at, $expires_at
// returns: m (memory properties), entity_ids; no row when unknown or not in $from
MATCH (m:Memory {id: $id})
WHERE m.tenant_id = $tenant AND m.type = 'task' AND m.task_status IN $from
SET m.task_status = $status, m.task_updated_at = $at, m.expires_at = $expires_at,
    m.indexed = false
WITH m
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids
