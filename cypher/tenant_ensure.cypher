// Register a tenant on first write (the reconciler and jobs iterate over tenants).
// params: $tenant, $at
// returns: id
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $at
RETURN t.id AS id
