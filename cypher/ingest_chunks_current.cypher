// The still-current chunks among a document version's chunk ids, with their section heading.
// params: $tenant, $ids: [string]
// returns: id, heading
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant_id = $tenant AND m.superseded_by IS NULL
RETURN m.id AS id, m.chunk_heading AS heading
