// Hard delete memories of the tenant, with every relationship they have.
// params: $tenant, $ids
// returns: id, type, content (of each erased memory: the content for the on-disk check)
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
WITH m, m.id AS erased, m.type AS type, m.content AS content
DETACH DELETE m
RETURN erased AS id, type, content
