// Data migration: give tasks written before task_tenant existed their key (the tenant id of
// the memory itself), so a tenant's tasks are found through the index. Idempotent; runs
// across tenants once per database (it copies each node's own tenant id).
// params: none
// returns: changed
MATCH (m:Memory)
WHERE m.type = 'task' AND m.task_tenant IS NULL
SET m.task_tenant = m.tenant_id
RETURN count(m) AS changed
