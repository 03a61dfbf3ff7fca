// Data migration: give pinned memories written before pinned_key existed their key (the
// tenant id of the memory itself), so core memory is found through the index. Idempotent;
// runs across tenants once per database (it copies each node's own tenant id).
// params: none
// returns: changed
MATCH (m:Memory)
WHERE m.pinned = true AND m.pinned_key IS NULL
SET m.pinned_key = m.tenant_id
RETURN count(m) AS changed
