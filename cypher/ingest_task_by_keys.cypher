// Existing tasks with these normalized keys (deduplication), any status. The task_key index
// is matched first (WITH), so the cost does not grow with the tenant's memory count.
// params: $tenant, $keys: [string]
// returns: m (memory properties), entity_ids
UNWIND $keys AS k
MATCH (m:Memory {task_key: k})
WITH m
WHERE m.tenant_id = $tenant AND m.type = 'task'
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids
