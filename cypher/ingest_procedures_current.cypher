// The tenant's current, live procedures (procedural memories stated in conversation, subject
// "procedures"), newest first: what a changed parameter ("the threshold is now 90%") may
// belong to. The subject index is matched first.
// params: $tenant, $subject, $at, $limit
// returns: m (memory properties)
MATCH (m:Memory {subject: $subject})
WITH m
WHERE m.tenant_id = $tenant AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
RETURN properties(m) AS m
ORDER BY m.created_at DESC
LIMIT $limit
