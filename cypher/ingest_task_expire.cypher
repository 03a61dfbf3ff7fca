// Expire candidate tasks created before a cut-off that nobody confirmed (the tenant's tasks
// through the task_tenant index).
// params: $tenant, $created_before, $at
// returns: id
MATCH (m:Memory {task_tenant: $tenant})
WHERE m.task_status = 'candidate' AND m.created_at < $created_before
SET m.task_status = 'expired', m.task_updated_at = $at, m.expires_at = $at, m.indexed = false
RETURN m.id AS id
