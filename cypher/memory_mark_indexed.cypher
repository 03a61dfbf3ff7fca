// Record whether the vector index reflects these memories.
// params: $tenant, $ids: [string], $indexed: bool
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
SET m.indexed = $indexed
RETURN m.id AS id
