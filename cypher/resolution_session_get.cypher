// The entity tracker state of one session of the tenant (a JSON string), if any. Shares the
// (:Session {sid, tenant_id}) node of the working memory; only the entity_tracker* properties.
// params: $tenant, $session_id
// returns: tracker, turn
MATCH (s:Session {sid: $session_id})
WHERE s.tenant_id = $tenant
RETURN s.entity_tracker AS tracker, s.entity_tracker_turn AS turn
