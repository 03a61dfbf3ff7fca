// Entities outliving an erase whose profile may quote erased text: the derived profile goes
// now (declared `key:value` tags stay) and the entity is marked stale, so the profile is
// rebuilt from what remains right after the erase, or by the lifecycle if the process dies.
// params: $tenant, $entity_ids
// returns: id
UNWIND $entity_ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
SET e.profile_summary = null, e.profile_embedding = null, e.profile_stale = true,
    e.context_tags = [t IN coalesce(e.context_tags, []) WHERE t CONTAINS ':']
RETURN e.id AS id
