// The answer "different": the two entities get a DISTINCT_FROM link (never asked again), the
// POSSIBLY_SAME_AS links between them go, and an entity left with no open question is no
// longer provisional.
// params: $tenant, $a, $b, $reason, $at
// returns: a_provisional, b_provisional (after the change); no row when either is missing
MATCH (a:Entity {id: $a, tenant_id: $tenant})
MATCH (b:Entity {id: $b, tenant_id: $tenant})
OPTIONAL MATCH (a)-[l:POSSIBLY_SAME_AS]-(b)
DELETE l
WITH DISTINCT a, b
MERGE (a)-[d:DISTINCT_FROM]->(b)
SET d.reason = $reason, d.at = $at
WITH a, b
OPTIONAL MATCH (a)-[la:POSSIBLY_SAME_AS]->(:Entity)
WITH a, b, count(la) AS open_a
OPTIONAL MATCH (b)-[lb:POSSIBLY_SAME_AS]->(:Entity)
WITH a, b, open_a, count(lb) AS open_b
SET a.provisional = CASE WHEN open_a = 0 THEN false ELSE a.provisional END,
    b.provisional = CASE WHEN open_b = 0 THEN false ELSE b.provisional END
RETURN a.provisional AS a_provisional, b.provisional AS b_provisional
