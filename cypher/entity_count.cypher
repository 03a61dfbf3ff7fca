// Entity count of the tenant.
// params: $tenant
// returns: total
MATCH (e:Entity {tenant_id: $tenant})
RETURN count(e) AS total
