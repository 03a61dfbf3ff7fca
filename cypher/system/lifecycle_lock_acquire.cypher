// Take or renew the scheduler's leader lock: succeed when it is free, expired, or already ours.
// params: $lock, $holder, $now, $until
// returns: holder (no row when another live holder has it)
MERGE (l:LeaderLock {name: $lock})
WITH l
WHERE l.holder IS NULL OR l.holder = $holder OR l.expires_at < $now
SET l.holder = $holder, l.expires_at = $until
RETURN l.holder AS holder
