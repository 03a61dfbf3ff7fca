// Make the chunks of a large document live: they were written hidden (expires_at in the
// past), batch by batch, so that searches never saw half a version; this statement runs in
// the version's last transaction with the supersede of the old chunks and the document save.
// Marked unindexed until their vector payloads say the same.
// params: $tenant, $ids
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
SET m.expires_at = null, m.indexed = false
RETURN m.id AS id
