// Lifecycle job reports and feedback records, for export (audit trail).
// params: $tenant
// returns: label, props, ratings ([{memory_id, before, after}] for feedback)
MATCH (r:JobRun {tenant_id: $tenant})
RETURN 'JobRun' AS label, properties(r) AS props, [] AS ratings
UNION ALL
MATCH (f:Feedback {tenant_id: $tenant})
OPTIONAL MATCH (f)-[x:RATED]->(m:Memory)
RETURN 'Feedback' AS label, properties(f) AS props,
       collect({memory_id: m.id, before: x.before, after: x.after}) AS ratings
