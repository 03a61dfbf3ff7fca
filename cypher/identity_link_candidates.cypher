// A provisional entity's possible identities: one scored POSSIBLY_SAME_AS link to each
// candidate it may be (the write path could not tell which, or whether it is a new person).
// params: $tenant, $id (the provisional entity), $links [{id, score}], $at
// returns: linked (candidate ids)
MATCH (p:Entity {id: $id, tenant_id: $tenant})
UNWIND $links AS link
MATCH (c:Entity {id: link.id, tenant_id: $tenant})
WHERE c.id <> p.id
CREATE (p)-[:POSSIBLY_SAME_AS {score: link.score, at: $at}]->(c)
RETURN collect(c.id) AS linked
