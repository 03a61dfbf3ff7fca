// Every memory id of the tenant in id order, a page at a time (payload drift check).
// params: $tenant, $after, $limit
// returns: id
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.id > $after
RETURN m.id AS id
ORDER BY id
LIMIT $limit
