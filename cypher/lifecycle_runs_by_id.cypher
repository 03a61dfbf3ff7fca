// Job run reports by id.
// params: $tenant, $ids
// returns: r (node properties)
UNWIND $ids AS id
MATCH (r:JobRun {id: id, tenant_id: $tenant})
RETURN properties(r) AS r
