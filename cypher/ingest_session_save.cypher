// Create or update a session's working-memory record (window, counters, expiry, tracker).
// params: $tenant, $session_id, $props (session properties)
// returns: id
MERGE (s:Session {sid: $session_id, tenant_id: $tenant})
SET s += $props
RETURN s.sid AS id
