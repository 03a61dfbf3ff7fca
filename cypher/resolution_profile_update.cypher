// Store recomputed profiles (summary, embedding, context tags) for a batch of entities. A
// row is stored only while every memory it was built from ($rows.sources) still exists: a
// profile computed before an erase and saved after it would quote erased text (the erase
// cleared the profile and rebuilds it from what remains).
// params: $tenant, $rows: [{id, summary, embedding, tags, sources: [memory id]}]
// returns: id
UNWIND $rows AS row
MATCH (e:Entity {id: row.id, tenant_id: $tenant})
OPTIONAL MATCH (m:Memory {tenant_id: $tenant})
WHERE m.id IN coalesce(row.sources, [])
WITH e, row, count(m) AS present
WHERE present = size(coalesce(row.sources, []))
SET e.profile_summary = row.summary, e.profile_embedding = row.embedding,
    e.context_tags = row.tags
RETURN e.id AS id
