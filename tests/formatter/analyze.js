// Reads `knit check --format json` output and the enumerated anchors, prints a summary.
// usage: node analyze.js <check.json> <anchors.json> [--only-fresh-in <baseline-check.json>] [--expect-stale DOC:LINE]
// Prints one JSON line: {total, considered, notFresh, staleOk}
'use strict';
const fs = require('fs');
const args = process.argv.slice(2);
const check = JSON.parse(fs.readFileSync(args[0], 'utf8'));
const anchors = JSON.parse(fs.readFileSync(args[1], 'utf8'));
let onlyFresh = null;
let expectStale = null;
for (let i = 2; i < args.length; i++) {
  if (args[i] === '--only-fresh-in') {
    const base = JSON.parse(fs.readFileSync(args[++i], 'utf8'));
    onlyFresh = new Set(base.anchors.filter((a) => a.state === 'fresh').map((a) => `${a.doc}:${a.line}:${a.id}`));
  } else if (args[i] === '--expect-stale') expectStale = args[++i];
}
const key = (a) => `${a.doc}:${a.line}:${a.id}`;
const wanted = new Set(anchors.map((a) => `${a.doc}:${a.line}`));
const reported = (check.anchors || []).filter((a) => wanted.has(`${a.doc}:${a.line}`));
let considered = 0;
let staleOk = null;
const bad = [];
for (const a of reported) {
  const where = `${a.doc}:${a.line}`;
  if (expectStale && where === expectStale) {
    staleOk = a.state === 'stale';
    if (!staleOk) bad.push(a);
    continue;
  }
  if (onlyFresh && !onlyFresh.has(key(a))) continue;
  considered++;
  if (a.state !== 'fresh') bad.push(a);
}
const missing = anchors.length - reported.length;
for (const a of bad.slice(0, 15)) {
  const t = a.target || {};
  console.error(`    ${a.state.padEnd(13)} ${a.doc}:${a.line} -> ${t.path}#${t.symbol || (t.lines || []).join('-')}` +
    (a.detail ? ` ${JSON.stringify(a.detail).slice(0, 200)}` : ''));
}
if (bad.length > 15) console.error(`    … and ${bad.length - 15} more`);
if (expectStale && staleOk === null) console.error(`    control anchor ${expectStale} not reported`);
console.log(JSON.stringify({ total: anchors.length, reported: reported.length, missing, considered, notFresh: bad.length - (staleOk === false ? 1 : 0), staleOk, complete: check.complete }));
