// Hard delete an entity, its alias nodes (unless shared) and its relationships.
// params: $tenant, $id
// returns: id
MATCH (e:Entity {id: $id, tenant_id: $tenant})
OPTIONAL MATCH (al:Alias)-[:ALIAS_OF]->(e)
WITH e, collect(al) AS aliases
DETACH DELETE e
WITH aliases
UNWIND aliases AS al
OPTIONAL MATCH (al)-[:ALIAS_OF]->(other:Entity)
WITH al, count(other) AS uses
WHERE uses = 0
DELETE al
RETURN count(al) AS aliases_deleted
