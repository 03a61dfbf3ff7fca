"""The client's GraphQL documents: fixed text, every value passed as a variable. Each asks
for its field's result union with ``... on Error`` so expected failures come back typed."""

from __future__ import annotations

MEMORY = """
fragment MemoryFields on Memory {
  id type content importance pinned createdAt validFrom supersededAt current
  projectId userId sessionId entityIds supersededById supersedesId
}
"""

# The typed error members every result union here holds (``__typename`` picks the exception).
ERRORS = """
  ... on Error { __typename code message }
  ... on InvalidInputError { field }
"""

# For the results whose union holds ``NotFoundError`` (its ``id`` aliased: ``Memory.id`` is
# an ``ID``, this one a ``String``, and one selection cannot hold both).
NOT_FOUND = "... on NotFoundError { kind notFoundId: id }"

CLARIFICATION = "clarification { question mention descriptions }"

RECORD_TURN = f"""
mutation RecordTurn($input: RecordTurnInput!) {{
  recordTurn(input: $input) {{
    __typename
    ... on TurnResult {{
      episode {{ ...MemoryFields }}
      extracted {{ ...MemoryFields }}
      entities {{ id name type aliases }}
      supersededIds
      {CLARIFICATION}
    }}
    {ERRORS}
  }}
}}
{MEMORY}"""

ASSEMBLE_CONTEXT = f"""
query AssembleContext($input: AssembleContextInput!) {{
  assembleContext(input: $input) {{
    __typename
    ... on Context {{
      text totalTokens tokenBudget
      layers {{ procedural projectContext memories documentChunks recentConversation }}
      items {{ memory {{ ...MemoryFields }} layer score }}
      {CLARIFICATION}
    }}
    {ERRORS}
  }}
}}
{MEMORY}"""

SEARCH = f"""
query Search($input: SearchInput!) {{
  search(input: $input) {{
    __typename
    ... on SearchResults {{ hits {{ memory {{ ...MemoryFields }} score paths }} }}
    {ERRORS}
  }}
}}
{MEMORY}"""

REMEMBER = f"""
mutation Remember($input: RememberInput!) {{
  remember(input: $input) {{
    __typename
    ...MemoryFields
    {ERRORS}
  }}
}}
{MEMORY}"""

SUPERSEDE = f"""
mutation Supersede($id: ID!, $input: SupersedeInput!) {{
  supersede(id: $id, input: $input) {{
    __typename
    ...MemoryFields
    {ERRORS}
    {NOT_FOUND}
    ... on ConflictError {{ currentId }}
  }}
}}
{MEMORY}"""

FORGET = f"""
mutation Forget($id: ID!) {{
  forget(id: $id) {{
    __typename
    ...MemoryFields
    {ERRORS}
    {NOT_FOUND}
  }}
}}
{MEMORY}"""

CORE = f"""
query Core($userId: String) {{
  core(userId: $userId) {{
    __typename
    ... on MemoryList {{ memories {{ ...MemoryFields }} }}
    {ERRORS}
  }}
}}
{MEMORY}"""

LINEAGE = f"""
query Lineage($memoryId: ID!) {{
  lineage(memoryId: $memoryId) {{
    __typename
    ... on Lineage {{
      links {{ memory {{ ...MemoryFields }} reason replacedAt current }}
      current {{ ...MemoryFields }}
    }}
    {ERRORS}
    {NOT_FOUND}
  }}
}}
{MEMORY}"""

DOCUMENT_JOB_FIELDS = """
fragment DocumentJobFields on DocumentJob {
  id status progress chunksDone chunksTotal error
  result { documentId version unchanged superseded chunkCount }
}
"""

INGEST_DOCUMENT = f"""
mutation IngestDocument($input: IngestDocumentInput!) {{
  ingestDocument(input: $input) {{
    __typename
    ... on DocumentResult {{ documentId version unchanged superseded chunks {{ id }} }}
    ... on DocumentJob {{ ...DocumentJobFields }}
    {ERRORS}
  }}
}}
{DOCUMENT_JOB_FIELDS}"""

DOCUMENT_JOB = f"""
query DocumentJob($id: ID!) {{
  documentJob(id: $id) {{
    __typename
    ... on DocumentJob {{ ...DocumentJobFields }}
    {NOT_FOUND}
    {ERRORS}
  }}
}}
{DOCUMENT_JOB_FIELDS}"""

IDENTITY_QUESTIONS = f"""
query IdentityQuestions($first: Int!, $after: String) {{
  identityQuestions(first: $first, after: $after) {{
    __typename
    ... on IdentityQuestionConnection {{
      edges {{ node {{
        entity {{ id name type aliases }} description
        candidates {{ entity {{ id name type aliases }} description score proposed }}
      }} }}
      pageInfo {{ hasNextPage endCursor }}
    }}
    {ERRORS}
  }}
}}"""

CONFIRM_SAME = f"""
mutation ConfirmSame($entityId: ID!, $otherId: ID!, $reason: String) {{
  confirmSameEntity(entityId: $entityId, otherId: $otherId, reason: $reason) {{
    __typename
    ... on EntityMerge {{ id keepId dropIds reason }}
    {NOT_FOUND}
    ... on ConflictError {{ currentId }}
    {ERRORS}
  }}
}}"""

CONFIRM_DISTINCT = f"""
mutation ConfirmDistinct($entityId: ID!, $otherId: ID!, $reason: String) {{
  confirmDistinctEntities(entityId: $entityId, otherId: $otherId, reason: $reason) {{
    __typename
    ... on DistinctEntities {{ entityId otherId }}
    {NOT_FOUND}
    {ERRORS}
  }}
}}"""
