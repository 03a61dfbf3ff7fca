// Which of an export's ids this database holds already, and in which tenant (system: import
// keeps ids, and ids are unique across tenants; the importer says which case it met).
// params: $memory_ids: [string], $entity_ids: [string]
// returns: tenant_id (one row per id held)
UNWIND $memory_ids AS id
MATCH (m:Memory {id: id})
RETURN m.tenant_id AS tenant_id
UNION ALL
UNWIND $entity_ids AS id
MATCH (e:Entity {id: id})
RETURN e.tenant_id AS tenant_id
