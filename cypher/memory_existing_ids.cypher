// Which of these ids are memories of the tenant (orphan detection).
// params: $tenant, $ids
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
RETURN m.id AS id
