// The version of a document path as the write about to replace it finds it, read after a
// write to the tenant node (a fresh value each time): writes of one tenant's documents take
// turns across processes (on Neo4j the second waits for the first's lock; on ArcadeDB it
// fails at commit and the driver runs it again), so a write planned against an older version
// finds the newer one, and the ingester gives up the transaction and plans again. Runs first
// in a document's transaction.
// params: $tenant, $source_path, $claim (a fresh id), $at
// returns: version (0 when the path has no document yet)
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $at
SET t.doc_claim = $claim
WITH t
OPTIONAL MATCH (d:Document {source_path: $source_path})
WHERE d.tenant_id = $tenant
RETURN coalesce(max(d.version), 0) AS version
