// What was true on a date: the statements (facts, preferences, procedures, tasks, patterns;
// not the turns themselves or document chunks) valid at instant $at and not yet superseded or
// forgotten then; with $entity (a name), only those about an entity of that name.
// Times are Cypher datetimes (UTC); null superseded_at / expires_at means "never".
// params: $tenant, $at (ISO-8601 text such as '2024-03-01T00:00:00Z', or a datetime:
//         `:param at => datetime('2024-03-01T00:00:00Z')`), $entity (a name, or null for all)
// returns: id, type, content, valid_from, about
WITH datetime(toString($at)) AS t  // text or datetime alike
MATCH (m:Memory)
WHERE m.tenant_id = $tenant AND m.valid_from <= t
  AND (m.superseded_at IS NULL OR t < m.superseded_at)
  AND (m.expires_at IS NULL OR t < m.expires_at)
  AND NOT m.type IN ['episodic', 'working', 'document']
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH m, collect(e.name) AS about
WHERE $entity IS NULL OR any(name IN about WHERE toLower(name) = toLower($entity))
RETURN m.id AS id, m.type AS type, m.content AS content, m.valid_from AS valid_from, about
ORDER BY m.valid_from
