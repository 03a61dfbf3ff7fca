// Ids of every memory written for one user of the tenant (for erase by user), through the
// user_id index.
// params: $tenant, $user_id
// returns: id
MATCH (m:Memory {user_id: $user_id})
WITH m
WHERE m.tenant_id = $tenant
RETURN m.id AS id
