// Record automatic identity decisions of the write path, with their scores, so a wrong link
// can be found (by entity or by memory) and undone.
// params: $tenant, $rows [{id, mention, memory_id, entity_id, outcome, candidates,
//         scores, reasons, at}] (candidates, scores and reasons are parallel lists)
// returns: id
UNWIND $rows AS row
CREATE (d:IdentityDecision)
SET d = row, d.tenant_id = $tenant
RETURN d.id AS id
