// Store the entity tracker state of a session (its Session node is created on first use).
// params: $tenant, $session_id, $tracker (JSON string), $turn, $at
// returns: id
MERGE (s:Session {sid: $session_id, tenant_id: $tenant})
SET s.entity_tracker = $tracker, s.entity_tracker_turn = $turn, s.entity_tracker_at = $at
RETURN s.sid AS id
