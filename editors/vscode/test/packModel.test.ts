// Unit tests of the view model (no VS Code instance): request params from editor state,
// pack result → tree nodes, command ids, status bar text, debouncing, server lookup.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  advertisedCommand,
  commandBase,
  debounce,
  deltaDescription,
  ItemNode,
  PackItem,
  PackResult,
  packToTree,
  relationLabel,
  requestParams,
  sameRequest,
  SectionNode,
  statusBar,
  Timers,
  TreeNode,
} from "../src/packModel";
import { expandSetting, findServer, INSTALL_HINT, whichOnPath } from "../src/serverPath";

function item(p: string, extra: Partial<PackItem> = {}): PackItem {
  return {
    path: p,
    kind: p.endsWith(".md") ? "doc" : "code",
    role: p.endsWith(".md") ? "doc" : "impl",
    title: p,
    summary: "",
    provenance: "retrieval",
    reasons: [],
    relations: [],
    ...extra,
  };
}

function pack(extra: Partial<PackResult> = {}): PackResult {
  return {
    task: { source: "openBuffers", terms: ["anchor", "resolver"], openBuffers: ["src/resolve.ts"] },
    epoch: 3,
    stats: { collected: 10, excluded: 0, candidates: 4, relations: 2, pinned: 0, packed: 3, truncated: 0 },
    pinned: [],
    primary: [],
    supporting: [],
    related: [],
    more: [],
    ...extra,
  };
}

const sections = (nodes: TreeNode[]): SectionNode[] => nodes.filter((n): n is SectionNode => n.type === "section");

// ---- request params ------------------------------------------------------------------

test("request carries the focused file and cursor", () => {
  const p = requestParams({ uri: "file:///ws/src/a.ts", scheme: "file", cursor: { line: 12, character: 4 } });
  assert.deepEqual(p, { limit: 20, focus: { uri: "file:///ws/src/a.ts", position: { line: 12, character: 4 } } });
});

test("an explicit query is sent with the focus; blank queries are dropped", () => {
  const p = requestParams({ uri: "file:///ws/a.md", scheme: "file", query: "  rename detection  " }, 5);
  assert.equal(p.query, "rename detection");
  assert.equal(p.limit, 5);
  assert.equal(p.focus?.uri, "file:///ws/a.md");
  assert.equal(requestParams({ query: "   " }).query, undefined);
});

test("non-file documents are not a focus", () => {
  const p = requestParams({ uri: "output:extension-output", scheme: "output", cursor: { line: 1, character: 1 } });
  assert.equal(p.focus, undefined);
  assert.deepEqual(requestParams({}), { limit: 20 });
});

test("a column move is the same request, a line move is not", () => {
  const a = requestParams({ uri: "file:///a.ts", scheme: "file", cursor: { line: 3, character: 1 } });
  const b = requestParams({ uri: "file:///a.ts", scheme: "file", cursor: { line: 3, character: 9 } });
  const c = requestParams({ uri: "file:///a.ts", scheme: "file", cursor: { line: 4, character: 1 } });
  const d = requestParams({ uri: "file:///b.ts", scheme: "file", cursor: { line: 3, character: 1 } });
  assert.ok(sameRequest(a, b));
  assert.ok(!sameRequest(a, c));
  assert.ok(!sameRequest(a, d));
  assert.ok(!sameRequest(undefined, a));
  assert.ok(!sameRequest(a, { ...a, query: "x" }));
});

// ---- tree ----------------------------------------------------------------------------

test("sections in order, empty ones left out, numbered tiers ranked", () => {
  const nodes = packToTree(
    pack({
      pinned: [item("docs/pinned.md")],
      primary: [item("src/resolve.ts", { reasons: ['filenameMatch: "resolve"'] })],
      related: [item("src/lang.ts"), item("src/util/paths.ts")],
      more: [item("README.md")],
    }),
  );
  assert.equal(nodes[0].type, "info");
  assert.match((nodes[0] as { label: string }).label, /^Open files: anchor, resolver/);
  const s = sections(nodes);
  assert.deepEqual(
    s.map((x) => [x.section, x.description, x.expanded]),
    [
      ["pinned", "1", true],
      ["primary", "1", true],
      ["related", "2", true],
      ["more", "1", false],
    ],
  );
  const labels = s.map((x) => x.children.map((c) => (c as ItemNode).label));
  assert.deepEqual(labels, [["pinned.md"], ["1. resolve.ts"], ["1. lang.ts", "2. paths.ts"], ["README.md"]]);
});

