// Record a data migration as applied.
// params: $migration, $at, $changed (how many nodes it changed)
// returns: name
MERGE (g:Migration {name: $migration})
ON CREATE SET g.applied_at = $at, g.changed = $changed
RETURN g.name AS name
