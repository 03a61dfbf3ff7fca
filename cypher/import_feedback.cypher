// Recreate feedback records with their RATED links (import).
// params: $tenant, $rows: [{props, ratings: [{memory_id, before, after}]}]
// returns: id
UNWIND $rows AS row
CREATE (f:Feedback)
SET f = row.props, f.tenant_id = $tenant
WITH f, row
UNWIND row.ratings AS rating
MATCH (m:Memory {id: rating.memory_id, tenant_id: $tenant})
CREATE (f)-[:RATED {before: rating.before, after: rating.after}]->(m)
RETURN DISTINCT f.id AS id
