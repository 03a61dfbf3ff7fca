// Create or update a document record (hash, version, current chunk ids).
// params: $tenant, $source_path, $props
// returns: id
MERGE (d:Document {source_path: $source_path, tenant_id: $tenant})
SET d += $props
RETURN d.id AS id
