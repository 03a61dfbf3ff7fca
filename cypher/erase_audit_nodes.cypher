// Every node of the tenant with its properties (read-only): erase verification, audits.
// params: $tenant
// returns: labels, props
MATCH (n)
WHERE n.tenant_id = $tenant
RETURN labels(n) AS labels, properties(n) AS props
