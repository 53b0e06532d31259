// Run OpenClaw's `memory index --force` and `memory search --json` for many agents and queries
// in ONE Node process (each CLI start costs ~10 s of module loading).
//
//   node --import ./freeze_clock.mjs openclaw_batch.mjs JOB.json OUT.json
//
// JOB: {"openclaw": "<folder holding node_modules/openclaw>", "force": true,
//       "maxResults": 50, "minScore": -1, "alsoMaxResults": [1, 10],
//       "agents": [{"id": "notes", "queries": ["q1", "q2"]}]}
// OUT: {"agents": {"<id>": {"index": {"stdout", "stderr"},
//        "queries": [{"query", "json" | null, "stdout", "stderr", "exitCode",
//                     "alsoMaxResults": {"1": json, "10": json}}]}}}
//
// It calls the very functions the `openclaw memory index` / `memory search` commands call
// (extensions/memory-core/src/cli.runtime.ts: runMemoryIndex, runMemorySearch) with the
// options commander would pass them, and captures what they print. `alsoMaxResults` (optional)
// repeats every search with those --max-results values (the 2026.9 "top-1 does not depend on
// maxResults" check).
//
// OpenClaw 2026.9 needs one piece of plugin wiring the CLI does when it registers memory-core
// (extensions/memory-core/index.ts `register(api)`): the dreaming state store, which search and
// index write to. The batch wires it the same way, to the plugin-state store
// (`createPluginStateKeyedStore("memory-core", options)`), found by function name in dist/.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [jobPath, outPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const runtimeUrl = pathToFileURL(
  path.join(job.openclaw, "node_modules", "openclaw", "dist", "cli.runtime.js"),
).href;
const cli = await import(runtimeUrl);

// `export { fnName as x }` of a bundled chunk in dist/ that defines `function fnName(`.
async function findExports(dist, fnName) {
  const found = [];
  for (const name of readdirSync(dist)) {
    if (!name.endsWith(".mjs")) continue;
    const text = readFileSync(path.join(dist, name), "utf8");
    if (!text.includes(`function ${fnName}(`)) continue;
    const alias = text.match(new RegExp(`\\b${fnName} as (\\w+)`))?.[1];
    if (!alias) continue;
    const mod = await import(pathToFileURL(path.join(dist, name)).href);
    if (typeof mod[alias] === "function") found.push(mod[alias]);
  }
  return found;
}

const dist = path.join(job.openclaw, "node_modules", "openclaw", "dist");
const configureDreaming = await findExports(dist, "configureMemoryCoreDreamingState");
if (configureDreaming.length > 0) {
  const [openStore] = await findExports(dist, "createPluginStateKeyedStore");
  if (!openStore) throw new Error("OpenClaw has configureMemoryCoreDreamingState but no createPluginStateKeyedStore");
  const openKeyedStore = (options) => openStore("memory-core", options);
  for (const configure of configureDreaming) configure(openKeyedStore);
}

async function capture(fn) {
  const out = [];
  const err = [];
  const realOut = process.stdout.write.bind(process.stdout);
  const realErr = process.stderr.write.bind(process.stderr);
  const before = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = (chunk, ...rest) => {
    out.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const cb = rest.find((r) => typeof r === "function");
    if (cb) cb();
    return true;
  };
  process.stderr.write = (chunk, ...rest) => {
    err.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const cb = rest.find((r) => typeof r === "function");
    if (cb) cb();
    return true;
  };
  let thrown = null;
  try {
    await fn();
  } catch (e) {
    thrown = e;
  } finally {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
  }
  const exitCode = process.exitCode ?? 0;
  process.exitCode = before;
  if (thrown) err.push(`uncaught: ${thrown?.stack ?? thrown}\n`);
  return { stdout: out.join(""), stderr: err.join(""), exitCode: thrown ? 1 : exitCode };
}

const result = { agents: {} };
for (const agent of job.agents) {
  const entry = { index: null, queries: [] };
  result.agents[agent.id] = entry;
  entry.index = await capture(() =>
    cli.runMemoryIndex({ agent: agent.id, force: Boolean(job.force ?? true) }),
  );
  const search = async (query, maxResults) => {
    const run = await capture(() =>
      cli.runMemorySearch(query, {
        agent: agent.id,
        json: true,
        maxResults,
        minScore: job.minScore,
      }),
    );
    let json = null;
    try {
      json = JSON.parse(run.stdout);
    } catch {
      json = null;
    }
    return { json, ...run };
  };
  for (const query of agent.queries) {
    const run = await search(query, job.maxResults);
    const also = {};
    for (const n of job.alsoMaxResults ?? []) also[String(n)] = (await search(query, n)).json;
    entry.queries.push({ query, ...run, ...(job.alsoMaxResults ? { alsoMaxResults: also } : {}) });
  }
}
writeFileSync(outPath, JSON.stringify(result));
process.exit(0);
