// When each job last started a run that finished, for the scheduler's "is it due" check.
// params: $tenant
// returns: job, at
MATCH (r:JobRun {tenant_id: $tenant})
WHERE r.status = 'done'
RETURN r.job AS job, max(r.started_at) AS at
