// Lifecycle links between memories, for export: duplicate merges (MERGED_INTO, undone ones
// too) and pattern sources (SUMMARIZES).
// params: $tenant
// returns: type, source_id, target_id, r (relationship properties)
MATCH (a:Memory {tenant_id: $tenant})-[r:MERGED_INTO]->(b:Memory {tenant_id: $tenant})
RETURN 'MERGED_INTO' AS type, a.id AS source_id, b.id AS target_id, properties(r) AS r
UNION ALL
MATCH (a:Memory {tenant_id: $tenant})-[r:SUMMARIZES]->(b:Memory {tenant_id: $tenant})
RETURN 'SUMMARIZES' AS type, a.id AS source_id, b.id AS target_id, properties(r) AS r
