// Every recorded entity merge of the tenant, for export.
// params: $tenant
// returns: mg
MATCH (mg:EntityMerge {tenant_id: $tenant})
RETURN properties(mg) AS mg
ORDER BY mg.at
