// End-to-end test of the packaged extension in a real VS Code (code-server), driven by
// playwright-core and the system's Chromium. Installs knit.vsix, opens a copy of
// fixtures/example, and checks what a user sees: knit's diagnostics in the Problems
// view, the hover on a renamed anchor, the status bar count, and the Context Pack view.
//
// Usage: node test/e2e/run.mjs --knit /path/to/knit --code-server /path/to/code-server
//        [--vsix knit.vsix] [--chromium /usr/bin/chromium] [--shots DIR]
// Prints "ok"/"not ok" lines and ends with "N passed, N failed".

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
const shots = arg("shots", fs.mkdtempSync(path.join(os.tmpdir(), "knit-e2e-shots-")));
const TIMEOUT = 60_000;

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
// One commit of history: the pack's history reasons (recent work, changedWith) appear.
const git = (...args) =>
  execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", ...args], {
    cwd: workspace,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdio: "ignore",
  });
git("init", "-q");
git("add", "-A");
git("commit", "-qm", "Example workspace");
fs.mkdirSync(path.join(userData, "User"), { recursive: true });
fs.writeFileSync(
  path.join(userData, "User/settings.json"),
  JSON.stringify(
    {
      "security.workspace.trust.enabled": false,
      "knit.server.path": knit,
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

  const palette = async (command) => {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: TIMEOUT });
    await input.fill(`>${command}`);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: command }).first().click({ timeout: TIMEOUT });
  };

  // open the doc with quick open
  await page.locator(".monaco-workbench").click({ position: { x: 800, y: 500 } }).catch(() => {});
  await page.keyboard.press("Control+P");
  const quick = page.locator(".quick-input-widget input");
  await quick.waitFor({ timeout: TIMEOUT });
  await quick.fill("docs/architecture.md");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "architecture.md" }).first().click({ timeout: TIMEOUT });
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
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+G");
  await quick.waitFor({ timeout: TIMEOUT });
  await quick.fill(":6:30");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(300);
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

  // pin the first item with its inline action: it moves to the Pinned section
  const row = view.locator(".monaco-list-row").filter({ hasText: /^1\./ }).first();
  if (await row.count()) {
    const pinnedName = ((await row.innerText()).match(/^1\.\s*(\S+?\.(?:ts|md))/) ?? [])[1] ?? "?";
    await row.hover();
    await row.locator('.action-label[aria-label="Pin to context pack"]').first().click({ timeout: TIMEOUT });
    try {
      await view.getByText(/^Pinned/).first().waitFor({ timeout: TIMEOUT });
    } catch {
      // reported below
    }
    const afterPin = await view.first().innerText().catch(() => "");
    check("pinning an item (inline action) adds a Pinned section", /Pinned\s*1/.test(afterPin) && afterPin.includes(pinnedName), { pinnedName, afterPin });
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
  console.log(`# screenshots in ${shots}`);
} catch (e) {
  await page?.screenshot({ path: path.join(shots, "failure.png") }).catch(() => {});
  check("e2e run completed", false, e && e.stack ? e.stack : String(e));
} finally {
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
