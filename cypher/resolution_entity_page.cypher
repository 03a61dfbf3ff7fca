// One page of the tenant's live entity ids in id order (the bulk re-profiling walk).
// params: $tenant, $after (id to start after, "" for the first page), $limit
// returns: id
MATCH (e:Entity {tenant_id: $tenant})
WHERE e.merged_into IS NULL AND e.id > $after
RETURN e.id AS id
ORDER BY id
LIMIT $limit
