// Tasks of a tenant, optionally of one status, newest first. Found through the task_tenant
// index (the tenant id on tasks, absent on other memories), not by scanning the tenant.
// params: $tenant, $status (string or null), $limit
// returns: m (memory properties), entity_ids
MATCH (m:Memory {task_tenant: $tenant})
WHERE $status IS NULL OR m.task_status = $status
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids
ORDER BY m.created_at DESC
LIMIT $limit
