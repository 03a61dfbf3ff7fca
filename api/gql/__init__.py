"""The GraphQL layer: types, inputs, resolvers (thin: they call the facade) and the schema."""
