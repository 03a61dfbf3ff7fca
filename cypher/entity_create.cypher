// Create an entity with its aliases, registering the tenant on its first write (the
// reconciler and jobs iterate over tenants). Alias nodes are keyed "<tenant>|<normalized
// alias>" so the alias lookup is one unique-index hit inside the tenant. The new entity comes
// back, so the caller needs no second round trip to read it.
// params: $tenant, $row (entity properties), $aliases: [{key, norm, text}]
// returns: e (entity properties)
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $row.first_seen
WITH t
CREATE (e:Entity)
SET e = $row, e.tenant_id = $tenant
WITH e
UNWIND $aliases AS a
MERGE (al:Alias {key: a.key})
ON CREATE SET al.tenant_id = $tenant, al.norm = a.norm, al.text = a.text
MERGE (al)-[:ALIAS_OF]->(e)
WITH e, count(al) AS aliases
RETURN properties(e) AS e
