// Hydrate entities for the resolve step, as one row: hundreds of namesakes come back as one
// list rather than one Bolt record each (per-record overhead was most of a 500-namesake read).
// The profile embedding (384+ floats, most of the payload) is returned only for the ids in
// $full: the candidates context may have to separate. The properties are listed (the fields of
// core.types.Entity): ArcadeDB keeps the stored value of a key that `.*` already projects.
// params: $tenant, $ids, $full
// returns: es (list of entity property maps; profile_embedding null unless the id is in $full)
UNWIND $ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
RETURN collect(e {.id, .tenant_id, .name, .type, .aliases, .parent_id, .profile_summary,
          .context_tags, .first_seen, .last_seen, .merged_into, .provisional,
          profile_embedding: CASE WHEN id IN $full THEN e.profile_embedding END}) AS es
