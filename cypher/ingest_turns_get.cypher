// The episodic records of turns by memory id (working-memory hydration, one round trip).
// params: $tenant, $ids: [string]
// returns: m (memory properties, including turn_role, turn_speaker, turn_index)
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant_id = $tenant
RETURN properties(m) AS m
