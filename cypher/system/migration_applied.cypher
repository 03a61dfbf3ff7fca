// Whether a data migration was applied to this database.
// params: $migration
// returns: name (no row when it was not)
MATCH (g:Migration {name: $migration})
RETURN g.name AS name
