// After the answer "same" (a recorded merge of $drop into $keep): the POSSIBLY_SAME_AS links
// between them go, and the kept entity is no longer provisional when no question is left.
// params: $tenant, $keep, $drop
// returns: provisional (the kept entity's flag after the change)
MATCH (k:Entity {id: $keep, tenant_id: $tenant})
MATCH (d:Entity {id: $drop, tenant_id: $tenant})
OPTIONAL MATCH (k)-[l:POSSIBLY_SAME_AS]-(d)
DELETE l
WITH DISTINCT k
OPTIONAL MATCH (k)-[o:POSSIBLY_SAME_AS]->(:Entity)
WITH k, count(o) AS open
SET k.provisional = CASE WHEN open = 0 THEN false ELSE k.provisional END
RETURN k.provisional AS provisional
