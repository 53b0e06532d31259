// Golden values from OpenClaw 2026.9.6's own code, for memlab's unit tests (no Node needed there).
//
//   node parity/golden_tiered.mjs <folder holding node_modules/openclaw> CASES.json OUT.json
//
// CASES.json (parity/golden_tiered_cases.json) lists small inputs per function; OUT.json gets
// {"openclaw": "<version>", "<group>": [{...case, "expected": <what OpenClaw returns>}]}.
//
// How OpenClaw's functions are reached: exported ones are imported from their bundled chunk
// (found by `function NAME(` in dist/*.mjs and the chunk's `export { NAME as x }`); the pure
// ranking helpers of extensions/memory-core/src/memory/{importance,mmr,project-ranking,
// temporal-decay,hybrid}.ts and the keyword-score helpers of manager-search.ts are not
// exported, so their `//#region` blocks are cut verbatim from the bundle and evaluated with the
// bundle's own imports bound to the same names (`new Function`). Nothing is re-implemented here.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [openclawDir, casesPath, outPath] = process.argv.slice(2);
const pkgDir = path.join(openclawDir, "node_modules", "openclaw");
const dist = path.join(pkgDir, "dist");
const version = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
const cases = JSON.parse(readFileSync(casesPath, "utf8"));

const chunkFiles = readdirSync(dist).filter((n) => n.endsWith(".mjs"));
const textCache = new Map();
const readText = (file) => {
  if (!textCache.has(file)) textCache.set(file, readFileSync(file, "utf8"));
  return textCache.get(file);
};

/** The exported function `fnName` of the dist chunk that defines it. */
async function exported(fnName) {
  for (const name of chunkFiles) {
    const file = path.join(dist, name);
    const text = readText(file);
    if (!text.includes(`function ${fnName}(`) && !text.includes(`function* ${fnName}(`)) continue;
    const alias = text.match(new RegExp(`\\b${fnName} as (\\w+)`))?.[1];
    if (!alias) continue;
    const mod = await import(pathToFileURL(file).href);
    if (typeof mod[alias] === "function") return mod[alias];
  }
  throw new Error(`no exported ${fnName} in ${dist}`);
}

/** `{local: binding}` for the names `code` uses among `file`'s static imports. */
async function importsUsedBy(file, code) {
  const text = readText(file);
  const out = {};
  const re = /^import (?:\{([^}]*)\}|(\w[\w$]*)) from "([^"]+)";$/gmu;
  for (const m of text.matchAll(re)) {
    const spec = m[3].startsWith(".") ? pathToFileURL(path.resolve(path.dirname(file), m[3])).href : m[3];
    const pairs = m[1]
      ? m[1].split(",").map((p) => p.trim()).filter(Boolean).map((p) => {
          const [exp, local] = p.split(/\s+as\s+/u);
          return [exp, local ?? exp];
        })
      : [["default", m[2]]];
    const used = pairs.filter(([, local]) => new RegExp(`(?<![\\w$])${local.replace("$", "\\$")}(?![\\w$])`).test(code));
    if (used.length === 0) continue;
    const mod = await import(spec);
    for (const [exp, local] of used) out[local] = mod[exp];
  }
  return out;
}

/** Evaluate the `//#region` blocks `regions` of `file` (in file order) and return `names`. */
async function fromRegions(file, regions, names) {
  const text = readText(file);
  const blocks = regions.map((region) => {
    const start = text.indexOf(`//#region ${region}\n`);
    if (start < 0) throw new Error(`region ${region} not in ${file}`);
    const end = text.indexOf("//#endregion", start);
    return text.slice(start, end);
  });
  const code = blocks.join("\n");
  const deps = await importsUsedBy(file, code);
  const fn = new Function(...Object.keys(deps), `${code}\nreturn { ${names.join(", ")} };`);
  return fn(...Object.values(deps));
}

