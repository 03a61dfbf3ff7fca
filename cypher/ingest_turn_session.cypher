// After a turn: create or update the session's record (working-memory window, counters,
// expiry, entity tracker) and persist the turn's deferred jobs, in one statement.
// params: $tenant, $session_id, $props (session properties), $jobs: [{id, kind, payload
//         (JSON text), status, attempts, created_at, updated_at}]
// returns: id (one row per job)
MERGE (s:Session {sid: $session_id, tenant_id: $tenant})
SET s += $props
WITH s
UNWIND $jobs AS row
CREATE (j:Job)
SET j = row, j.tenant_id = $tenant
RETURN j.id AS id
