// Revoke a key by id.
// params: $id, $at
// returns: id
MATCH (k:ApiKey {id: $id})
WHERE k.revoked_at IS NULL
SET k.revoked_at = $at
RETURN k.id AS id
