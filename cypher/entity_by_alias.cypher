// Entities known by a normalized alias, each redirected to the entity it was merged into.
// params: $tenant, $key ("<tenant>|<normalized alias>")
// returns: id
MATCH (al:Alias {key: $key})-[:ALIAS_OF]->(e:Entity)
WHERE e.tenant_id = $tenant AND al.tenant_id = $tenant
OPTIONAL MATCH (e)-[:MERGED_INTO*1..]->(k:Entity)
WHERE k.tenant_id = $tenant AND k.merged_into IS NULL
RETURN DISTINCT coalesce(k, e).id AS id
