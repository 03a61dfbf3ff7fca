// The key record for a key hash, if not revoked.
// params: $hash
// returns: id, tenant_id, admin
MATCH (k:ApiKey {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN k.id AS id, k.tenant_id AS tenant_id, k.admin AS admin