const managerRuntime = path.join(dist, "extensions", "memory-core", "manager-runtime.js");
const ranking = await fromRegions(managerRuntime, [
  "extensions/memory-core/src/memory/importance.ts",
  "extensions/memory-core/src/memory/mmr.ts",
  "extensions/memory-core/src/memory/project-ranking.ts",
  "extensions/memory-core/src/memory/temporal-decay.ts",
  "extensions/memory-core/src/memory/hybrid.ts",
], ["importanceMultiplier", "projectScoreMultiplier", "applyProjectRanking", "mmrRerank",
  "parseMemoryDateFromPath", "isEvergreenMemoryPath", "applyTemporalDecayToScore",
  "scoreExactPathTieForTemporalDecay", "mergeHybridResults", "selectHybridSearchResults"]);
const managerSearchFile = path.join(dist, chunkFiles.find((n) =>
  readText(path.join(dist, n)).includes("//#region extensions/memory-core/src/memory/manager-search.ts\n")));
const keyword = await fromRegions(managerSearchFile, [
  "extensions/memory-core/src/memory/keyword-query.ts",
  "extensions/memory-core/src/memory/manager-search.ts",
], ["buildFtsQuery", "bm25RankToScore", "scoreFallbackKeywordResult", "normalizeSearchTokens",
  "literalSearchMatcher", "prepareExactPathMatcher"]);

const estimateStringChars = await exported("estimateStringChars");
const chunkMarkdown = await exported("chunkMarkdown");
const splitCuratedMarkdownEntries = await exported("splitCuratedMarkdownEntries");
const stripMemoryAnnotationCarriers = await exported("stripMemoryAnnotationCarriers");
const extractCuratedEntryRecallMetadata = await exported("extractCuratedEntryRecallMetadata");
const extractProjectKeysFromCuratedEntry = await exported("extractProjectKeysFromCuratedEntry");
const normalizeProjectAnnotationKey = await exported("normalizeProjectAnnotationKey");
const prepareMemoryIndexChunks = await exported("prepareMemoryIndexChunks");

/** The recall-metadata classification `resolveMemoryPathClassification` gives a workspace path. */
function curatedRoot(relPath) {
  const segments = relPath.split("/");
  return segments.length === 1 && ["MEMORY.md", "memory.md", "USER.md"].includes(segments[0]);
}

const plainChunk = (c) => ({ startLine: c.startLine, endLine: c.endLine, text: c.text, hash: c.hash,
  ...(c.entryStartLine !== undefined ? { entryStartLine: c.entryStartLine, entryEndLine: c.entryEndLine } : {}) });

const out = { openclaw: version };
out.estimateStringChars = cases.estimateStringChars.map((text) => ({ text, expected: estimateStringChars(text) }));
out.chunkMarkdown = cases.chunkMarkdown.map((c) => ({ ...c,
  expected: chunkMarkdown(c.content, { tokens: c.tokens, overlap: c.overlap, perEntry: c.perEntry }).map(plainChunk) }));
out.splitCuratedMarkdownEntries = cases.splitCuratedMarkdownEntries.map((content) => ({ content,
  expected: splitCuratedMarkdownEntries(content) }));
out.prepareMemoryIndexChunks = cases.prepareMemoryIndexChunks.map((c) => {
  const { chunks } = prepareMemoryIndexChunks({
    entry: { path: c.path, mtimeMs: 0 }, source: "memory", content: c.content,
    pathClassification: { curatedRoot: curatedRoot(c.path), originClass: "agent" },
    chunking: { tokens: 400, overlap: 80 }, provider: undefined,
  });
  return { ...c, expected: chunks.map((k) => ({ ...plainChunk(k), importance: k.importance,
    triggers: k.triggers, projectKey: k.projectKey })) };
});
out.stripMemoryAnnotationCarriers = cases.stripMemoryAnnotationCarriers.map((text) => ({ text,
  expected: stripMemoryAnnotationCarriers(text) }));
out.extractCuratedEntryRecallMetadata = cases.extractCuratedEntryRecallMetadata.map((c) => ({ ...c,
  expected: extractCuratedEntryRecallMetadata(c) }));
