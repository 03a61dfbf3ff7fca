// Create or update a background document ingest (status, progress, result summary).
// params: $tenant, $id, $props
// returns: id
MERGE (j:DocumentJob {id: $id, tenant_id: $tenant})
SET j += $props
RETURN j.id AS id
