"""The entity graph over Bolt: schema, named Cypher, the embedded ArcadeDB launcher, the store."""
