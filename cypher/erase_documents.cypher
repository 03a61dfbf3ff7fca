// Document records listing erased chunks: the chunks leave the list, and a document left
// with none is deleted (so ingesting the same file again stores it again, not a no-op).
// params: $tenant, $ids (memories being erased)
// returns: documents (how many were changed or deleted)
MATCH (d:Document {tenant_id: $tenant})
WHERE any(x IN coalesce(d.chunk_ids, []) WHERE x IN $ids)
SET d.chunk_ids = [x IN d.chunk_ids WHERE NOT x IN $ids]
WITH d, size(d.chunk_ids) = 0 AS empty
FOREACH (_ IN CASE WHEN empty THEN [1] ELSE [] END | DELETE d)
RETURN count(*) AS documents
