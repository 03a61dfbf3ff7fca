// Hard delete memories of the tenant, with every relationship they have.
// params: $tenant, $ids
// returns: id, type (of each erased memory)
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
WITH m, m.id AS erased, m.type AS type
DETACH DELETE m
RETURN erased AS id, type
