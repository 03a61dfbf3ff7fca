// Data migration: turns that an earlier working-memory flush expired (every turn not both
// important and retrieved) are visible again: the episodic record is never hidden by the
// lifecycle. A turn is restored only when the flush is what hid it (its expiry is the
// session's flush time); turns a user forgot stay forgotten. Unindexed, so the start-up
// reconciliation gives their vector points the new expiry. Idempotent; all tenants, once.
// params: none
// returns: changed
MATCH (s:Session)
WHERE s.flushed_at IS NOT NULL
MATCH (m:Memory {session_id: s.sid, tenant_id: s.tenant_id})
WHERE m.wm_state = 'expired' AND m.expires_at = s.flushed_at
SET m.wm_state = 'kept', m.expires_at = null, m.indexed = false
RETURN count(m) AS changed
