// One page of the tenant's entities for export (merged ones included).
// params: $tenant, $skip, $limit
// returns: e
MATCH (e:Entity {tenant_id: $tenant})
RETURN properties(e) AS e
ORDER BY e.first_seen, e.id
SKIP $skip LIMIT $limit
