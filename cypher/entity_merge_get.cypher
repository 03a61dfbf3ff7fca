// A recorded entity merge.
// params: $tenant, $id
// returns: mg (merge properties)
MATCH (mg:EntityMerge {id: $id, tenant_id: $tenant})
RETURN properties(mg) AS mg
