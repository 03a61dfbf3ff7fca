// Drop job reports older than the retention (the scheduler keeps the history bounded).
// params: $tenant, $started_before, $limit
// returns: removed
MATCH (r:JobRun {tenant_id: $tenant})
WHERE r.started_at < $started_before AND r.status <> 'running'
WITH r LIMIT $limit
DETACH DELETE r
RETURN count(*) AS removed
