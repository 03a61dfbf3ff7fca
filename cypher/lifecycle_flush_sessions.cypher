// Flush working memory: a session's unflushed turns are promoted (kept, slow decay) when
// important enough and accessed, otherwise expired (soft: they stay as the audit trail).
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
SET m.wm_state = CASE WHEN keep THEN 'promoted' ELSE 'expired' END,
    m.decay_class = CASE WHEN keep AND m.decay_class <> 'none' THEN 'slow' ELSE m.decay_class END,
    m.expires_at = CASE WHEN keep OR m.expires_at <= $at THEN m.expires_at ELSE $at END,
    m.indexed = false
RETURN m.id AS id, keep AS promoted, m.decay_class AS decay_class
