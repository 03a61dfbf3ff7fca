// Hard delete memories of the tenant, with every relationship they have.
// params: $tenant, $ids
// returns: id (of each erased memory)
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
WITH m, m.id AS erased
DETACH DELETE m
RETURN erased AS id
