// Record feedback on memories used in a session and apply the importance changes.
// params: $tenant, $feedback {id, session_id, helpful, outcome, at, memory_ids},
//         $rows: [{id, before, after}]
// returns: id (of each memory changed)
CREATE (f:Feedback)
SET f = $feedback, f.tenant_id = $tenant
WITH f
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, tenant_id: $tenant})
SET m.importance = row.after, m.indexed = false
CREATE (f)-[:RATED {before: row.before, after: row.after}]->(m)
RETURN m.id AS id
