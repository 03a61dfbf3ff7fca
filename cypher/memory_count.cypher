// Memory counts of the tenant.
// params: $tenant
// returns: total, unindexed
MATCH (m:Memory {tenant_id: $tenant})
RETURN count(m) AS total, sum(CASE WHEN m.indexed THEN 0 ELSE 1 END) AS unindexed
