// Run OpenClaw's `memory index --force` and `memory search --json` for many agents and queries
// in ONE Node process (each CLI start costs ~10 s of module loading).
//
//   node --import ./freeze_clock.mjs openclaw_batch.mjs JOB.json OUT.json
//
// JOB: {"openclaw": "<folder holding node_modules/openclaw>", "force": true,
//       "maxResults": 50, "minScore": -1,
//       "agents": [{"id": "notes", "queries": ["q1", "q2"]}]}
// OUT: {"agents": {"<id>": {"index": {"stdout", "stderr"},
//        "queries": [{"query", "json" | null, "stdout", "stderr", "exitCode"}]}}}
//
// It calls the very functions the `openclaw memory index` / `memory search` commands call
// (extensions/memory-core/src/cli.runtime.ts: runMemoryIndex, runMemorySearch) with the
// options commander would pass them, and captures what they print.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [jobPath, outPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, "utf8"));
const runtimeUrl = pathToFileURL(
  path.join(job.openclaw, "node_modules", "openclaw", "dist", "cli.runtime.js"),
).href;
const cli = await import(runtimeUrl);

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
  for (const query of agent.queries) {
    const run = await capture(() =>
      cli.runMemorySearch(query, {
        agent: agent.id,
        json: true,
        maxResults: job.maxResults,
        minScore: job.minScore,
      }),
    );
    let json = null;
    try {
      json = JSON.parse(run.stdout);
    } catch {
      json = null;
    }
    entry.queries.push({ query, json, ...run });
  }
}
writeFileSync(outPath, JSON.stringify(result));
process.exit(0);