test("an item shows its reason, lifecycle and anchor health, and opens at its passage", () => {
  const nodes = packToTree(
    pack({
      primary: [
        item("docs/architecture.md", {
          title: "Architecture",
          summary: "How anchors resolve.",
          reasons: ['titleMatch: "architecture"', 'bodyMatch: "resolver"'],
          relations: [
            { type: "documents", dir: "out", other: "src/resolve.ts", line: 3, symbol: "AnchorResolver.resolve" },
            { type: "references", dir: "in", other: "README.md", line: 4 },
          ],
          passage: { startLine: 3, endLine: 9, text: "Knit resolves an anchor" },
          anchors: { total: 5, stale: 1, lost: 2 },
          lifecycle: "updated-after-read",
        }),
      ],
    }),
  );
  const node = sections(nodes)[0].children[0] as ItemNode;
  assert.equal(node.description, 'titleMatch: "architecture" · ↻ changed since read · anchors: 1 stale, 2 lost of 5');
  assert.deepEqual(node.range, { startLine: 2, endLine: 8 });
  assert.equal(node.contextValue, "knit.item.unpinned");
  assert.equal(node.id, "primary:docs/architecture.md");
  assert.match(node.tooltip, /\*\*Architecture\*\*/);
  assert.match(node.tooltip, /documents → src\/resolve\.ts:3 \\#AnchorResolver\.resolve/);
  assert.match(node.tooltip, /Lines 3–9/);
  // children: every reason, then every relation (which open the other file at its line)
  assert.deepEqual(
    node.children.map((c) => [c.icon, c.label, c.target]),
    [
      ["reason", 'titleMatch: "architecture"', undefined],
      ["reason", 'bodyMatch: "resolver"', undefined],
      ["relation", "documents → src/resolve.ts:3 #AnchorResolver.resolve", { path: "src/resolve.ts", line: 2 }],
      ["relation", "references ← README.md:4", { path: "README.md", line: 3 }],
    ],
  );
});

test("fresh anchors and unread items keep the description short", () => {
  const nodes = packToTree(pack({ supporting: [item("docs/a.md", { anchors: { total: 3, stale: 0, lost: 0 }, lifecycle: "unread" })] }));
  const node = sections(nodes)[0].children[0] as ItemNode;
  assert.equal(node.description, "• unread");
  assert.match(node.tooltip, /anchors: 3 fresh/);
  assert.equal(node.range, undefined);
});

test("pinned items get the unpin menu wherever they appear", () => {
  const nodes = packToTree(pack({ pinned: [item("src/a.ts")], more: [item("src/b.ts")] }));
  const [pinned, more] = sections(nodes);
  assert.equal((pinned.children[0] as ItemNode).contextValue, "knit.item.pinned");
  assert.equal((more.children[0] as ItemNode).contextValue, "knit.item.unpinned");
});

test("degraded packs and empty packs say so; excluded paths get a restore section", () => {
  const nodes = packToTree(
    pack({ task: { source: "query", text: "x", terms: [], openBuffers: [] }, degraded: { reason: "tooFewTerms", detail: "too few distinctive terms" } }),
    { excluded: ["dist/x.js"] },
  );
  assert.deepEqual(
    nodes.map((n) => [n.type, n.id]),
    [
      ["info", "task"],
      ["info", "degraded"],
      ["info", "empty"],
      ["section", "section:excluded"],
    ],
  );
  assert.equal((nodes[0] as { label: string }).label, "Task: x");
  const excluded = (nodes[3] as SectionNode).children[0];
  assert.deepEqual(excluded, { type: "excluded", id: "excluded:dist/x.js", path: "dist/x.js", label: "x.js", description: "dist/x.js", contextValue: "knit.excluded" });
});

test("the delta shows what entered, left and moved tier", () => {
  assert.equal(deltaDescription(pack()), "epoch 3");
  assert.equal(deltaDescription(pack({ delta: { entered: ["a", "b"], left: ["c"], changedTier: [] } })), "epoch 3 (+2 −1)");
  assert.equal(deltaDescription(pack({ delta: { entered: [], left: [], changedTier: [{ path: "a", from: "related", to: "primary" }] } })), "epoch 3 (~1)");
});

test("relation labels", () => {
  assert.equal(relationLabel({ type: "imports", dir: "in", other: "src/x.ts", line: 3 }), "imports ← src/x.ts:3");
  assert.equal(relationLabel({ type: "tests", dir: "out", other: "src/x.ts" }), "tests → src/x.ts");
  assert.equal(relationLabel({ type: "changedWith", dir: "out", other: "src/router.ts" }), "changedWith → src/router.ts");
  assert.equal(relationLabel({ type: "uses", dir: "out", other: "src/router.ts", symbol: "matchRoute" }), "uses → src/router.ts #matchRoute");
  assert.equal(relationLabel({ type: "usedBy", dir: "in", other: "src/app.ts", symbol: "Router" }), "usedBy ← src/app.ts #Router");
});

// ---- protocol helpers ----------------------------------------------------------------

test("advertised command ids with and without the instance suffix", () => {
  const ids = ["knit.recordFile/7f3a", "knit.pin/7f3a", "knit.contextPack/7f3a"];
  assert.equal(advertisedCommand(ids, "knit.pin"), "knit.pin/7f3a");
  assert.equal(advertisedCommand(ids, "knit.contextPack"), "knit.contextPack/7f3a");
  assert.equal(advertisedCommand(["knit.pin"], "knit.pin"), "knit.pin");
  assert.equal(advertisedCommand(["knit.pinAll/1"], "knit.pin"), "knit.pin");
  assert.equal(advertisedCommand(undefined, "knit.unpin"), "knit.unpin");
  assert.equal(commandBase("knit.showReferences/7f3a"), "knit.showReferences");
  assert.equal(commandBase("editor.action/x"), "editor.action/x");
});

test("status bar: spinner before the first scan, warning on stale or lost", () => {
  assert.match(statusBar(undefined).text, /sync~spin/);
  const clean = statusBar({ fresh: 4, stale: 0, lost: 0, scanned: true });
  assert.equal(clean.text, "$(check) knit");
  assert.equal(clean.attention, false);
  const drift = statusBar({ fresh: 4, renamed: 1, scanned: true });
  assert.equal(drift.text, "$(info) knit");
  const bad = statusBar({ fresh: 1, stale: 2, lost: 1, moved: 1, brokenLinks: 3, scanned: true });
  assert.equal(bad.text, "$(warning) knit: 2 stale, 1 lost");
  assert.ok(bad.attention);
  assert.match(bad.tooltip, /1 fresh · 2 stale · 1 moved\/renamed · 1 lost · 0 invalid · 0 unrecorded · 0 unchecked · 3 broken links/);
  assert.match(statusBar({ scanned: false }).tooltip, /scanning/);
});

// ---- debounce ------------------------------------------------------------------------

test("debounce runs once after the last trigger; flush and cancel", () => {
  const pending = new Map<number, () => void>();
  let next = 0;
  const timers: Timers = {
    set: (fn) => {
      pending.set(++next, fn);
      return next;
    },
    clear: (h) => void pending.delete(h as number),
  };
  const fire = (): void => {
    for (const [k, fn] of [...pending]) {
      pending.delete(k);
      fn();
    }
  };
  let calls = 0;
  const d = debounce(() => calls++, 300, timers);
  d.trigger();
  d.trigger();
  d.trigger();
  assert.equal(pending.size, 1);
  fire();
  assert.equal(calls, 1);
  d.trigger();
  d.flush();
  assert.equal(calls, 2);
  assert.equal(pending.size, 0);
  d.trigger();
  d.cancel();
  fire();
  assert.equal(calls, 2);
  d.flush();
  assert.equal(calls, 2);
});

test("debounce with real timers", async () => {
  let calls = 0;
  const d = debounce(() => calls++, 10);
  d.trigger();
  d.trigger();
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(calls, 1);
});

// ---- server lookup -------------------------------------------------------------------

test("server lookup: setting, PATH, and a message with the install command", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "knit-vscode-"));
  const bin = path.join(dir, "knit");
  fs.writeFileSync(bin, "#!/bin/sh\n");
  fs.chmodSync(bin, 0o755);
  const notExec = path.join(dir, "plain");
  fs.writeFileSync(notExec, "");
  fs.chmodSync(notExec, 0o644);

  assert.equal(whichOnPath("knit", `/nonexistent${path.delimiter}${dir}`), bin);
  assert.deepEqual(findServer("", dir, os.homedir()), { ok: true, command: bin });
  assert.deepEqual(findServer(bin, "", os.homedir()), { ok: true, command: bin });
  assert.deepEqual(findServer("./knit", "", os.homedir(), dir), { ok: true, command: bin });

  const missing = findServer("", "/nonexistent", os.homedir());
  assert.equal(missing.ok, false);
  assert.ok(!missing.ok && missing.message.includes(INSTALL_HINT), JSON.stringify(missing));
  const bad = findServer(notExec, dir, os.homedir());
  assert.ok(!bad.ok && bad.message.includes("not an executable file"), JSON.stringify(bad));
  const tilde = findServer("~/definitely-not-here/knit", dir, "/home/someone");
  assert.ok(!tilde.ok && tilde.message.includes("/home/someone/definitely-not-here/knit"), JSON.stringify(tilde));
  fs.rmSync(dir, { recursive: true, force: true });
});

