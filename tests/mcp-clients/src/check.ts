// Drives `anneal-memory serve` with the clients editors are built on:
//   - the TypeScript SDK 1.x client (the initialize handshake),
//   - the TypeScript SDK 2.x client pinned to 2026-07-28 and in `auto` mode (server/discover),
//   - the MCP Inspector CLI with --protocol-era legacy and modern.
// Every tool is called with valid and with invalid arguments in each. Ends with the line
// "N passed, M failed" and exits 1 on any failure.
//
//   node build/check.js PYTHON [--no-inspector]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";

const PYTHON = process.argv[2] ?? "python3";
const WITH_INSPECTOR = !process.argv.includes("--no-inspector");
const HERE = dirname(dirname(fileURLToPath(import.meta.url)));
const INSPECTOR = join(HERE, "node_modules", ".bin", "mcp-inspector");
const MODERN = "2026-07-28";
const TOOLS = [
  "record",
  "recall",
  "get",
  "read_continuity",
  "prepare_wrap",
  "save_continuity",
  "wrap_cancel",
  "delete_episode",
  "status",
  "crystal_recall",
  "crystal_index",
  "spore_add",
  "spore_get",
  "spore_list",
  "spore_touch",
  "spore_update",
  "spore_descend",
  "spore_ascend",
  "spore_surface",
  "explain",
  "outcome",
];
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

type Args = Record<string, unknown>;
type ToolResult = {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
};
type Call = (name: string, args: Args) => Promise<ToolResult>;

let passed = 0;
let failed = 0;

