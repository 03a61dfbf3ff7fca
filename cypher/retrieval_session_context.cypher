// A session as the read side needs it, in one round trip: its properties (working-memory
// window, expiry, entity tracker) and the memories of its window with their entities.
// One row per window id (m null for a missing memory), or one row with m null when the
// window is empty; no row for an unknown session.
// params: $tenant, $session_id
// returns: s (session properties), m (memory properties or null), entity_ids
MATCH (s:Session {sid: $session_id})
WHERE s.tenant_id = $tenant
UNWIND CASE WHEN size(coalesce(s.window, [])) = 0 THEN [null] ELSE s.window END AS wid
OPTIONAL MATCH (m:Memory {id: wid})
WHERE m.tenant_id = $tenant
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH s, wid, m, collect(DISTINCT e.id) AS entity_ids
RETURN properties(s) AS s, properties(m) AS m, entity_ids
