// End-to-end test of the packaged extension in a real VS Code (code-server), driven by
// playwright-core and the system's Chromium. Installs knit.vsix, opens a copy of
// fixtures/example, and checks what a user sees: knit's diagnostics in the Problems
// view, the hover on a renamed anchor, the status bar count, and the Context Pack view.
// Then it opens a copy of fixtures/clients-polyglot and checks the code side in the
// languages beyond TypeScript: code lens and references on a Rust and a Python
// declaration, the lens on a Kotlin one.
//
// Usage: node test/e2e/run.mjs --knit /path/to/knit --code-server /path/to/code-server
//        [--vsix knit.vsix] [--chromium /usr/bin/chromium] [--shots DIR]
// Prints "ok"/"not ok" lines and ends with "N passed, N failed". Screenshots are kept in
// DIR, or in a temp folder when a check failed; a passing run without --shots leaves none.

import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const extDir = path.resolve(here, "../..");
const repo = path.resolve(extDir, "../..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const knit = path.resolve(arg("knit", process.env.KNIT_BIN ?? ""));
const codeServer = arg("code-server", process.env.CODE_SERVER ?? "");
const vsix = path.resolve(arg("vsix", path.join(extDir, "knit.vsix")));
const chromiumPath = arg("chromium", "/usr/bin/chromium");
const keepShots = process.argv.includes("--shots");
const shots = keepShots ? path.resolve(arg("shots")) : fs.mkdtempSync(path.join(os.tmpdir(), "knit-e2e-shots-"));
fs.mkdirSync(shots, { recursive: true });
const TIMEOUT = 60_000;

/** Waits until `locator`'s text stops changing (two reads 500 ms apart agree), at most
 * 10 s: a tree view still re-rendering moves rows under the mouse. */
async function settled(locator) {
  let last = await locator.first().innerText().catch(() => "");
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await locator.first().innerText().catch(() => "");
    if (now === last) return;
    last = now;
  }
}

let passed = 0;
let failed = 0;
function check(name, cond, detail) {
  if (cond) {
    passed++;
    console.log(`ok - ${name}`);
  } else {
    failed++;
    console.log(`not ok - ${name}`);
    if (detail !== undefined) {
      console.log(String(typeof detail === "string" ? detail : JSON.stringify(detail)).replace(/^/gm, "    # "));
    }
  }
  return cond;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForHttp(url, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "knit-vscode-e2e-"));
const userData = path.join(tmp, "user-data");
const extensions = path.join(tmp, "extensions");
const workspace = path.join(tmp, "example");
fs.cpSync(path.join(repo, "fixtures/example"), workspace, { recursive: true });
// A test named like the resolver, in another folder: the open-file pack below lists it
// with the reason that its path spells a word of the focused file's name (sharesName).
fs.mkdirSync(path.join(workspace, "test"));
fs.writeFileSync(
  path.join(workspace, "test/resolve.test.ts"),
  'import { AnchorResolver } from "../src/resolve";\n\ntest("resolves a TypeScript anchor", () => {\n  expect(new AnchorResolver().resolve({ path: "src/lang.ts" })).toBeDefined();\n});\n',
);
// Two commits (editors/test-history.sh): the resolver's anchor reviewed with the whole
// example, then `resolve` changed — what "Show changes since review" reads; the pack's
// history reasons (recent work, changedWith) come from them too.
execFileSync("bash", [path.join(repo, "editors/test-history.sh"), workspace, knit], {
  env: { ...process.env, KNIT_CACHE_DIR: path.join(tmp, "cache"), KNIT_STATE_DIR: path.join(tmp, "state") },
  stdio: "ignore",
});
// The second workspace: Rust, Python and Kotlin code described by one doc, its anchors
// recorded by the knit under test. Without knit.toml nothing but the languages'
// activation events can start the extension there, so those are under test too.
const polyglot = path.join(tmp, "polyglot");
fs.cpSync(path.join(repo, "fixtures/clients-polyglot"), polyglot, { recursive: true });
fs.rmSync(path.join(polyglot, "knit.toml"));
// A TSDoc symbol link (checked, never baselined): hovered below.
fs.writeFileSync(path.join(polyglot, "docs/links.md"), "# Links\n\nThe parser is {@link parse_config}.\n\nCall `parse_config()` once.\n");
let recorded = "";
try {
  recorded = execFileSync(knit, ["--root", polyglot, "anchors", "record"], { encoding: "utf8", env: { ...process.env, KNIT_CACHE_DIR: path.join(tmp, "cache"), KNIT_STATE_DIR: path.join(tmp, "state") } });
} catch (e) {
  recorded = String(e);
}
fs.mkdirSync(path.join(userData, "User"), { recursive: true });
fs.writeFileSync(
  path.join(userData, "User/settings.json"),
  JSON.stringify(
    {
      "security.workspace.trust.enabled": false,
      "knit.server.path": knit,
      // off by default; on here to see them in a real client
      "knit.codeLens.undocumented": true,
      "knit.diagnostics.codeMentions": true,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.enableExperiments": false,
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "chat.disableAIFeatures": true,
      "editor.hover.delay": 100,
    },
    null,
    2,
  ),
);