out.extractProjectKeysFromCuratedEntry = cases.extractProjectKeysFromCuratedEntry.map((text) => ({ text,
  expected: extractProjectKeysFromCuratedEntry(text) }));
out.normalizeProjectAnnotationKey = cases.normalizeProjectAnnotationKey.map((value) => ({ value,
  expected: normalizeProjectAnnotationKey(value) }));
out.importanceMultiplier = cases.importanceMultiplier.map((importance) => ({ importance,
  expected: ranking.importanceMultiplier(importance) }));
out.projectScoreMultiplier = cases.projectScoreMultiplier.map((c) => ({ ...c,
  expected: ranking.projectScoreMultiplier(c.projectKey ?? undefined,
    c.active ? new Set(c.active) : undefined) }));
out.applyProjectRanking = cases.applyProjectRanking.map((c) => ({ ...c,
  expected: ranking.applyProjectRanking(c.results, c.active ? new Set(c.active) : undefined) }));
out.parseMemoryDateFromPath = cases.datedPaths.map((p) => {
  const d = ranking.parseMemoryDateFromPath(p);
  return { path: p, expected: d ? d.getTime() : null, evergreen: ranking.isEvergreenMemoryPath(p) };
});
out.applyTemporalDecayToScore = cases.applyTemporalDecayToScore.map((c) => ({ ...c,
  expected: ranking.applyTemporalDecayToScore(c) }));
out.scoreExactPathTieForTemporalDecay = cases.scoreExactPathTieForTemporalDecay.map((c) => ({ contentScore: c,
  expected: ranking.scoreExactPathTieForTemporalDecay(c) }));
out.scoreFallbackKeywordResult = cases.scoreFallbackKeywordResult.map((c) => {
  const queryMatchers = [...new Set(keyword.normalizeSearchTokens(c.query))].map((token) => ({
    word: keyword.literalSearchMatcher(token, true), substring: keyword.literalSearchMatcher(token) }));
  return { ...c, expected: keyword.scoreFallbackKeywordResult({ queryMatchers, path: c.path, text: c.text,
    ftsScore: c.ftsScore }) };
});
out.bm25RankToScore = cases.bm25RankToScore.map((rank) => ({ rank, expected: keyword.bm25RankToScore(rank) }));
out.buildFtsQuery = cases.buildFtsQuery.map((q) => ({ query: q, expected: keyword.buildFtsQuery(q) }));
out.prepareExactPathMatcher = cases.prepareExactPathMatcher.map((c) => ({ ...c,
  expected: c.paths.map((p) => keyword.prepareExactPathMatcher(c.query)(p)) }));
out.mmrRerank = cases.mmrRerank.map((c) => ({ ...c,
  expected: ranking.mmrRerank(c.items, { enabled: true, lambda: c.lambda ?? 0.7 }).map((i) => i.id) }));
out.selectHybridSearchResults = cases.selectHybridSearchResults.map((c) => ({ ...c,
  expected: ranking.selectHybridSearchResults(c).map((e) => `${e.source}:${e.path}:${e.startLine}:${e.endLine}`) }));
out.mergeHybridResults = [];
for (const c of cases.mergeHybridResults) {
  const merged = await ranking.mergeHybridResults({
    vector: c.vector, keyword: c.keyword, vectorWeight: 0.7, textWeight: 0.3,
    mmr: { enabled: true, lambda: 0.7 }, temporalDecay: { enabled: true, halfLifeDays: 30 },
    activeProjectKeys: c.activeProjectKeys, workspaceDir: undefined, nowMs: c.nowMs,
    sessionSourceMtimes: c.sessionSourceMtimes ? new Map(Object.entries(c.sessionSourceMtimes)) : undefined,
    memorySourceMtimes: undefined, isNonTextMediaPath: () => false,
  });
  out.mergeHybridResults.push({ ...c, expected: merged.map((e) => ({ path: e.path, startLine: e.startLine,
    endLine: e.endLine, source: e.source, score: e.score, vectorScore: e.vectorScore, textScore: e.textScore })) });
}
writeFileSync(outPath, `${JSON.stringify(out, null, 1)}\n`);
