// A session's working-memory record.
// params: $tenant, $session_id
// returns: s (session properties)
MATCH (s:Session {sid: $session_id})
WHERE s.tenant_id = $tenant
RETURN properties(s) AS s