let server;
let browser;
let page;
try {
  if (!check("knit binary exists", fs.existsSync(knit), knit)) throw new Error("no knit");
  if (!check("code-server exists", codeServer && fs.existsSync(codeServer), codeServer)) throw new Error("no code-server");
  if (!check("knit.vsix exists", fs.existsSync(vsix), vsix)) throw new Error("no vsix");

  const install = execFileSync(codeServer, ["--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix], {
    encoding: "utf8",
    env: { ...process.env },
  });
  check("the .vsix installs into code-server", /successfully installed/i.test(install), install);

  const port = await freePort();
  const env = { ...process.env, KNIT_CACHE_DIR: path.join(tmp, "cache"), KNIT_STATE_DIR: path.join(tmp, "state") };
  server = spawn(
    codeServer,
    [
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", userData,
      "--extensions-dir", extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      workspace,
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let serverLog = "";
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));
  if (!check("code-server listens", await waitForHttp(`http://127.0.0.1:${port}/healthz`, TIMEOUT), serverLog)) throw new Error("no server");

  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: TIMEOUT });
  check("the workbench loads", true);

  // A quick-input row, clicked. The list can be re-laid out while Playwright waits for it
  // to be stable (a code lens or a hover settling in the editor below): after a short
  // wait the click goes through anyway (force) on the row that is there.
  const pickRow = async (text) => {
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first();
    await row.waitFor({ timeout: TIMEOUT });
    await row.click({ timeout: 10_000 }).catch(() => row.click({ force: true, timeout: TIMEOUT }));
  };
  // Opens a workspace file through quick open and waits for its tab. Tried up to three
  // times: on a loaded machine the quick-open list can re-render under the click (the file
  // search answers after the recently-opened list), and the pick is then lost.
  const openFile = async (rel) => {
    const name = path.basename(rel);
    const input = page.locator(".quick-input-widget input");
    const tab = page.locator(".tabs-container .tab.active", { hasText: name });
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press("Control+P");
      await input.waitFor({ timeout: TIMEOUT });
      await input.fill(rel);
      await pickRow(name);
      try {
        await tab.first().waitFor({ timeout: attempt < 3 ? 20_000 : TIMEOUT });
        return;
      } catch (e) {
        if (attempt >= 3) throw e;
        await page.keyboard.press("Escape");
      }
    }
  };
  const palette = async (command) => {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: TIMEOUT });
    await input.fill(`>${command}`);
    await pickRow(command);
  };

  // open the doc with quick open
  await page.locator(".monaco-workbench").click({ position: { x: 800, y: 500 } }).catch(() => {});
  await page.keyboard.press("Control+P");
  const quick = page.locator(".quick-input-widget input");
  // Puts the cursor at line:col of the editor whose text area `lines` is (clicked first so
  // the editor has focus; omitted when it already has), through Go to Line.
  const gotoPosition = async (line, col, { lines = null, settle = 300 } = {}) => {
    if (lines) await lines.click();
    await page.keyboard.press("Control+G");
    await quick.waitFor({ timeout: TIMEOUT });
    await quick.fill(`:${line}:${col}`);
    await page.keyboard.press("Enter");
    await page.waitForTimeout(settle);
  };
  await quick.waitFor({ timeout: TIMEOUT });
  await quick.fill("docs/architecture.md");
  await pickRow("architecture.md");
  await page.waitForSelector(".monaco-editor .view-lines", { timeout: TIMEOUT });

  // Problems view: knit's diagnostic on the stale anchor
  await palette("View: Focus Problems");
  const markers = page.locator(".markers-panel");
  let problems = "";
  try {
    await markers.getByText("changed since the doc was reviewed").first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below with what the panel shows
  }
  problems = (await markers.innerText().catch(() => "")) || "";
  await page.screenshot({ path: path.join(shots, "problems.png") });
  check("Problems view shows the stale anchor", problems.includes("`AnchorResolver.resolve` changed since the doc was reviewed") || problems.includes("AnchorResolver.resolve"), problems);
  check("Problems view shows the rename", problems.includes("pathLanguage"), problems);
  check("diagnostics come from knit", /knit/.test(problems), problems);

  // status bar: stale count from knit/status
  const statusbar = page.locator(".statusbar");
  try {
    await statusbar.getByText(/knit: .*stale/).first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  const statusText = await statusbar.innerText().catch(() => "");
  check("status bar shows the stale count", /knit: 1 stale/.test(statusText), statusText);

  // hover on the renamed anchor: go to line 6, col 30, and show hover
  await gotoPosition(6, 30, { lines: page.locator(".monaco-editor .view-lines").first() });
  await palette("Show or Focus Hover");
  let hover = "";
  try {
    await page.locator(".monaco-hover:visible", { hasText: "pathLanguage" }).first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  hover = (await page.locator(".monaco-hover:visible").allInnerTexts().catch(() => [])).join("\n");
  await page.screenshot({ path: path.join(shots, "hover.png") });
  check("hover on the renamed anchor shows pathLanguage", hover.includes("pathLanguage") && hover.includes("src/util/paths.ts"), hover);
  await page.keyboard.press("Escape");

  // Knit: Check workspace — counts in a notification
  await palette("Knit: Check workspace");
  const toasts = page.locator(".notifications-toasts");
  try {
    await toasts.getByText(/knit: .*stale/).first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  const toastText = await toasts.innerText().catch(() => "");
  check("Knit: Check workspace reports the counts", /knit: .*1 stale/.test(toastText), toastText);

  // Context Pack view in the explorer
  await palette("Knit: Show context pack");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: TIMEOUT });
  await input.fill("language registry lookup");
  await page.keyboard.press("Enter");
  const view = page.locator(".pane").filter({ has: page.locator(".pane-header", { hasText: /context pack/i }) });
  let viewText = "";
  try {
    await view.getByText("lang.ts").first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  viewText = await view.first().innerText().catch(() => "");
  await page.screenshot({ path: path.join(shots, "context-pack.png") });
  check("Context Pack view lists items", /lang\.ts/.test(viewText), viewText);
  check("Context Pack view shows tiers", /(Primary|Supporting|Related)\s*\d/.test(viewText), viewText);
  check("Context Pack view shows the task", /language registry lookup/.test(viewText), viewText);
  // Room for the pack: collapse the explorer's other sections. Then open the Related tier
  // and its last item (twisties, so nothing opens): every reason is a child row.
  for (const header of await page.locator(".pane-header[aria-expanded='true']").all()) {
    const label = await header.innerText().catch(() => "");
    if (!/context pack/i.test(label)) await header.click().catch(() => {});
  }
  await page.waitForTimeout(500);
  const related = view.locator(".monaco-list-row").filter({ hasText: /^Related/ }).first();
  if (await related.count()) {
    if ((await related.getAttribute("aria-expanded")) !== "true") await related.locator(".monaco-tl-twistie").click().catch(() => {});
    await page.waitForTimeout(500);
  }
  const lastItem = view.locator(".monaco-list-row").filter({ hasText: /^\d+\./ }).last();
  let expanded = "";
  if (await lastItem.count()) {
    await lastItem.locator(".monaco-tl-twistie").click({ timeout: TIMEOUT }).catch(() => {});
    try {
      await view.getByText(/changedWith: /).first().waitFor({ timeout: 10_000 });
    } catch {
      // reported below
    }
    expanded = await view.first().innerText().catch(() => "");
    await page.screenshot({ path: path.join(shots, "context-pack-reasons.png") });
    // collapse it again for the next checks
    await lastItem.locator(".monaco-tl-twistie").click().catch(() => {});
    await page.waitForTimeout(300);
  }
  if (process.env.KNIT_E2E_DEBUG) console.log(expanded);
  check("an expanded item lists its history reasons: recent work", /recent: changed in \d+ of the last/.test(expanded), expanded);
  check("an expanded item lists its history reasons: co-change", /changedWith: \S+ in \d+ of \d+ commits/.test(expanded), expanded);

  // pin the first item with its inline action: it moves to the Pinned section. The tree
  // must be at rest first: a row re-rendered between Playwright's actionability check and
  // its click leaves the click on the new row's label (which opens the file) instead of
  // the hover action, and the pin never happens.
  await settled(view);
  const row = view.locator(".monaco-list-row").filter({ hasText: /^1\./ }).first();
  if (await row.count()) {
    const pinnedName = ((await row.innerText()).match(/^1\.\s*(\S+?\.(?:ts|md))/) ?? [])[1] ?? "?";
    const tabBefore = await page.locator(".tabs-container .tab.active").innerText().catch(() => "");
    await row.hover();
    const pin = row.locator('.action-label[aria-label="Pin to context pack"]').first();
    await pin.waitFor({ state: "visible", timeout: TIMEOUT });
    await pin.click({ timeout: TIMEOUT });
    try {
      await view.getByText(/^Pinned/).first().waitFor({ timeout: TIMEOUT });
    } catch {
      // reported below
    }
    const afterPin = await view.first().innerText().catch(() => "");
    const tabAfter = await page.locator(".tabs-container .tab.active").innerText().catch(() => "");
    check("pinning an item (inline action) adds a Pinned section", /Pinned\s*1/.test(afterPin) && afterPin.includes(pinnedName), {
      pinnedName,
      afterPin,
      // a changed tab means the click opened the item instead of pinning it
      tabBefore,
      tabAfter,
    });
    await page.screenshot({ path: path.join(shots, "pinned.png") });
  } else {
    check("pinning an item (inline action) adds a Pinned section", false, viewText);
  }

  // click the first item: it opens at its passage
  const firstItem = view.locator(".monaco-list-row").filter({ hasText: /^1\./ }).first();
  if (await firstItem.count()) {
    await firstItem.click();
    await page.waitForTimeout(800);
    const tabs = await page.locator(".tabs-container").innerText().catch(() => "");
    check("clicking an item opens it", /\.ts|\.md/.test(tabs), tabs);
  } else {
    check("clicking an item opens it", false, viewText);
  }

  // Asks for a pack for `task` ("" ranks for the open editor), waits for the view to show
  // `shown`, expands the row matching `row` (its twistie, so nothing opens) and waits for
  // `reason` among its children. Returns the view's text, whatever happened.
  const packRowReasons = async (task, shown, row, reason) => {
    await palette("Knit: Show context pack");
    await input.waitFor({ timeout: TIMEOUT });
    await input.fill(task);
    await page.keyboard.press("Enter");
    try {
      await view.getByText(shown).first().waitFor({ timeout: TIMEOUT });
      await settled(view);
      const itemRow = view.locator(".monaco-list-row").filter({ hasText: row }).first();
      if ((await itemRow.getAttribute("aria-expanded")) !== "true") await itemRow.locator(".monaco-tl-twistie").click({ timeout: TIMEOUT });
      await view.getByText(reason).first().waitFor({ timeout: 10_000 });
    } catch {
      // reported by the caller's check
    }
    return await view.first().innerText().catch(() => "");
  };

  // A query word a path spells is a reason of its own: ask for the paths helper.
  const pathsText = await packRowReasons("normalise the paths", /normalise the paths/, /^\d+\.\s*paths\.ts/, /pathWords: /);
  check("an expanded item lists a query word its path spells (pathWords)", /pathWords: paths/.test(pathsText), pathsText);

  // An empty task ranks for the open editor: with the resolver focused, its test in
  // another folder is listed because its path spells the word "resolve" (sharesName).
  await openFile("src/resolve.ts");
  const namesakeText = await packRowReasons("", /^Open files:/, /resolve\.test\.ts/, /sharesName: /);
  await page.screenshot({ path: path.join(shots, "context-pack-open-file.png") });
  check("an open-file pack lists a file elsewhere named like it (sharesName)", /Open files:/.test(namesakeText) && /sharesName: resolve/.test(namesakeText), namesakeText);

  // ---- reviewing drift: the stale resolver anchor (line 3) has history ----------------
  // Back to the doc, cursor inside the stale anchor's link.
  await openFile("docs/architecture.md");
  const docEditor = page.locator(".editor-group-container.active .monaco-editor").first();
  const gotoStale = async () => {
    await gotoPosition(3, 40, { lines: docEditor.locator(".view-lines") });
  };
  // The hover says which commit holds the reviewed version, the commit since, the diff.
  await gotoStale();
  await palette("Show or Focus Hover");
  try {
    await page.locator(".monaco-hover:visible", { hasText: "Reviewed as of" }).first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  const staleHover = (await page.locator(".monaco-hover:visible").allInnerTexts().catch(() => [])).join("\n");
  // The editor with its hover, as editors/vscode/media/hover-diff.png shows it.
  const hoverBox = await page.locator(".monaco-hover:visible").first().boundingBox().catch(() => null);
  const editorBox = await docEditor.boundingBox().catch(() => null);
  const clip = hoverBox && editorBox ? { x: editorBox.x, y: editorBox.y, width: editorBox.width, height: Math.min(hoverBox.y + hoverBox.height + 16, 1000) - editorBox.y } : undefined;
  await page.screenshot({ path: path.join(shots, "hover-diff.png"), ...(clip ? { clip } : {}) });
  check(
    "hover on the stale anchor shows the reviewed commit, the commit since and the diff",
    /Reviewed as of \S+ \(\d{4}-\d\d-\d\d, Example workspace\)/.test(staleHover) &&
      staleHover.includes("Resolver: name the unsupported language") &&
      staleHover.includes("unsupported language: ${anchor.path}"),
    staleHover,
  );
  await page.keyboard.press("Escape");
  // Knit: Show changes since review (the code action runs the same command) opens the
  // declaration's diff as a knit-diff: document beside the doc.
  await gotoStale();
  await palette("Knit: Show changes since review");
  const diffTab = page.locator(".tabs-container .tab", { hasText: "AnchorResolver.resolve.diff" }).first();
  try {
    await diffTab.waitFor({ timeout: TIMEOUT });
    await page.locator(".editor-group-container.active .view-lines", { hasText: "Reviewed as of" }).first().waitFor({ timeout: 10_000 });
  } catch {
    // reported below
  }
  // Monaco renders spaces as no-break spaces.
  const diffText = (await page.locator(".editor-group-container.active .view-lines").first().innerText().catch(() => "")).replace(/\u00a0/g, " ");
  await page.screenshot({ path: path.join(shots, "changes-since-review.png") });
  check(
    "Show changes since review opens the declaration's diff",
    (await diffTab.count()) > 0 && diffText.includes("Reviewed as of") && diffText.includes("Resolver: name the unsupported language") && /\+\s*return `unsupported language/.test(diffText),
    diffText,
  );
  // The lightbulb's list offers it too, next to the fixes.
  await palette("View: Close Editor");
  await page.locator(".tabs-container .tab.active", { hasText: "architecture.md" }).waitFor({ timeout: TIMEOUT }).catch(() => {});
  await gotoStale();
  await page.keyboard.press("Control+.");
  const actionList = page.locator(".action-widget, .context-view .monaco-list").first();
  await actionList.waitFor({ timeout: TIMEOUT }).catch(() => {});
  const actionsText = await actionList.innerText().catch(() => "");
  check("the code actions offer Show changes since review and Rebind … to…", actionsText.includes("Show changes since review") && /Rebind .* to…/.test(actionsText), actionsText);
  await page.keyboard.press("Escape");
  // Knit: Rebind anchor to… lists every declaration, most alike first, with why; the
  // pick is applied to the doc.
  await gotoStale();
  await palette("Knit: Rebind anchor to…");
  const pickRows = page.locator(".quick-input-list .monaco-list-row");
  try {
    await pickRows.filter({ hasText: "alike" }).first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  const picker = (await page.locator(".quick-input-list").innerText().catch(() => "")) || "";
  await page.screenshot({ path: path.join(shots, "rebind-picker.png") });
  check("Rebind anchor to… lists declarations with how alike and why", /AnchorResolver/.test(picker) && /\d+% alike: name shares/.test(picker), picker);
  await quick.fill("LanguageRegistry.lookup");
  await page.waitForTimeout(300);
  await page.keyboard.press("Enter");
  try {
    await docEditor.locator(".view-lines", { hasText: "#LanguageRegistry.lookup" }).waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  const rebound = (await docEditor.locator(".view-lines").innerText().catch(() => "")).replace(/\u00a0/g, " ");
  check("the picked declaration is applied to the doc", rebound.includes("lang.ts#LanguageRegistry.lookup"), rebound);
  // Leave the doc as it was (the workspace is reused by nothing after this, but keep it honest).
  await page.keyboard.press("Control+Z");

  // Completion in a link destination: typing `/` opens the next folder level, the
  // accepted file replaces only its segment; after `Class.` the members, and the
  // accepted one is born recorded (its "knit:" title written).
  await docEditor.locator(".view-lines").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("[x](../src/");
  const suggest = page.locator(".editor-widget.suggest-widget .monaco-list-row");
  const accept = async (label) => {
    const row = suggest.filter({ hasText: label }).first();
    await row.waitFor({ timeout: TIMEOUT });
    const rows = (await suggest.allInnerTexts().catch(() => [])).join(" | ");
    await row.click();
    await page.waitForTimeout(300);
    return rows;
  };
  let offeredPaths = "";
  try {
    offeredPaths = await accept("resolve.ts");
  } catch {
    // reported below
  }
  await page.keyboard.type("#AnchorResolver.");
  let offeredMembers = "";
  try {
    offeredMembers = await accept("AnchorResolver.resolve");
  } catch {
    // reported below
  }
  const completed = (await docEditor.locator(".view-lines").innerText().catch(() => "")).replace(/\u00a0/g, " ");
  await page.screenshot({ path: path.join(shots, "completion.png") });
  check("completion after ../src/ offers the folder's files and folders", /resolve\.ts/.test(offeredPaths) && /util\//.test(offeredPaths), offeredPaths);
  check(
    "accepting a file then a member writes the anchor once, born recorded",
    completed.includes('[x](../src/resolve.ts#AnchorResolver.resolve "knit:') && !completed.includes("src/../src"),
    { offeredMembers, completed },
  );
  for (let i = 0; i < 6; i++) await page.keyboard.press("Control+Z");

  // ---- the code side in Rust, Python and Kotlin (the second workspace) ----------------
  check("knit anchors record baselines the polyglot doc", /recorded [1-9]\d* baseline/.test(recorded), recorded);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(polyglot)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: TIMEOUT });
  await page.locator(".monaco-workbench").click({ position: { x: 800, y: 500 } }).catch(() => {});
  const editor = page.locator(".editor-group-container.active .monaco-editor").first();
  const peek = page.locator(".peekview-widget:visible");
  // The references peek, opened by `open`: its text (file list and preview), then closed.
  const peekText = async (open) => {
    await open();
    try {
      await peek.first().getByText("config.md").first().waitFor({ timeout: TIMEOUT });
      await page.waitForTimeout(300);
    } catch {
      // reported by the caller with what is shown
    }
    const text = (await peek.allInnerTexts().catch(() => [])).join("\n");
    await page.keyboard.press("Escape");
    await peek.first().waitFor({ state: "hidden", timeout: 10_000 }).catch(() => {});
    return text;
  };
  const cases = [
    { lang: "Rust", file: "src/config.rs", decl: "pub fn parse_config", name: "parse_config", docLine: 3, references: true, undocumented: "default_port" },
    { lang: "Python", file: "tools/report.py", decl: "def render_report", name: "render_report", docLine: 6, references: true },
    { lang: "Kotlin", file: "app/Greeting.kt", decl: "fun greeting", name: "greeting", docLine: 10, references: false },
  ];
  for (const c of cases) {
    await openFile(c.file);
    const want = `described by 1 doc line: docs/config.md:${c.docLine}`;
    const lens = editor.locator(".codelens-decoration a", { hasText: want }).first();
    try {
      await lens.waitFor({ timeout: TIMEOUT });
    } catch {
      // reported below
    }
    const lenses = (await editor.locator(".codelens-decoration").allInnerTexts().catch(() => [])).join(" | ");
    const mode = await page.locator(".statusbar").innerText().catch(() => "");
    await page.screenshot({ path: path.join(shots, `lens-${c.lang.toLowerCase()}.png`) });
    check(`${c.lang}: the file opens in ${c.lang} mode`, mode.includes(c.lang), mode);
    if (c.undocumented) {
      check(`${c.lang}: a public declaration no doc anchors has a "not documented" lens (knit.codeLens.undocumented)`, lenses.includes(`not documented: no doc anchors ${c.undocumented}`), lenses);
    }
    if (!check(`${c.lang}: code lens on ${c.name} names the doc line`, lenses.includes(want), lenses) || !c.references) continue;
    // clicking the lens opens the references peek on the doc line
    const fromLens = await peekText(() => lens.click());
    check(`${c.lang}: clicking the lens peeks at docs/config.md`, /config\.md/.test(fromLens) && fromLens.includes(c.name), fromLens);
    // Go to References (Shift+F12) on the declaration's name: knit's only answer is the doc
    // line, and with one reference VS Code goes straight there (several would peek).
    const lines = fs.readFileSync(path.join(polyglot, c.file), "utf8").split("\n");
    const lineNo = lines.findIndex((l) => l.includes(c.decl)) + 1;
    const col = lines[lineNo - 1].indexOf(c.name) + 2;
    await gotoPosition(lineNo, col, { lines: editor.locator(".view-lines") });
    await page.keyboard.press("Shift+F12");
    const at = new RegExp(`Ln ${c.docLine}, Col \\d+`);
    try {
      await page.locator(".tabs-container .tab.active", { hasText: "config.md" }).waitFor({ timeout: TIMEOUT });
      await page.locator(".statusbar").getByText(at).first().waitFor({ timeout: 10_000 });
    } catch {
      // reported below
    }
    const tab = await page.locator(".tabs-container .tab.active").innerText().catch(() => "");
    const position = await page.locator(".statusbar").innerText().catch(() => "");
    const peeked = (await peek.allInnerTexts().catch(() => [])).join("\n");
    await page.screenshot({ path: path.join(shots, `references-${c.lang.toLowerCase()}.png`) });
    check(`${c.lang}: Go to References on ${c.name} goes to docs/config.md:${c.docLine}`, tab.includes("config.md") && at.test(position), { tab, position, peeked });
    await page.keyboard.press("Escape");
  }

  // A TSDoc {@link} in Markdown: the hover names the declaration it resolves to and says
  // symbol links carry no baseline.
  await openFile("docs/links.md");
  await gotoPosition(3, 24, { lines: editor.locator(".view-lines") });
  await palette("Show or Focus Hover");
  try {
    await page.locator(".monaco-hover:visible", { hasText: "parse_config" }).first().waitFor({ timeout: TIMEOUT });
  } catch {
    // reported below
  }
  const linkHover = (await page.locator(".monaco-hover:visible").allInnerTexts().catch(() => [])).join("\n");
  await page.screenshot({ path: path.join(shots, "symbol-link-hover.png") });
  check("hover on a TSDoc {@link} names the declaration it resolves to", /TSDoc/.test(linkHover) && linkHover.includes("src/config.rs") && /no baseline/.test(linkHover), linkHover);
  await page.keyboard.press("Escape");
  // knit.diagnostics.codeMentions: inline code naming one declaration has a quick fix
  // (offered from its hint) that turns it into a recorded anchor.
  await gotoPosition(5, 8, { settle: 1500 });
  await page.keyboard.press("Control+.");
  const fixes = page.locator(".action-widget, .context-view .monaco-list").first();
  const convert = fixes.locator(".monaco-list-row, .action-item", { hasText: "Convert `parse_config()` to an anchor" }).first();
  let fixList = "";
  try {
    await convert.waitFor({ timeout: TIMEOUT });
    fixList = await fixes.innerText().catch(() => "");
    // the only fix here, and focused: Enter applies it (as a keyboard user would)
    await page.keyboard.press("Enter");
    await editor.locator(".view-lines", { hasText: "config.rs#parse_config" }).waitFor({ timeout: TIMEOUT });
  } catch {
    fixList = fixList || (await fixes.innerText().catch(() => ""));
  }
  const converted = (await editor.locator(".view-lines").innerText().catch(() => "")).replace(/\u00a0/g, " ");
  check("a code mention's quick fix converts it into a recorded anchor (knit.diagnostics.codeMentions)", converted.includes("[`parse_config()`](../src/config.rs#parse_config \"knit:"), { fixList, converted });
  await page.keyboard.press("Control+Z");
} catch (e) {
  await page?.screenshot({ path: path.join(shots, "failure.png") }).catch(() => {});
  check("e2e run completed", false, e && e.stack ? e.stack : String(e));
} finally {
  if (failed) {
    // The workbench's own logs (extension host, renderer) say why a view did not update.
    try {
      fs.cpSync(path.join(userData, "logs"), path.join(shots, "code-server-logs"), { recursive: true });
    } catch {
      // no logs written yet
    }
  }
  if (failed || keepShots) {
    console.log(`# screenshots in ${shots}`);
  } else {
    fs.rmSync(shots, { recursive: true, force: true });
  }
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  try {
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (e) {
    console.log(`# could not remove ${tmp}: ${e.message}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
