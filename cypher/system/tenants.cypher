// Every tenant (system: used by the reconciler and admin tools).
// params: none
// returns: id
MATCH (t:Tenant)
RETURN t.id AS id
ORDER BY id
