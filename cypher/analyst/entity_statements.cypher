// Everything said about an entity: the memories about each entity named $name (by its name,
// an alias, or the first word of either: "Peter" finds Peter Novak; in any case) or merged
// into one, oldest first, with whether each is still current and what replaced it if not.
// Several entities may answer to the name: each is listed with its own id (the namesakes).
// Times are Cypher datetimes (UTC); a null expires_at means "never".
// params: $tenant, $name
// returns: entity_id, entity, type, id, content, said_at, current, superseded_by
MATCH (e:Entity)
WHERE e.tenant_id = $tenant
  AND any(n IN [e.name] + coalesce(e.aliases, [])
          WHERE toLower(n) = toLower($name) OR toLower(n) STARTS WITH toLower($name) + ' ')
OPTIONAL MATCH (d:Entity)-[:MERGED_INTO]->(e)
WITH e, [e] + collect(d) AS family
UNWIND family AS x
MATCH (m:Memory)-[:ABOUT]->(x)
WHERE m.tenant_id = $tenant
RETURN e.id AS entity_id, e.name AS entity, m.type AS type, m.id AS id, m.content AS content,
       m.created_at AS said_at, m.superseded_by IS NULL AND m.expires_at IS NULL AS current,
       m.superseded_by AS superseded_by
ORDER BY e.id, m.created_at
