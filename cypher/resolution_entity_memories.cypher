// The current, live memories about each entity (or entities merged into it), each once (a
// memory about an entity and about one merged into it is reached twice), most important and
// newest first, at most $limit per entity: the material of its profile. With them, what
// corrections replaced in those memories' chains (the earlier versions behind SUPERSEDED_BY
// links, looked for only from a memory that superseded one: most have none) and
// when: a turn said before its statement was corrected still holds the old value, and the
// profile leaves it out.
// params: $tenant, $ids: [string], $at (epoch seconds), $limit
// returns: entity_id, memories: [[content, importance, created_at, id]],
//          replaced: [[[content, superseded_at]]] (per memory, in no order; nulls when none)
UNWIND $ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
OPTIONAL MATCH (d:Entity)-[:MERGED_INTO*0..]->(e)
WHERE d.tenant_id = $tenant
OPTIONAL MATCH (m:Memory)-[:ABOUT]->(d)
WHERE m.tenant_id = $tenant AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
WITH DISTINCT e, m
ORDER BY m.importance DESC, m.created_at DESC
// the profile's material first ($limit a entity), then the links of those memories only
WITH e, collect(m)[0..$limit] AS top
UNWIND CASE WHEN size(top) = 0 THEN [null] ELSE top END AS m
OPTIONAL MATCH (m)<-[:SUPERSEDED_BY*1..]-(old:Memory)
WHERE m.supersedes IS NOT NULL AND old.tenant_id = $tenant AND old.merged_into IS NULL
WITH e, m, collect([old.content, old.superseded_at]) AS olds
ORDER BY m.importance DESC, m.created_at DESC
WITH e, collect([m.content, m.importance, m.created_at, m.id]) AS memories, collect(olds) AS replaced
RETURN e.id AS entity_id, memories, replaced
