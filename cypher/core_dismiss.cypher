// Remember that a learned core item was removed from core (unpinCore): its key goes on the
// memory as ``core_dismissed`` (indexed), so the same statement said again is not pinned
// again. A memory that was not learned from conversation is left as it is.
// params: $tenant, $id
// returns: id
MATCH (m:Memory {id: $id, tenant_id: $tenant})
WHERE m.core_key IS NOT NULL
SET m.core_dismissed = m.core_key
RETURN m.id AS id
