// Recreate exported memories with their ids (import); they are re-indexed afterwards.
// params: $tenant, $rows: [memory properties]
// returns: id
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row, m.tenant_id = $tenant, m.indexed = false,
    m.pinned_key = CASE WHEN row.pinned THEN $tenant END,
    m.task_tenant = CASE WHEN row.type = 'task' THEN $tenant END
RETURN m.id AS id
