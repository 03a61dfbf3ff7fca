// Entities known by a normalized alias, each redirected to the entity it was merged into
// (merges are recorded one hop deep: merging into an already-merged entity is refused).
// params: $tenant, $key ("<tenant>|<normalized alias>")
// returns: e (entity properties)
MATCH (al:Alias {key: $key})-[:ALIAS_OF]->(e:Entity)
WHERE e.tenant_id = $tenant AND al.tenant_id = $tenant
OPTIONAL MATCH (k:Entity {id: e.merged_into})
WHERE k.tenant_id = $tenant
WITH coalesce(k, e) AS found
RETURN DISTINCT properties(found) AS e
