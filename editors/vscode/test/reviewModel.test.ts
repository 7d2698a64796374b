// Unit tests of the review model (no VS Code instance): the knit-diff URI round trip,
// the rebind quick pick items, and which code-action commands the extension runs.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { changesUri, CLIENT_COMMANDS, rebindPickItems, splitChangesUri } from "../src/reviewModel";

test("a knit-diff URI names its anchor and round-trips the doc position", () => {
  const doc = "file:///w/docs/a%20b.md";
  const u = changesUri("../src/cart.ts#Cart.total", doc, { line: 3, character: 17 });
  assert.equal(u.path, "/src_cart.ts#Cart.total.diff");
  assert.deepEqual(splitChangesUri(u.path, u.query), { doc, position: { line: 3, character: 17 } });
  assert.equal(splitChangesUri("/x.txt", u.query), undefined);
  assert.equal(splitChangesUri(u.path, "not json"), undefined);
  assert.equal(splitChangesUri(u.path, JSON.stringify({ doc, line: "3" })), undefined);
});

test("rebind items keep the server's order and always show the three most alike", () => {
  const item = (symbol: string, similarity: number) => ({
    label: symbol,
    description: `src/a.ts:1 · function`,
    detail: `${similarity}% alike`,
    path: "src/a.ts",
    symbol,
    line: 1,
    kind: "function",
    similarity,
    why: "",
  });
  const items = rebindPickItems({ anchor: "a", doc: "d.md:1", items: [item("a", 90), item("b", 80), item("c", 50), item("d", 10)] });
  assert.deepEqual(items.map((i) => [i.symbol, i.alwaysShow]), [["a", true], ["b", true], ["c", true], ["d", false]]);
  assert.deepEqual(rebindPickItems({ anchor: "a", doc: "d", items: [] }), []);
});

test("the server commands the extension shows map to its own commands", () => {
  assert.equal(CLIENT_COMMANDS["knit.changesSinceReview"], "knit.showChangesSinceReview");
  assert.equal(CLIENT_COMMANDS["knit.rebindCandidates"], "knit.rebindTo");
  assert.equal(CLIENT_COMMANDS["knit.rebind"], undefined);
});
