// Data migration: memories an earlier prune hid for having faded (low importance after decay,
// not retrieved for a while) are visible again: age changes ranking, never visibility. Only
// those the prune hid (expiry = prune time, no carrying memory); forgotten ones stay
// forgotten. Unindexed for the start-up reconciliation. Idempotent; all tenants, once.
// params: none
// returns: changed
MATCH (m:Memory)
WHERE m.pruned_at IS NOT NULL AND m.carried_by IS NULL AND m.expires_at = m.pruned_at
SET m.expires_at = null, m.pruned_at = null, m.indexed = false
RETURN count(m) AS changed
