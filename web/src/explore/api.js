// The GraphQL the explorer sends; every request carries the session's key.
import { gql, KeyRefused } from "../key.js";

// The view as columns (api/gql/viz.py): a few lists instead of thousands of objects.
const COLUMNS = `memoryIds typeNames types positions laidOut importance validFrom supersededAt
  expiresAt createdAt halfLifeDays labels sessionNames sessions projectNames projects
  memoryEntities entityIds entityNames entityTypes entityProvisional relationNames links
  linkWeights entityLinks`;

export { KeyRefused };

function unwrap(result, typename) {
  if (result.__typename === "ForbiddenError") throw new KeyRefused(result.message);
  if (result.__typename !== typename) throw new Error(result.message || result.__typename);
  return result;
}

// Every version of the tenant's memories (at most `limit`), for client-side scrubbing.
export async function loadHistory(limit) {
  const data = await gql(
    `query Explore($limit: Int!) { vizGraph(history: true, limit: $limit, about: false) { __typename
      ... on VizGraph { total sampled columns { ${COLUMNS} } }
      ... on Error { message } } }`,
    { limit },
  );
  return unwrap(data.vizGraph, "VizGraph");
}

// What the server says was current at `at` (ids only): the scrubber's check.
export async function currentAt(at, limit) {
  const data = await gql(
    `query AsOf($at: DateTime!, $limit: Int!) { vizGraph(asOf: $at, limit: $limit, about: false) { __typename
      ... on VizGraph { total columns { memoryIds } } ... on Error { message } } }`,
    { at: new Date(at).toISOString(), limit },
  );
  return unwrap(data.vizGraph, "VizGraph");
}

export async function search(query) {
  const data = await gql(
    `query Find($q: String!) { search(input: {query: $q, topK: 20}) { __typename
      ... on SearchResults { hits { score paths memory { id content } } } ... on Error { message } } }`,
    { q: query },
  );
  return unwrap(data.search, "SearchResults").hits;
}

export async function lineage(id) {
  const data = await gql(
    `query Lin($id: ID!) { lineage(memoryId: $id) { __typename
      ... on Lineage { links { current reason replacedAt memory { id content createdAt } } }
      ... on Error { message } } }`,
    { id },
  );
  return unwrap(data.lineage, "Lineage").links;
}

export async function entity(id) {
  const data = await gql(
    `query Ent($id: ID!) {
      entity(id: $id) { __typename ... on Entity { id name type aliases profileSummary mergedIntoId
        firstSeen lastSeen provisional } ... on Error { message } }
      relationships(entityId: $id) { __typename ... on RelationshipList { relationships {
        sourceId targetId relation since until } } ... on Error { message } }
      entityLineage(entityId: $id) { __typename ... on EntityLineage { chains { links {
        current reason memory { id content } } } } ... on Error { message } } }`,
    { id },
  );
  return {
    entity: unwrap(data.entity, "Entity"),
    relations: unwrap(data.relationships, "RelationshipList").relationships,
    chains: unwrap(data.entityLineage, "EntityLineage").chains,
  };
}

export async function entities(ids) {
  // Names of neighbours met by expanding (not in the current view).
  const parts = ids.map((id, i) => `e${i}: entity(id: ${JSON.stringify(id)}) {
    ... on Entity { id name type } }`);
  if (!parts.length) return [];
  const data = await gql(`query Names { ${parts.join("\n")} }`);
  return Object.values(data).filter((e) => e && e.id);
}

// Open identity questions (provisional entities and the known entities they may be), up to
// `pages` pages: the entity graph draws them.
export async function identityQuestions(pages = 5) {
  const out = [];
  let after = null;
  for (let k = 0; k < pages; k++) {
    const data = await gql(
      `query Questions($after: String) { identityQuestions(first: 100, after: $after) { __typename
        ... on IdentityQuestionConnection { edges { node { description
          entity { id name type provisional }
          candidates { score proposed description entity { id name type } } } }
          pageInfo { hasNextPage endCursor } }
        ... on Error { message } } }`,
      { after },
    );
    const page = unwrap(data.identityQuestions, "IdentityQuestionConnection");
    out.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  return out;
}
