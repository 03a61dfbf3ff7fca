// The entity path's entity set: each requested entity with its parent, the process entities
// it is related to, and the entities merged into it.
// params: $tenant, $ids: [string]
// returns: id, parent_id, linked (process neighbour ids), merged (ids merged into it)
UNWIND $ids AS eid
MATCH (e:Entity {id: eid, tenant_id: $tenant})
OPTIONAL MATCH (e)-[:RELATED]-(p:Entity)
WHERE p.tenant_id = $tenant AND p.type = 'process'
OPTIONAL MATCH (d:Entity)-[:MERGED_INTO]->(e)
WHERE d.tenant_id = $tenant
RETURN e.id AS id, e.parent_id AS parent_id, collect(DISTINCT p.id) AS linked,
       collect(DISTINCT d.id) AS merged
