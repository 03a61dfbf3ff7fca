// The tenant's core items learned from conversation that are in core now: pinned, current
// and live (found through the pinned_key index, like all core memory).
// params: $tenant, $at
// returns: id, slot, key, scope, source_statement, created_at
MATCH (m:Memory {pinned_key: $tenant})
WHERE m.core_slot IS NOT NULL AND m.superseded_by IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > $at)
RETURN m.id AS id, m.core_slot AS slot, m.core_key AS key, m.core_scope AS scope,
       m.core_from AS source_statement, m.created_at AS created_at
