// An entity born from a mention that matched known ones (the write path's identity decision,
// resolution/identity.py): the entity with its aliases, registering the tenant on its first
// write, and, when it is provisional, one scored POSSIBLY_SAME_AS link to each candidate it
// may be, in one statement (a turn that introduces someone sends it in its own transaction).
// params: $tenant, $row (entity properties), $aliases: [{key, norm, text}],
//         $links: [{id, score}] (may be empty), $at (when the links were made)
// returns: e (entity properties), linked (candidate ids)
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
UNWIND (CASE WHEN size($links) = 0 THEN [null] ELSE $links END) AS link
OPTIONAL MATCH (c:Entity {id: link.id, tenant_id: $tenant})
WHERE c.id <> e.id
FOREACH (_ IN CASE WHEN c IS NULL THEN [] ELSE [1] END |
    CREATE (e)-[:POSSIBLY_SAME_AS {score: link.score, at: $at}]->(c))
WITH e, collect(c.id) AS linked
RETURN properties(e) AS e, linked
