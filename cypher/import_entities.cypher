// Recreate exported entities with their ids and alias nodes (import).
// params: $tenant, $rows: [{props, aliases: [{key, norm, text}]}]
// returns: id
UNWIND $rows AS row
CREATE (e:Entity)
SET e = row.props, e.tenant_id = $tenant
WITH e, row
UNWIND row.aliases AS a
MERGE (al:Alias {key: a.key})
ON CREATE SET al.tenant_id = $tenant, al.norm = a.norm, al.text = a.text
MERGE (al)-[:ALIAS_OF]->(e)
RETURN DISTINCT e.id AS id
