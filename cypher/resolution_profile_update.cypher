// Store recomputed profiles (summary, embedding, context tags) for a batch of entities.
// params: $tenant, $rows: [{id, summary, embedding, tags}]
// returns: id
UNWIND $rows AS row
MATCH (e:Entity {id: row.id, tenant_id: $tenant})
SET e.profile_summary = row.summary, e.profile_embedding = row.embedding,
    e.context_tags = row.tags
RETURN e.id AS id
