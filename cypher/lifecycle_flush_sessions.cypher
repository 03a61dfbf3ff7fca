// Flush working memory: the session's window has closed, and its unflushed turns are settled.
// A turn important enough and retrieved at least once is promoted (slow decay, so it keeps
// its rank longer); every other turn stays as it is. No turn is hidden: the episodic record is
// the audit trail and often the only place a statement lives. Decay changes ranking only.
// params: $tenant, $sessions: [id], $at, $min_importance, $min_access
// returns: id, promoted, decay_class (one row per turn)
UNWIND $sessions AS sid
MATCH (s:Session {sid: sid, tenant_id: $tenant})
WHERE s.flushed_at IS NULL
SET s.flushed_at = $at
WITH sid
MATCH (m:Memory {session_id: sid, tenant_id: $tenant})
WHERE m.wm_state IS NULL AND m.source STARTS WITH 'turn:'
WITH m, (m.importance >= $min_importance AND coalesce(m.access_count, 0) >= $min_access) AS keep
SET m.wm_state = CASE WHEN keep THEN 'promoted' ELSE 'kept' END,
    m.decay_class = CASE WHEN keep AND m.decay_class <> 'none' THEN 'slow' ELSE m.decay_class END,
    m.indexed = CASE WHEN keep THEN false ELSE m.indexed END
RETURN m.id AS id, keep AS promoted, m.decay_class AS decay_class
