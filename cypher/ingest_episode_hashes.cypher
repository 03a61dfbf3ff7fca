// Content hashes of the memories extracted from one turn (rule or LLM), for deduplication.
// params: $tenant, $session_id, $sources: [string]
// returns: content_hash
MATCH (m:Memory {session_id: $session_id})
WITH m
WHERE m.tenant_id = $tenant AND m.source IN $sources
RETURN m.content_hash AS content_hash
