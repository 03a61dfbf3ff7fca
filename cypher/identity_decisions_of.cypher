// The automatic identity decisions that chose, created or weighed an entity, newest first.
// params: $tenant, $id (an entity id), $limit
// returns: d (decision properties)
MATCH (d:IdentityDecision {tenant_id: $tenant})
WHERE d.entity_id = $id OR $id IN d.candidates
RETURN properties(d) AS d
ORDER BY d.at DESC
LIMIT $limit
