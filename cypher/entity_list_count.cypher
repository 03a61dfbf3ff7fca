// How many entities entity_list would page through (every page): the same filters.
// params: $tenant, $type, $name_part (lower-case substring)
// returns: total
MATCH (e:Entity {tenant_id: $tenant})
WHERE e.merged_into IS NULL
  AND ($type IS NULL OR e.type = $type)
  AND ($name_part IS NULL OR toLower(e.name) CONTAINS $name_part)
RETURN count(e) AS total
