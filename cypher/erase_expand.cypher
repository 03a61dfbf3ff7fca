// Memories that hold the same text as these and must go with them: earlier versions in
// their supersede chains, merged duplicates on either side, and patterns summarizing them.
// (A pattern's other source episodes are restored, not erased: erase_restore_sources.)
// Every pattern starts at the bound memory: an unanchored one scans the label.
// params: $tenant, $ids
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
OPTIONAL MATCH (m)<-[:SUPERSEDED_BY*1..]-(older)
WITH m, collect(older.id) AS versions
OPTIONAL MATCH (m)-[:MERGED_INTO]-(dup)
WITH m, versions, collect(dup.id) AS duplicates
OPTIONAL MATCH (m)<-[:SUMMARIZES]-(p)
WITH versions, duplicates, collect(p.id) AS patterns
UNWIND versions + duplicates + patterns AS related
RETURN DISTINCT related AS id
