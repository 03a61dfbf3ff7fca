// Create an entity with its aliases. Alias nodes are keyed "<tenant>|<normalized alias>" so
// the alias lookup is one unique-index hit inside the tenant.
// params: $tenant, $row (entity properties), $aliases: [{key, norm, text}]
// returns: id
CREATE (e:Entity)
SET e = $row, e.tenant_id = $tenant
WITH e
UNWIND $aliases AS a
MERGE (al:Alias {key: a.key})
ON CREATE SET al.tenant_id = $tenant, al.norm = a.norm, al.text = a.text
MERGE (al)-[:ALIAS_OF]->(e)
RETURN DISTINCT e.id AS id
