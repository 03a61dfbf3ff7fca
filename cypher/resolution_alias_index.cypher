// Every alias of the tenant's live (not merged) entities: feeds the per-tenant name cache
// (EntityRuler patterns and the first-token index) in one round trip.
// params: $tenant
// returns: text, norm, entity_id, type
MATCH (al:Alias {tenant_id: $tenant})-[:ALIAS_OF]->(e:Entity)
WHERE e.tenant_id = $tenant AND e.merged_into IS NULL
RETURN al.text AS text, al.norm AS norm, e.id AS entity_id, e.type AS type
