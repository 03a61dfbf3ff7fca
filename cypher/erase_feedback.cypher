// Feedback records naming erased memories: the ids leave the record, and a record left
// naming none is deleted.
// params: $tenant, $ids (memories being erased)
// returns: feedback (how many were changed or deleted)
MATCH (f:Feedback {tenant_id: $tenant})
WHERE any(x IN coalesce(f.memory_ids, []) WHERE x IN $ids)
SET f.memory_ids = [x IN f.memory_ids WHERE NOT x IN $ids]
WITH f, size(f.memory_ids) = 0 AS empty
FOREACH (_ IN CASE WHEN empty THEN [1] ELSE [] END | DETACH DELETE f)
RETURN count(*) AS feedback
