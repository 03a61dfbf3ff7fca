// The learned core items in core now (pinned, current, live) that a turn of a user may
// replace: the tenant's shared ones and that user's own, through the pinned_key index ($keys:
// graph/core_ops.pinned_keys), so the read does not grow with the tenant's other users.
// params: $tenant, $keys, $at
// returns: id, slot, key, scope, source_statement, created_at
UNWIND $keys AS key
MATCH (m:Memory {pinned_key: key})
WHERE m.tenant_id = $tenant AND m.core_slot IS NOT NULL AND m.superseded_by IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > $at)
RETURN m.id AS id, m.core_slot AS slot, m.core_key AS key, m.core_scope AS scope,
       m.core_from AS source_statement, m.created_at AS created_at
