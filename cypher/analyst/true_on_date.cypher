// What was true on a date: the statements (facts, preferences, procedures, tasks, patterns;
// not the turns themselves or document chunks) valid at instant $at and not yet superseded or
// forgotten then; with $entity (a name), only those about an entity of that name.
// $at is an ISO-8601 string; times are stored as epoch-second floats (1e15: "never"), so it is
// converted once; that goes away when the graph stores native temporal values.
// params: $tenant, $at (e.g. '2024-03-01T00:00:00Z'), $entity (a name, or null for all)
// returns: id, type, content, valid_from, about
WITH datetime($at).epochMillis / 1000.0 AS t
MATCH (m:Memory)
WHERE m.tenant_id = $tenant AND m.valid_from <= t AND t < m.superseded_at AND t < m.expires_at
  AND NOT m.type IN ['episodic', 'working', 'document']
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH m, collect(e.name) AS about
WHERE $entity IS NULL OR any(name IN about WHERE toLower(name) = toLower($entity))
RETURN m.id AS id, m.type AS type, m.content AS content,
       datetime({epochMillis: toInteger(m.valid_from * 1000)}) AS valid_from, about
ORDER BY m.valid_from
