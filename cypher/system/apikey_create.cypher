// Store an API key by its hash (the key itself is shown once and never stored).
// params: $row {id, hash, tenant_id, name, admin, created_at}
// returns: id
CREATE (k:ApiKey)
SET k = $row
RETURN k.id AS id
