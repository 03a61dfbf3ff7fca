// Current, live preferences a user stated (subject "user:<id>"), for correction detection.
// The subject index is matched first (WITH): the cost depends on the user's preferences only,
// not on how many memories the user has (every turn they record carries their user_id).
// params: $tenant, $subject ("user:<id>"), $predicates: [string], $at
// returns: m (memory properties)
MATCH (m:Memory {subject: $subject})
WITH m
WHERE m.tenant_id = $tenant AND m.type = 'preference' AND m.predicate IN $predicates
  AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
RETURN properties(m) AS m
