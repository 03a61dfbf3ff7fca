// Ids of every memory written for one user of the tenant (for erase by user).
// params: $tenant, $user_id
// returns: id
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.user_id = $user_id
RETURN m.id AS id
