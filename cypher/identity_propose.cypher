// The identity proposals of a batch: each open question's POSSIBLY_SAME_AS link gets the
// similarity of the two entities' current profiles as its score, and `proposed` when the
// profiles have converged on that one candidate (a curator confirms; nothing is merged here).
// params: $tenant, $rows [{id (provisional entity), candidate, score, proposed}], $at
// returns: updated (links written)
UNWIND $rows AS row
MATCH (p:Entity {id: row.id, tenant_id: $tenant})-[l:POSSIBLY_SAME_AS]->(c:Entity {id: row.candidate, tenant_id: $tenant})
SET l.score = row.score, l.proposed = row.proposed, l.proposed_at = CASE WHEN row.proposed THEN $at END
RETURN count(l) AS updated
