// Entities whose profile needs rebuilding: marked stale by a lifecycle job, or never built
// although memories are about them.
// params: $tenant, $limit
// returns: id
MATCH (e:Entity {tenant_id: $tenant})
WHERE e.merged_into IS NULL AND (e.profile_stale = true OR e.profile_summary IS NULL)
MATCH (:Memory)-[:ABOUT]->(e)
RETURN DISTINCT e.id AS id
LIMIT $limit
