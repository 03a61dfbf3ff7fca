// Update profile fields of an entity (name, parent, profile, tags, last_seen ...).
// params: $tenant, $id, $props
// returns: id, e (the entity's properties after the update)
MATCH (e:Entity {id: $id, tenant_id: $tenant})
SET e += $props
RETURN e.id AS id, properties(e) AS e
