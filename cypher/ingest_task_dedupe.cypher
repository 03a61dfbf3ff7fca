// New tasks of this write that another writer created as well since this one read the
// tenant's tasks (another API replica: one process already orders its own writes by task
// key): each is folded into the older task, counted there as said again, and deleted. The
// tenant node is written first with a fresh value, so two transactions creating tasks in one
// tenant take turns: on Neo4j the second waits for the first's lock and then reads its task;
// on ArcadeDB it fails at commit on the tenant node and the driver runs it again.
// Runs after ingest_memories_create, in the same transaction.
// params: $tenant, $claim (a fresh id), $rows: [{id, key, confidence, priority, at}]
// returns: id (a new task folded away), into (the task it was folded into)
MATCH (t:Tenant {id: $tenant})
SET t.task_claim = $claim
WITH t
UNWIND $rows AS row
MATCH (other:Memory {task_key: row.key})
WHERE other.tenant_id = $tenant AND other.type = 'task' AND other.id <> row.id
WITH row, other
ORDER BY other.created_at, other.id
WITH row, collect(other)[0] AS into
MATCH (mine:Memory {id: row.id})
WHERE mine.tenant_id = $tenant
SET into.task_mentions = coalesce(into.task_mentions, 1) + 1,
    into.task_confidence = CASE WHEN row.confidence > into.task_confidence
                                THEN row.confidence ELSE into.task_confidence END,
    into.task_priority = CASE WHEN row.priority = 'high' THEN 'high' ELSE into.task_priority END,
    into.task_updated_at = row.at
DETACH DELETE mine
RETURN row.id AS id, into.id AS into
