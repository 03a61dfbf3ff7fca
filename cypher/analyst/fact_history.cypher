// A fact's history: every version of the supersede chain that memory $id belongs to, oldest
// first, with why and when each was corrected, and whether it was forgotten.
// Times are Cypher datetimes (UTC); null superseded_at / expires_at means "never".
// params: $tenant, $id (any version of the fact)
// returns: id, content, created_at, valid_from, superseded_at, correction, current, forgotten
MATCH (m:Memory {id: $id})
WHERE m.tenant_id = $tenant
MATCH (v:Memory {chain_id: m.chain_id})
WHERE v.tenant_id = $tenant
OPTIONAL MATCH (v)-[r:SUPERSEDED_BY]->(:Memory)
RETURN v.id AS id, v.content AS content, v.created_at AS created_at, v.valid_from AS valid_from,
       v.superseded_at AS superseded_at, r.reason AS correction,
       v.superseded_by IS NULL AND v.expires_at IS NULL AS current,
       v.expires_at IS NOT NULL AS forgotten
ORDER BY v.created_at
