// Every relationship leaving a node of the tenant, with its properties (read-only).
// params: $tenant
// returns: type, props
MATCH (a)-[r]->()
WHERE a.tenant_id = $tenant
RETURN type(r) AS type, properties(r) AS props
