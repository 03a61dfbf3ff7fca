// When the tenant was registered (its first write), from which the scheduler counts the first
// interval of a job that has never run.
// params: $tenant
// returns: at (null for a tenant registered before created_at was recorded)
MATCH (t:Tenant {id: $tenant})
RETURN t.created_at AS at