test("server path setting: ${workspaceFolder}, ${userHome} and ~ expand; relative paths resolve against the first folder", () => {
  const home = path.join(path.sep, "home", "someone");
  const ws = path.join(path.sep, "work", "project");
  assert.equal(expandSetting("${workspaceFolder}/target/debug/knit", home, ws), path.join(ws, "target/debug/knit"));
  assert.equal(expandSetting("  ${workspaceFolder}/target/debug/knit ", home, ws), path.join(ws, "target/debug/knit"));
  assert.equal(expandSetting("${userHome}/.cargo/bin/knit", home, ws), path.join(home, ".cargo/bin/knit"));
  assert.equal(expandSetting("~/.cargo/bin/knit", home, ws), path.join(home, ".cargo/bin/knit"));
  assert.equal(expandSetting("~", home, ws), home);
  // relative to the opened folder (not the knit checkout): what the docs warn about
  assert.equal(expandSetting("target/debug/knit", home, ws), path.join(ws, "target/debug/knit"));
  assert.equal(expandSetting("./bin/knit", home, ws), path.join(ws, "bin/knit"));
  // absolute paths and bare names (looked up on PATH) are left alone
  assert.equal(expandSetting("/opt/knit/bin/knit", home, ws), "/opt/knit/bin/knit");
  assert.equal(expandSetting("knit-dev", home, ws), "knit-dev");
  // no folder open: nothing to substitute
  assert.equal(expandSetting("${workspaceFolder}/knit", home, undefined), "${workspaceFolder}/knit");

  // through findServer, with a real binary in a fake workspace and home
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "knit-vscode-"));
  const bin = path.join(dir, "target", "debug", "knit");
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  fs.writeFileSync(bin, "#!/bin/sh\n");
  fs.chmodSync(bin, 0o755);
  try {
    assert.deepEqual(findServer("${workspaceFolder}/target/debug/knit", "", home, dir), { ok: true, command: bin });
    assert.deepEqual(findServer("~/target/debug/knit", "", dir, "/elsewhere"), { ok: true, command: bin });
    assert.deepEqual(findServer("${userHome}/target/debug/knit", "", dir, undefined), { ok: true, command: bin });
    assert.deepEqual(findServer("target/debug/knit", "", home, dir), { ok: true, command: bin });
    for (const setting of ["${workspaceFolder}/target/debug/knit", "target/debug/knit"]) {
      const none = findServer(setting, dir, home, undefined);
      assert.ok(!none.ok && none.message.includes("workspace folder") && none.message.includes("absolute path"), JSON.stringify(none));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---- a real server response ------------------------------------------------------------

test("a pack produced by knit for the example workspace maps to the tree", () => {
  // `knit pack --format json --open docs/architecture.md` in fixtures/example (the same
  // object knit/contextPack returns)
  const raw = fs.readFileSync(path.join(__dirname, "../../test/fixtures/example-pack.json"), "utf8");
  const real = JSON.parse(raw) as PackResult;
  const nodes = packToTree(real);
  assert.equal((nodes[0] as { label: string }).label.startsWith("Open files: "), true);
  const s = sections(nodes);
  assert.deepEqual(
    s.map((x) => x.section),
    (["pinned", "primary", "supporting", "related", "more"] as const).filter((k) => real[k].length > 0),
  );
  const first = s.find((x) => x.section === "primary")!.children[0] as ItemNode;
  assert.equal(first.path, real.primary[0].path);
  assert.equal(first.label, `1. ${real.primary[0].path.split("/").pop()}`);
  assert.equal(first.description.split(" · ")[0], real.primary[0].reasons[0]);
  assert.equal(first.children.length, real.primary[0].reasons.length + real.primary[0].relations.length);
  const rel = first.children.find((c) => c.icon === "relation")!;
  const fact = real.primary[0].relations[0];
  assert.deepEqual(rel.target, { path: fact.other, line: (fact.line ?? 1) - 1 });
  // every item of every tier is in the tree exactly once
  const all = s.flatMap((x) => x.children.map((c) => (c as ItemNode).path));
  const expected = (["pinned", "primary", "supporting", "related", "more"] as const).flatMap((k) => real[k].map((i) => i.path));
  assert.deepEqual(all, expected);
  assert.ok(!all.includes("docs/architecture.md"), "the open buffer is the task, not an item");
  assert.match(deltaDescription(real), /^epoch \d+/);
});
