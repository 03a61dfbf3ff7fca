// Merge records naming erased entities: a merge kept into an erased entity goes; otherwise
// the erased ids leave its drop list, and a merge left with nothing dropped goes.
// params: $tenant, $entity_ids
// returns: merges (how many were changed or deleted)
MATCH (mg:EntityMerge {tenant_id: $tenant})
WHERE mg.keep_id IN $entity_ids OR any(x IN coalesce(mg.drop_ids, []) WHERE x IN $entity_ids)
SET mg.drop_ids = [x IN coalesce(mg.drop_ids, []) WHERE NOT x IN $entity_ids]
WITH mg, mg.keep_id IN $entity_ids OR size(mg.drop_ids) = 0 AS gone
FOREACH (_ IN CASE WHEN gone THEN [1] ELSE [] END | DELETE mg)
RETURN count(*) AS merges
