// Current, live facts about subjects with given predicates (correction detection). The
// subject index is matched first (WITH): the cost depends on the subject's facts only, not on
// the tenant's memory count or on how many memories mention the entity.
// params: $tenant, $keys: [{subject, predicate}], $at
// returns: m (memory properties)
UNWIND $keys AS k
MATCH (m:Memory {subject: k.subject})
WITH m, k
WHERE m.tenant_id = $tenant AND m.predicate = k.predicate
  AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
RETURN DISTINCT properties(m) AS m
