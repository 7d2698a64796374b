// Makes a real behavioural edit: inserts a statement at the start of the body of the
// top-level function (implementation, not an overload signature) named <name> in <file>.
// usage: node control-edit.js <tools-dir> <file> <name>
'use strict';
const fs = require('fs');
const path = require('path');
const [toolsDir, file, name] = process.argv.slice(2);
const ts = require(path.join(toolsDir, 'node_modules', 'typescript'));
const text = fs.readFileSync(file, 'utf8');
const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
for (const st of sf.statements) {
  if (ts.isFunctionDeclaration(st) && st.name && st.name.text === name && st.body) {
    const at = st.body.getStart(sf) + 1; // just after "{"
    fs.writeFileSync(file, text.slice(0, at) + '\n  console.debug("knit formatter control edit");' + text.slice(at));
    process.exit(0);
  }
}
console.error(`control-edit: no function ${name} with a body in ${file}`);
process.exit(1);
