// Add batched access counts and set the last access time (resets the decay clock).
// params: $tenant, $rows: [{id, n, at}]
// returns: updated (one row: the memories updated; no row per memory to decode)
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, tenant_id: $tenant})
SET m.access_count = coalesce(m.access_count, 0) + row.n,
    m.last_accessed_at = CASE WHEN m.last_accessed_at IS NULL OR m.last_accessed_at < row.at
                              THEN row.at ELSE m.last_accessed_at END
RETURN count(m) AS updated
