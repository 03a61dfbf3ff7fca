// A fact's history: every version of the supersede chain that memory $id belongs to, oldest
// first, with why and when each was corrected, and whether it was forgotten.
// Times are stored as epoch-second floats with 1e15 for "never", hence the datetime({epochMillis})
// conversions; they go away when the graph stores native temporal values.
// params: $tenant, $id (any version of the fact)
// returns: id, content, created_at, valid_from, superseded_at, correction, current, forgotten
MATCH (m:Memory {id: $id})
WHERE m.tenant_id = $tenant
MATCH (v:Memory {chain_id: m.chain_id})
WHERE v.tenant_id = $tenant
OPTIONAL MATCH (v)-[r:SUPERSEDED_BY]->(:Memory)
RETURN v.id AS id, v.content AS content,
       datetime({epochMillis: toInteger(v.created_at * 1000)}) AS created_at,
       datetime({epochMillis: toInteger(v.valid_from * 1000)}) AS valid_from,
       CASE WHEN v.superseded_at < 1e15
            THEN datetime({epochMillis: toInteger(v.superseded_at * 1000)}) END AS superseded_at,
       r.reason AS correction,
       v.superseded_by IS NULL AND v.expires_at >= 1e15 AS current,
       v.expires_at < 1e15 AS forgotten
ORDER BY v.created_at
