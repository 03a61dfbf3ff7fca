// Data migration: episodes an earlier compression hid behind their pattern are current again
// (the pattern keeps its SUMMARIZES links and each episode its summarized_by). Episodes also
// hidden for another reason (a merge) stay as they are. Unindexed for the start-up
// reconciliation. Idempotent; all tenants, once.
// params: none
// returns: changed
MATCH (m:Memory)
WHERE m.summarized_by IS NOT NULL AND m.superseded_by = m.summarized_by
  AND m.merged_into IS NULL
SET m.superseded_by = null, m.superseded_at = null, m.indexed = false
RETURN count(m) AS changed
