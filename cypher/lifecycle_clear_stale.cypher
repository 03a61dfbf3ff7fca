// Profiles of these entities were rebuilt.
// params: $tenant, $ids
// returns: id
UNWIND $ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
SET e.profile_stale = null
RETURN e.id AS id
