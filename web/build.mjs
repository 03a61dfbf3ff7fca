// Bundle the two pages into dist/ (served by `brain serve`): dist/*.html and dist/assets/.
// Run by `make install` through `npm run build`; nothing is loaded from the internet later.
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
mkdirSync("dist/assets", { recursive: true });
await build({
  entryPoints: { graphiql: "src/graphiql.jsx", explore: "src/explore/main.js" },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "iife",
  target: "es2020",
  outdir: "dist/assets",
  loader: { ".js": "jsx", ".woff2": "file", ".woff": "file", ".ttf": "file" },
  define: { "process.env.NODE_ENV": '"production"' },
  jsx: "automatic",
  logLevel: "warning",
});
for (const page of ["graphiql.html", "explore.html"]) cpSync(`src/${page}`, `dist/${page}`);
writeFileSync("dist/.built", new Date().toISOString() + "\n");
