// After a turn: the identity decisions its names were resolved by (with their scores, so a
// wrong link can be found and undone: identity_decisions_save's rows), the session's record
// (working-memory window, counters, expiry, entity tracker) and the turn's deferred jobs, in
// one statement (each statement is a round trip, and the driver's work for it on the event
// loop).
// params: $tenant, $session_id, $props (session properties), $decisions: [{id, mention,
//         memory_id, entity_id, outcome, candidates, scores, reasons, at}] (may be empty),
//         $jobs: [{id, kind, payload (JSON text), status, attempts, created_at, updated_at}]
// returns: id (one row per job)
FOREACH (row IN $decisions | CREATE (d:IdentityDecision) SET d = row, d.tenant_id = $tenant)
MERGE (s:Session {sid: $session_id, tenant_id: $tenant})
SET s += $props
WITH s
UNWIND $jobs AS row
CREATE (j:Job)
SET j = row, j.tenant_id = $tenant
RETURN j.id AS id
