// Drive an ACP agent with the official client library (ClientSideConnection) and print
// what happened as one JSON object on stdout. Usage: node acp_client.mjs SCENARIO.json
//
// Scenario: {
//   "command": ["lsp-agent", "acp"], "env": {...}, "cwd": "/abs/workspace",
//   "fs": {"read": true, "write": true},          // client capabilities declared
//   "buffers": {"/abs/path": "unsaved text"},     // what fs/read_text_file returns
//   "mcpServers": [...],                           // passed to session/new
//   "prompts": [{"text": "...", "blocks": [more content blocks], "permission": "allow_once" | "allow_always" |
//                "reject_once" | "cancel" | "cancel_and_never_answer",
//                "cancelOn": "tool_call" | null,
//                "promptWhileRunning": "text" | null,
//                "editOnPermission": {"/abs/path": "text the buffer gets"} | null}]
// }
// A write through fs/write_text_file goes to disk (like an editor that saves).
import { spawn } from "node:child_process";
import fs from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const scenario = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const agentProcess = spawn(scenario.command[0], scenario.command.slice(1), {
  cwd: scenario.cwd,
  env: { ...process.env, ...(scenario.env ?? {}) },
  stdio: ["pipe", "pipe", "inherit"],
});
const transcript = { turns: [] };
let turn = null;
let connection = null;
let sessionId = null;

function cancelNow() {
  turn.cancelSent = true;
  connection.cancel({ sessionId });
}

class TestClient {
  async requestPermission(params) {
    turn.permissions.push(params);
    // The user edits the buffer while the question is open (a stale patch must not land).
    Object.assign((scenario.buffers ??= {}), turn.spec.editOnPermission ?? {});
    const wanted = turn.spec.permission ?? "reject_once";
    if (wanted === "cancel") {
      cancelNow();
      return { outcome: { outcome: "cancelled" } };
    }
    if (wanted === "cancel_and_never_answer") {
      cancelNow();
      return new Promise(() => {});
    }
    const option = params.options.find((o) => o.kind === wanted);
    if (!option) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  }

  async sessionUpdate(params) {
    turn.updates.push(params.update);
    const kind = params.update.sessionUpdate;
    if (kind === "tool_call" && turn.spec.cancelOn === "tool_call" && !turn.cancelSent) {
      cancelNow();
    }
    if (kind === "tool_call" && turn.spec.promptWhileRunning && !turn.second) {
      turn.second = connection
        .prompt({ sessionId, prompt: [{ type: "text", text: turn.spec.promptWhileRunning }] })
        .then((r) => ({ response: r }), (e) => ({ error: { code: e.code, message: e.message, data: e.data } }));
    }
  }

  async readTextFile(params) {
    turn.reads.push(params.path);
    if (scenario.buffers && params.path in scenario.buffers) {
      return { content: scenario.buffers[params.path] };
    }
    return { content: fs.readFileSync(params.path, "utf8") };
  }

  async writeTextFile(params) {
    turn.writes.push(params.path);
    fs.writeFileSync(params.path, params.content);
    return {};
  }
}

const stream = acp.ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout));
connection = new acp.ClientSideConnection(() => new TestClient(), stream);
const timer = setTimeout(() => {
  transcript.timedOut = true;
  finish(3);
}, (scenario.timeoutS ?? 60) * 1000);

function finish(code) {
  clearTimeout(timer);
  process.stdout.write(JSON.stringify(transcript) + "\n");
  agentProcess.kill();
  process.exit(code);
}

try {
  transcript.initialize = await connection.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: !!scenario.fs?.read, writeTextFile: !!scenario.fs?.write } },
    clientInfo: { name: "acp-test-client", version: "1.0.0" },
  });
  const session = await connection.newSession({ cwd: scenario.cwd, mcpServers: scenario.mcpServers ?? [] });
  sessionId = session.sessionId;
  transcript.sessionId = sessionId;
  for (const spec of scenario.prompts) {
    turn = { spec, updates: [], permissions: [], reads: [], writes: [], cancelSent: false };
    try {
      const prompt = [{ type: "text", text: spec.text }, ...(spec.blocks ?? [])];
      turn.response = await connection.prompt({ sessionId, prompt });
    } catch (e) {
      turn.error = { code: e.code, message: e.message, data: e.data };
    }
    if (turn.second) turn.secondResult = await turn.second;
    delete turn.second;
    transcript.turns.push(turn);
  }
  finish(0);
} catch (e) {
  transcript.error = { code: e.code, message: String(e.message ?? e), data: e.data };
  finish(2);
}
