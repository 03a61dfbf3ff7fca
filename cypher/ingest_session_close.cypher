// Close an open session explicitly; its working memory is empty from then on.
// params: $tenant, $session_id, $at
// returns: id (no row when the session is unknown)
MATCH (s:Session {sid: $session_id})
WHERE s.tenant_id = $tenant
SET s.closed_at = coalesce(s.closed_at, $at)
RETURN s.sid AS id
