// GraphiQL served by the API from npm assets bundled at install time (no CDN). The key
// pasted once is kept for the tab's session and prefills the Authorization header of every
// example tab.
import React from "react";
import { createRoot } from "react-dom/client";
import { GraphiQL } from "graphiql";
import { createGraphiQLFetcher } from "@graphiql/toolkit";
import "graphiql/graphiql.css";
import { getKey, setKey, authHeaders } from "./key.js";
import { EXAMPLES } from "./examples.js";

const fetcher = createGraphiQLFetcher({ url: "/graphql" });

function headersText() {
  return JSON.stringify(authHeaders(), null, 2);
}

function KeyBar({ onChange }) {
  const [value, setValue] = React.useState(getKey());
  const save = (e) => {
    e.preventDefault();
    setKey(value);
    onChange();
  };
  return (
    <form className="keybar" onSubmit={save}>
      <label htmlFor="apikey">API key</label>
      <input id="apikey" type="password" value={value} placeholder="brn_… (kept for this tab only)"
        onChange={(e) => setValue(e.target.value)} />
      <button type="submit">Use key</button>
      <a href="/explore">Memory explorer →</a>
    </form>
  );
}

function App() {
  // A new key remounts GraphiQL so its tabs open with the new header.
  const [generation, setGeneration] = React.useState(0);
  const headers = headersText();
  const tabs = EXAMPLES.map((t) => ({ query: t.query, variables: t.variables, headers }));
  return (
    <div className="page">
      <KeyBar onChange={() => setGeneration((g) => g + 1)} />
      <div className="ide">
        <GraphiQL key={generation} fetcher={fetcher} defaultTabs={tabs} defaultHeaders={headers}
          headers={headers} shouldPersistHeaders={false} storage={sessionStorage} />
      </div>
    </div>
  );
}

createRoot(document.getElementById("root")).render(<App />);
