// Everything said about an entity: the memories about each entity named $name (by its name
// or an alias, in any case; several entities may share a name) or merged into one, oldest
// first, with whether each is still current and what replaced it if not.
// Times are Cypher datetimes (UTC); a null expires_at means "never".
// params: $tenant, $name
// returns: entity_id, entity, type, id, content, said_at, current, superseded_by
MATCH (e:Entity)
WHERE e.tenant_id = $tenant
  AND (toLower(e.name) = toLower($name)
       OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) = toLower($name)))
OPTIONAL MATCH (d:Entity)-[:MERGED_INTO]->(e)
WITH e, [e] + collect(d) AS family
UNWIND family AS x
MATCH (m:Memory)-[:ABOUT]->(x)
WHERE m.tenant_id = $tenant
RETURN e.id AS entity_id, e.name AS entity, m.type AS type, m.id AS id, m.content AS content,
       m.created_at AS said_at, m.superseded_by IS NULL AND m.expires_at IS NULL AS current,
       m.superseded_by AS superseded_by
ORDER BY e.id, m.created_at
