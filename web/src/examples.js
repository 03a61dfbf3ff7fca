// The example operations GraphiQL opens with, one tab each (API.md names); the first, a
// read, is the one open at first.
export const EXAMPLES = [
  {
    title: "search",
    query: `# Every hit says which paths found it and each scoring signal.
query Search {
  search(input: {query: "What does Peter do?", topK: 5}) {
    ... on SearchResults { hits { score paths memory { id content current } } metadata { latencyMs } }
    ... on Error { code message }
  }
}`,
  },
  {
    title: "recordTurn",
    query: `# Store a turn: extraction, entity linking and supersede on correction run inline.
mutation RecordTurn {
  recordTurn(input: {sessionId: "s1", userId: "u1", role: USER,
                     content: "Peter is a writer at WOBS."}) {
    ... on TurnResult { episode { id content } extracted { id type content } entities { id name } }
    ... on Error { code message }
  }
}`,
  },
  {
    title: "assembleContext",
    query: `# The token-budgeted context of the session's next model call.
query AssembleContext {
  assembleContext(input: {sessionId: "s1", userId: "u1", query: "What does Peter do?"}) {
    ... on Context { totalTokens items { layer score memory { content } } }
    ... on Error { code message }
  }
}`,
  },
  {
    title: "lineage",
    query: `# A supersede chain, oldest first (paste a memory id from search).
query Lineage($id: ID!) {
  lineage(memoryId: $id) {
    ... on Lineage { links { current reason memory { content createdAt } } }
    ... on Error { code message }
  }
}`,
    variables: `{"id": "paste-a-memory-id"}`,
  },
];
