// Ids of the tenant's confirmed tasks, newest first (the task bonus of a search). The
// task_tenant index holds this tenant's tasks only (the task_key index would give every
// tenant's, a type match the tenant's memories).
// params: $tenant, $limit
// returns: id
MATCH (m:Memory {task_tenant: $tenant})
WHERE m.task_status = 'confirmed'
RETURN m.id AS id
ORDER BY m.created_at DESC
LIMIT $limit
