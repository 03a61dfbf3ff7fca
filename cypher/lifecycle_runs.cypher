// Job run reports, newest first, keyset-paginated on (started_at, id); optional job / status.
// params: $tenant, $job (or null), $status (or null), $before_at (or null), $before_id, $limit
// returns: r (node properties)
MATCH (r:JobRun {tenant_id: $tenant})
WHERE ($job IS NULL OR r.job = $job)
  AND ($status IS NULL OR r.status = $status)
  AND ($before_at IS NULL OR r.started_at < $before_at
       OR (r.started_at = $before_at AND r.id < $before_id))
RETURN properties(r) AS r
ORDER BY r.started_at DESC, r.id DESC
LIMIT $limit
