// Unit tests of the language lists (no VS Code instance): the document selector, the
// activation events and the file watcher cover Markdown and every language knit reads, as
// the server itself lists them — so a language added to knit cannot be left out here.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { LANGUAGES, WATCH_GLOB, WATCHED_EXTENSIONS } from "../src/languages";

const extDir = path.join(__dirname, "../..");
const langDir = path.join(extDir, "../../server/knit-syntax/src/lang");
const pkg = JSON.parse(fs.readFileSync(path.join(extDir, "package.json"), "utf8")) as {
  activationEvents: string[];
  contributes: { languages?: { id: string; extensions?: string[] }[] };
};

/** Extensions knit reads code from: the `extensions` of every language descriptor of
 * knit-syntax (`extensions: &["ts", "mts", "cts"],`). */
function serverExtensions(): string[] {
  const found = new Set<string>();
  for (const name of fs.readdirSync(langDir)) {
    const src = fs.readFileSync(path.join(langDir, name), "utf8");
    for (const m of src.matchAll(/\bextensions: &\[([\s\S]*?)\]/g)) {
      for (const e of m[1].matchAll(/"([A-Za-z0-9]+)"/g)) {
        found.add(e[1]);
      }
    }
  }
  return [...found].sort();
}

test("the watcher covers Markdown and exactly the extensions knit reads", { skip: !fs.existsSync(langDir) && "no server sources next to the extension" }, () => {
  const code = serverExtensions();
  assert.ok(code.includes("ts") && code.includes("rs"), `knit-syntax parsed: ${code.join(",")}`);
  assert.deepEqual([...WATCHED_EXTENSIONS].sort(), [...code, "markdown", "md"].sort());
  assert.equal(WATCH_GLOB, `**/*.{${WATCHED_EXTENSIONS.join(",")}}`);
});

test("every language knit reads is in the document selector", () => {
  for (const id of ["markdown", "typescript", "typescriptreact", "javascript", "javascriptreact", "swift", "rust", "python", "go", "kotlin"]) {
    assert.ok(LANGUAGES.includes(id), id);
  }
});

test("package.json activates on each selected language", () => {
  const onLanguage = pkg.activationEvents.filter((e) => e.startsWith("onLanguage:")).map((e) => e.slice("onLanguage:".length));
  assert.deepEqual(onLanguage, LANGUAGES);
});

test("Kotlin files get a language id without a Kotlin extension installed (VS Code has none built in)", () => {
  const kotlin = pkg.contributes.languages?.find((l) => l.id === "kotlin");
  assert.deepEqual(kotlin?.extensions, [".kt", ".kts"]);
});
