// The entity path's entity set: each requested entity (its properties without the profile
// embedding: its names give the query's topic) with its parent, the process entities it is
// related to, and the entities merged into it.
// params: $tenant, $ids: [string]
// returns: e (entity properties, profile_embedding left out), linked (process neighbour
//          ids), merged (ids merged into it)
UNWIND $ids AS eid
MATCH (e:Entity {id: eid, tenant_id: $tenant})
OPTIONAL MATCH (e)-[:RELATED]-(p:Entity)
WHERE p.tenant_id = $tenant AND p.type = 'process'
OPTIONAL MATCH (d:Entity)-[:MERGED_INTO]->(e)
WHERE d.tenant_id = $tenant
RETURN e {.id, .tenant_id, .name, .type, .aliases, .parent_id, .profile_summary, .context_tags,
          .first_seen, .last_seen, .merged_into, .provisional} AS e,
       collect(DISTINCT p.id) AS linked, collect(DISTINCT d.id) AS merged
