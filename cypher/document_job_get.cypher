// A background document ingest by id.
// params: $tenant, $id
// returns: j (job properties)
MATCH (j:DocumentJob {id: $id, tenant_id: $tenant})
RETURN properties(j) AS j
