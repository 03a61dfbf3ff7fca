// A known task was said again: count it, and raise confidence and priority if higher.
// params: $tenant, $rows: [{id, confidence, priority, at}]
// returns: id
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.tenant_id = $tenant AND m.type = 'task'
SET m.task_mentions = coalesce(m.task_mentions, 1) + 1,
    m.task_confidence = CASE WHEN row.confidence > m.task_confidence
                             THEN row.confidence ELSE m.task_confidence END,
    m.task_priority = CASE WHEN row.priority = 'high' THEN 'high' ELSE m.task_priority END,
    m.task_updated_at = row.at
RETURN m.id AS id
