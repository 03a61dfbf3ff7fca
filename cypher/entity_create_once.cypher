// Create an entity for a name, unless the name already names one: the write side of "a new
// name met in several sessions at once becomes one entity", across API replicas too. The
// name's alias node is written before the check, so two transactions creating the same name
// at once cannot both find none: on Neo4j the second waits for the first's lock; on ArcadeDB
// it fails at commit (on the alias key's constraint, or on the alias node's new version) and
// the driver runs it again. The write must change a value: ArcadeDB skips a record whose
// properties end as they began (a property set and removed again), and then nothing
// conflicts. So the alias node keeps ``claim``, the id the latest check proposed.
// The name names one entity when exactly one entity has it (of $type when some have that
// type; merges followed), as resolution decides.
// The tenant is registered on its first write (the reconciler and jobs iterate over tenants),
// and the entity comes back, so the caller needs no second round trip to read it.
// params: $tenant, $row (the new entity's properties), $alias {key, norm, text},
//         $type (a type value, or null: any type)
// returns: e (the properties of the entity found or created), created
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $row.first_seen
WITH t
MERGE (al:Alias {key: $alias.key})
ON CREATE SET al.tenant_id = $tenant, al.norm = $alias.norm, al.text = $alias.text
SET al.claim = $row.id
WITH al
OPTIONAL MATCH (al)-[:ALIAS_OF]->(e:Entity)
WHERE e.tenant_id = $tenant
OPTIONAL MATCH (k:Entity {id: e.merged_into})
WHERE k.tenant_id = $tenant
WITH al, collect(DISTINCT coalesce(k, e)) AS known
WITH al, known, [x IN known WHERE x.type = $type] AS agreeing
WITH al, CASE WHEN size(agreeing) > 0 THEN agreeing ELSE known END AS same
WITH al, same, size(same) = 1 AS found
FOREACH (x IN CASE WHEN found THEN [] ELSE [al] END |
  CREATE (n:Entity)
  SET n = $row, n.tenant_id = $tenant
  CREATE (x)-[:ALIAS_OF]->(n))
WITH CASE WHEN found THEN same[0].id ELSE $row.id END AS id, found
MATCH (e:Entity {id: id, tenant_id: $tenant})
RETURN properties(e) AS e, NOT found AS created
