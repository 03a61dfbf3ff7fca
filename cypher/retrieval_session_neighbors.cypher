// Each seed's neighbouring turns: the nearest earlier and the nearest later memory of its
// session within [lo, hi] around its creation time $rows.at (one row per seed that has any;
// a busy session's window can hold hundreds of turns, so the pick happens here, not in the
// client). Ties keep the first found.
// (The tenant condition comes last: ArcadeDB then filters the session_id index hits instead
// of scanning the tenant_id index.)
// params: $tenant, $rows: [{seed, session_id, at, lo, hi}] (created_at, window inclusive)
// returns: seed, before (id or null), after (id or null)
UNWIND $rows AS row
MATCH (n:Memory {session_id: row.session_id})
WHERE n.created_at >= row.lo AND n.created_at <= row.hi AND n.id <> row.seed
  AND n.tenant_id = $tenant
WITH row.seed AS seed,
     max(CASE WHEN n.created_at < row.at THEN n.created_at END) AS before_at,
     min(CASE WHEN n.created_at > row.at THEN n.created_at END) AS after_at,
     collect({id: n.id, at: n.created_at}) AS found
RETURN seed,
       [x IN found WHERE x.at = before_at | x.id][0] AS before,
       [x IN found WHERE x.at = after_at | x.id][0] AS after
