// Every key record (never the key): id, tenant, name, created, revoked.
// params: none
// returns: id, tenant_id, name, admin, created_at, revoked_at
MATCH (k:ApiKey)
RETURN k.id AS id, k.tenant_id AS tenant_id, k.name AS name, k.admin AS admin,
       k.created_at AS created_at, k.revoked_at AS revoked_at
ORDER BY created_at
