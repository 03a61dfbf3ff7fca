// Ids of the tenant's confirmed tasks, newest first (the task bonus of a search). Every task
// carries a non-empty task_key, so the range on the task_key index finds the tasks without
// scanning the tenant's memories (matching on type would).
// params: $tenant, $limit
// returns: id
MATCH (m:Memory)
WHERE m.task_key > ''
WITH m
WHERE m.tenant_id = $tenant AND m.type = 'task' AND m.task_status = 'confirmed'
RETURN m.id AS id
ORDER BY m.created_at DESC
LIMIT $limit
