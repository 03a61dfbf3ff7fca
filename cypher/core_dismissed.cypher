// Which of the given learned core keys someone removed from core (unpinCore): a statement
// said again with one of them is not pinned again. The index on core_dismissed (absent on
// memories never removed) finds the few removed ones; the tenant filter keeps this tenant's.
// params: $tenant, $keys: [key]
// returns: key
UNWIND $keys AS key
MATCH (m:Memory {core_dismissed: key})
WHERE m.tenant_id = $tenant
RETURN DISTINCT key
