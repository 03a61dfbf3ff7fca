// A page of the tenant's entities (not merged away), ordered by id after an optional cursor.
// params: $tenant, $type, $name_part (lower-case substring), $after, $limit
// returns: e (entity properties)
MATCH (e:Entity {tenant_id: $tenant})
WHERE e.merged_into IS NULL
  AND ($type IS NULL OR e.type = $type)
  AND ($name_part IS NULL OR toLower(e.name) CONTAINS $name_part)
  AND ($after IS NULL OR e.id > $after)
RETURN properties(e) AS e
ORDER BY e.id
LIMIT $limit