function check(label: string, ok: boolean, detail: unknown = ""): void {
  if (ok) {
    passed += 1;
  } else {
    failed += 1;
    console.log(`FAIL ${label} ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
}

function text(result: ToolResult): string {
  return (result.content ?? []).map((c) => c.text ?? "").join("\n");
}

function structured(result: ToolResult): Record<string, unknown> {
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

const INVALID: Record<string, Args> = {
  record: { episode_type: "gossip" },
  recall: { limit: 0 },
  get: {},
  read_continuity: { verbose: true },
  prepare_wrap: { max_chars: 5 },
  save_continuity: { text: "# no token" },
  wrap_cancel: { wrap_token: 5 },
  delete_episode: { episode_id: ["x"] },
  status: { verbose: true },
  crystal_recall: {},
  crystal_index: { verbose: true },
  spore_add: { type: "chore", text: "x" },
  spore_get: {},
  spore_list: { tier: "lukewarm" },
  spore_touch: {},
  spore_update: { spore_id: 5 },
  spore_descend: { spore_id: "spore-001" },
  spore_ascend: { spore_id: "spore-001", kind: "project" },
  spore_surface: { verbose: true },
  explain: { pattern: 5 },
  outcome: { exposure_id: 5 },
};

function document(decision: string): string {
  return (
    "# TS — Memory (v1)\n\n## State\nSQLite store chosen.\n\n## Patterns\n" +
    `- sqlite_store | 1x (2026-03-02) [evidence: ${decision} "chose sqlite"]\n\n` +
    '## Decisions\n- SQLite [decided(rationale: "one file", on: "2026-03-02")]\n\n' +
    "## Context\nFirst session.\n"
  );
}

function newStore(session: string): string {
  const db = join(mkdtempSync(join(tmpdir(), "anneal-mcp-")), "memory.db");
  execFileSync(PYTHON, ["-m", "anneal_memory", "--db", db, "init"], { stdio: "ignore" });
  execFileSync(PYTHON, ["-m", "anneal_memory", "--db", db, "baton", "claim", session], { stdio: "ignore" });
  return db;
}

function serverArgs(db: string, session: string): string[] {
  return ["-m", "anneal_memory", "--db", db, "--project-name", "TS", "serve", "--session-id", session];
}

async function everyTool(label: string, call: Call): Promise<void> {
  for (const name of TOOLS) {
    const refused = await call(name, INVALID[name]);
    check(`${label} ${name} invalid arguments`, refused.isError === true, refused);
    check(`${label} ${name} says why`, text(refused).startsWith("Error: invalid arguments"), text(refused));
  }
  const recorded = await call("record", { content: "chose sqlite for the store", episode_type: "decision" });
  const id = String(structured(recorded).id);
  check(`${label} record`, !recorded.isError && /^[0-9a-f]{8}$/.test(id), recorded);
  const got = await call("get", { episode_id: id });
  check(`${label} get`, structured(got).content === "chose sqlite for the store", got);
  const recalled = await call("recall", { keyword: "sqlite", limit: 5.0 });
  check(`${label} recall`, structured(recalled).total_matching === 1, recalled);
  const exposure = String(structured(recalled).exposure_id);
  const reported = await call("outcome", { exposure_id: exposure, result: "success", items: { [`episode:${id}`]: "followed" } });
  check(`${label} outcome`, !reported.isError && structured(reported).exposure_id === exposure, reported);
  const continuity = await call("read_continuity", {});
  check(`${label} read_continuity`, text(continuity).startsWith("(No continuity yet."), continuity);
  const status = await call("status", {});
  check(`${label} status`, structured(status).wrap_open === false, status);
  const prepared = await call("prepare_wrap", {});
  const token = String(structured(prepared).wrap_token);
  check(`${label} prepare_wrap`, token.length === 32, prepared);
  const saved = await call("save_continuity", { text: document(id), wrap_token: token });
  check(`${label} save_continuity`, structured(saved).episodes_compressed === 1, saved);
  await call("record", { content: "a second note", episode_type: "context" });
  const second = String(structured(await call("prepare_wrap", {})).wrap_token);
  const cancelled = await call("wrap_cancel", { wrap_token: second });
  check(`${label} wrap_cancel`, structured(cancelled).episode_count === 1, cancelled);
  const deleted = await call("delete_episode", { episode_id: id });
  check(`${label} delete_episode`, !deleted.isError && text(deleted).includes(id), deleted);
  await longTerm(label, call);
}

async function longTerm(label: string, call: Call): Promise<void> {
  const index = await call("crystal_index", {});
  check(`${label} crystal_index`, !index.isError && text(index).includes("No crystallized patterns"), index);
  const recalled = await call("crystal_recall", { query: "which database store did we choose" });
  check(`${label} crystal_recall`, !recalled.isError, recalled);
  const planted = await call("spore_add", { type: "task", text: "benchmark the sqlite store", tier: "hot" });
  const spore = (text(planted).match(/spore-\d+/) ?? [""])[0];
  check(`${label} spore_add`, !planted.isError && spore !== "", planted);
  const got = await call("spore_get", { spore_id: spore });
  check(`${label} spore_get`, !got.isError && text(got).includes("benchmark"), got);
  const listed = await call("spore_list", {});
  check(`${label} spore_list`, text(listed).includes(spore), listed);
  const touched = await call("spore_touch", { spore_id: spore });
  check(`${label} spore_touch`, !touched.isError, touched);
  const updated = await call("spore_update", { spore_id: spore, add_note: "measured twice" });
  check(`${label} spore_update`, !updated.isError, updated);
  const surfaced = await call("spore_surface", { top_of_mind: true });
  check(`${label} spore_surface`, text(surfaced).includes(spore), surfaced);
  const done = await call("spore_descend", { spore_id: spore, kind: "done" });
  check(`${label} spore_descend`, !done.isError, done);
  const asked = await call("spore_add", { type: "question", text: "is the store fast enough?" });
  const question = (text(asked).match(/spore-\d+/) ?? [""])[0];
  const became = await call("spore_ascend", { spore_id: question, kind: "episode", ref: "0d5cf62c" });
  check(`${label} spore_ascend`, !became.isError, became);
  const wrong = await call("spore_descend", { spore_id: question, kind: "done" });
  check(`${label} spore_descend resolved`, wrong.isError === true, wrong);
}

function checkTools(label: string, tools: { name: string; title?: string; annotations?: object }[]): void {
  check(`${label} tools/list`, JSON.stringify(tools.map((t) => t.name)) === JSON.stringify(TOOLS), tools);
  for (const tool of tools) {
    const hints = (tool.annotations ?? {}) as Record<string, unknown>;
    check(`${label} ${tool.name} title`, Boolean(tool.title), tool);
    check(`${label} ${tool.name} hints`, HINTS.every((h) => typeof hints[h] === "boolean"), hints);
  }
}

async function sdkV1(): Promise<void> {
  const session = "ts-v1";
  const transport = new V1Stdio({ command: PYTHON, args: serverArgs(newStore(session), session) });
  const client = new V1Client({ name: "anneal-ts-v1", version: "1.0.0" });
  await client.connect(transport);
  checkTools("sdk-1.x", (await client.listTools()).tools);
  await everyTool("sdk-1.x", async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
  const read = await client.readResource({ uri: "anneal://continuity" });
  check("sdk-1.x resources/read", read.contents.length === 1, read);
  await client.readResource({ uri: "anneal://nothing" }).then(
    () => check("sdk-1.x unknown resource", false),
    (error: { code?: number }) => check("sdk-1.x unknown resource -32002", error.code === -32002, error),
  );
  await client.close();
}

async function sdkV2(mode: "auto" | { pin: string }): Promise<void> {
  const label = `sdk-2.x ${typeof mode === "string" ? mode : "pin " + mode.pin}`;
  const session = "ts-v2";
  const transport = new V2Stdio({ command: PYTHON, args: serverArgs(newStore(session), session) });
  const client = new V2Client(
    { name: "anneal-ts-v2", version: "2.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  check(`${label} negotiated ${MODERN}`, client.getNegotiatedProtocolVersion() === MODERN, client.getNegotiatedProtocolVersion());
  const discovered = client.getDiscoverResult();
  check(`${label} server/discover`, discovered?.supportedVersions.includes(MODERN) === true, discovered);
  checkTools(label, (await client.listTools()).tools);
  await everyTool(label, async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
  const read = await client.readResource({ uri: "anneal://integrity/manifest" });
  check(`${label} resources/read`, read.contents.length === 1, read);
  await client.readResource({ uri: "anneal://nothing" }).then(
    () => check(`${label} unknown resource`, false),
    (error: { code?: number }) => check(`${label} unknown resource -32602`, error.code === -32602, error),
  );
  await client.close();
}

function inspector(era: string, config: string, extra: string[]): Promise<{ code: number; out: unknown }> {
  const args = ["--cli", "--config", config, "--server", "anneal", "--protocol-era", era, "--format", "json", "-q", ...extra];
  return new Promise((resolve) => {
    const child = spawn(INSPECTOR, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, MCP_INSPECTOR_SECRET_STORE: "memory" } });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.on("close", (code) => {
      let parsed: unknown = out;
      try {
        parsed = JSON.parse(out);
      } catch {
        // keep the raw text for the failure message
      }
      resolve({ code: code ?? -1, out: parsed });
    });
  });
}

async function inspectorEra(era: "legacy" | "modern"): Promise<void> {
  const label = `inspector ${era}`;
  const session = `inspector-${era}`;
  const db = newStore(session);
  const config = join(dirname(db), "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { anneal: { command: PYTHON, args: serverArgs(db, session) } } }));
  const listed = await inspector(era, config, ["--method", "tools/list"]);
  const tools = ((listed.out as { result?: { tools?: [] } }).result?.tools ?? []) as { name: string }[];
  checkTools(label, tools);
  const read = await inspector(era, config, ["--method", "resources/read", "--uri", "anneal://continuity"]);
  check(`${label} resources/read`, read.code === 0, read);
  const call: Call = async (name, args) => {
    const done = await inspector(era, config, ["--method", "tools/call", "--tool-name", name, "--tool-args-json", JSON.stringify(args)]);
    const result = ((done.out as { result?: ToolResult }).result ?? { isError: true, content: [] }) as ToolResult;
    check(`${label} ${name} exit code`, done.code === (result.isError ? 5 : 0), done);
    return result;
  };
  await everyTool(label, call);
}

async function main(): Promise<void> {
  await sdkV1();
  await sdkV2({ pin: MODERN });
  await sdkV2("auto");
  if (WITH_INSPECTOR) {
    await Promise.all([inspectorEra("legacy"), inspectorEra("modern")]);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  console.log(`FAIL unexpected: ${error instanceof Error ? error.stack : String(error)}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
});
