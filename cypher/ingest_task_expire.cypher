// Expire candidate tasks created before a cut-off that nobody confirmed.
// params: $tenant, $before, $at
// returns: id
MATCH (m:Memory {type: 'task'})
WHERE m.tenant_id = $tenant AND m.task_status = 'candidate' AND m.created_at < $before
SET m.task_status = 'expired', m.task_updated_at = $at, m.expires_at = $at, m.indexed = false
RETURN m.id AS id
