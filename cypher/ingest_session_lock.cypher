// Take the session for a turn: write the session node, or the tenant node while the session
// has none yet (a fresh value each time), so that turns of one session take turns across
// processes: on Neo4j the second waits for the first's lock; on ArcadeDB it fails at commit
// and the driver runs it again. ingest_session_turns then reads the session under the lock.
// Runs first in a turn's transaction.
// params: $tenant, $session_id, $claim (a fresh id), $at
// returns: session_id
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $at
WITH t
OPTIONAL MATCH (s:Session {sid: $session_id, tenant_id: $tenant})
FOREACH (x IN CASE WHEN s IS NULL THEN [t] ELSE [] END | SET x.session_claim = $claim)
FOREACH (x IN CASE WHEN s IS NULL THEN [] ELSE [s] END | SET x.claim = $claim)
RETURN $session_id AS session_id
