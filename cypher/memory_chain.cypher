// The whole supersede chain through a memory, oldest first, with the reason of each link.
// params: $tenant, $id
// returns: nodes (memory properties, oldest first), reasons, ats (per link), entity_ids
MATCH (m:Memory {id: $id, tenant_id: $tenant})
MATCH (root:Memory)-[:SUPERSEDED_BY*0..]->(m)
WHERE root.tenant_id = $tenant AND NOT ()-[:SUPERSEDED_BY]->(root)
MATCH p = (root)-[:SUPERSEDED_BY*0..]->(last:Memory)
WHERE NOT (last)-[:SUPERSEDED_BY]->() AND all(n IN nodes(p) WHERE n.tenant_id = $tenant)
RETURN [n IN nodes(p) | properties(n)] AS nodes,
       [r IN relationships(p) | r.reason] AS reasons,
       [r IN relationships(p) | r.at] AS ats
