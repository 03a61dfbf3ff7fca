// The current, live memories about each entity (or entities merged into it), most important
// and newest first, at most $limit per entity: the material of its profile.
// params: $tenant, $ids: [string], $at (epoch seconds), $limit
// returns: entity_id, memories: [[content, importance, created_at, id]]
UNWIND $ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
OPTIONAL MATCH (d:Entity)-[:MERGED_INTO*0..]->(e)
WHERE d.tenant_id = $tenant
OPTIONAL MATCH (m:Memory)-[:ABOUT]->(d)
WHERE m.tenant_id = $tenant AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
WITH e, m
ORDER BY m.importance DESC, m.created_at DESC
WITH e, collect([m.content, m.importance, m.created_at, m.id]) AS memories
RETURN e.id AS entity_id, memories[0..$limit] AS memories
