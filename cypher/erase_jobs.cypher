// Queued jobs whose payload (JSON text) names an erased memory or entity.
// params: $tenant, $ids (erased memory and entity ids)
// returns: jobs (how many were deleted)
MATCH (j:Job {tenant_id: $tenant})
WHERE any(x IN $ids WHERE j.payload CONTAINS x)
DELETE j
RETURN count(*) AS jobs
