// Store recomputed profiles (summary, embedding, context tags) for a batch of entities. A
// row is stored only while every memory it was built from ($rows.sources) still exists: a
// profile computed before an erase and saved after it would quote erased text (the erase
// cleared the profile and rebuilds it from what remains). Each source is one lookup of the
// memory id index (a row without sources checks nothing).
// params: $tenant, $rows: [{id, summary, embedding, tags, sources: [memory id]}]
// returns: id
UNWIND $rows AS row
MATCH (e:Entity {id: row.id, tenant_id: $tenant})
WITH e, row, coalesce(row.sources, []) AS sources
UNWIND (CASE WHEN size(sources) = 0 THEN [null] ELSE sources END) AS source
OPTIONAL MATCH (m:Memory {id: source})
WHERE m.tenant_id = $tenant
WITH e, row, sources, count(m) AS present
WHERE present = size(sources)
SET e.profile_summary = row.summary, e.profile_embedding = row.embedding,
    e.context_tags = row.tags
RETURN e.id AS id
