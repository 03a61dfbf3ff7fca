// Renew the entity cache of a tenant (resolution/entity_cache.py) in one row, as
// resolution_entity_get does, but without profile embeddings: for the ids in $full only the
// first four numbers of the embedding, enough to tell whether the kept one is still current
// (a new profile gives a new vector), so the full vectors are read again only where they changed.
// params: $tenant, $ids, $full
// returns: es (list of entity property maps; profile_head null unless the id is in $full)
UNWIND $ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
RETURN collect(e {.id, .tenant_id, .name, .type, .aliases, .parent_id, .profile_summary,
          .context_tags, .first_seen, .last_seen, .merged_into, .provisional,
          profile_head: CASE WHEN id IN $full THEN e.profile_embedding[0..4] END}) AS es
