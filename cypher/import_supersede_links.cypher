// Recreate supersede edges between imported memories.
// params: $tenant, $links: [{old_id, new_id, reason, at}]
// returns: new_id
UNWIND $links AS link
MATCH (old:Memory {id: link.old_id, tenant_id: $tenant})
MATCH (new:Memory {id: link.new_id, tenant_id: $tenant})
CREATE (old)-[:SUPERSEDED_BY {reason: link.reason, at: link.at}]->(new)
RETURN new.id AS new_id
