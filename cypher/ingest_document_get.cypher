// A document record by its source path.
// params: $tenant, $source_path
// returns: d (document properties)
MATCH (d:Document {source_path: $source_path})
WHERE d.tenant_id = $tenant
RETURN properties(d) AS d
