// Give the leader lock up (at shutdown) so another process can take it at once.
// params: $lock, $holder
// returns: name (no row when we did not hold it)
MATCH (l:LeaderLock {name: $lock})
WHERE l.holder = $holder
SET l.holder = null, l.expires_at = null
RETURN l.name AS name
