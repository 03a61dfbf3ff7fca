// How many turns the session has, as the turn about to be written finds it under
// ingest_session_lock (0 for a session not written yet).
// params: $tenant, $session_id
// returns: turns
OPTIONAL MATCH (s:Session {sid: $session_id, tenant_id: $tenant})
RETURN coalesce(max(s.turn_count), 0) AS turns
