// Memories of the same session close in time to each seed (its neighbouring turns).
// (The tenant condition comes last: ArcadeDB then filters the session_id index hits instead
// of scanning the tenant_id index.)
// params: $tenant, $rows: [{seed, session_id, lo, hi}] (created_at window, inclusive)
// returns: seed, id, created_at
UNWIND $rows AS row
MATCH (n:Memory {session_id: row.session_id})
WHERE n.created_at >= row.lo AND n.created_at <= row.hi AND n.id <> row.seed
  AND n.tenant_id = $tenant
RETURN row.seed AS seed, n.id AS id, n.created_at AS created_at
