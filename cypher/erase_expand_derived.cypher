// Memories extracted from these turns: rule and LLM extractions and core lines learned from
// a turn name their turn in `source` ("rule:<kind>:<episode id>", "llm:<kind>:<episode id>",
// "learned:<kind>:<episode id>") and share its session, so the
// lookup walks the erased turns' sessions (indexed), not the whole tenant.
// params: $tenant, $ids
// returns: id
UNWIND $ids AS id
MATCH (ep:Memory {id: id, tenant_id: $tenant})
WHERE ep.session_id IS NOT NULL
WITH ep.session_id AS sid, collect(ep.id) AS turns
MATCH (d:Memory {session_id: sid})
WHERE d.tenant_id = $tenant
  AND (d.source STARTS WITH 'rule:' OR d.source STARTS WITH 'llm:' OR d.source STARTS WITH 'learned:')
  AND last(split(d.source, ':')) IN turns
RETURN DISTINCT d.id AS id
