// Enumerates anchorable TypeScript declarations with the `typescript` package's parser
// (test tooling only; knit never runs this) and writes one Markdown doc per package.
//
// usage: node enumerate.js <tools-dir> <workspace> <src-subdir>...
// Writes <workspace>/docs/<pkg>.md and prints a JSON list of anchors to stdout:
//   [{doc, line, path, fragment, kind}]
'use strict';
const fs = require('fs');
const path = require('path');

const [toolsDir, ws, ...srcDirs] = process.argv.slice(2);
const ts = require(path.join(toolsDir, 'node_modules', 'typescript'));
const IDENT = /^[A-Za-z_$][\w$]*$/;

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|mts|cts)$/.test(e.name) && !/\.d\.[mc]?ts$/.test(e.name)) out.push(p);
  }
  return out;
}

function nameOf(node) {
  return node.name && ts.isIdentifier(node.name) ? node.name.text : undefined;
}

function isFunctionInit(init) {
  return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init));
}

// Returns [{fragment, kind}] for one source file.
function declarations(sf) {
  const out = [];
  // Top-level names: every declaring statement counts, so merged declarations
  // (class + namespace, function + namespace, interface + class) are skipped.
  const top = new Map();
  const note = (name, kind, node) => {
    if (!name) return;
    if (!top.has(name)) top.set(name, []);
    top.get(name).push({ kind, node });
  };
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st)) note(nameOf(st), 'function', st);
    else if (ts.isClassDeclaration(st)) note(nameOf(st), 'class', st);
    else if (ts.isInterfaceDeclaration(st)) note(nameOf(st), 'interface', st);
    else if (ts.isTypeAliasDeclaration(st)) note(nameOf(st), 'type', st);
    else if (ts.isEnumDeclaration(st)) note(nameOf(st), 'enum', st);
    else if (ts.isModuleDeclaration(st)) note(nameOf(st), 'namespace', st);
    else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name)) note(d.name.text, isFunctionInit(d.initializer) ? 'arrow' : 'variable', d);
      }
    }
  }
  for (const [name, decls] of top) {
    if (!IDENT.test(name)) continue;
    const kinds = new Set(decls.map((d) => d.kind));
    if (kinds.size !== 1) continue; // declaration merging: skip
    const kind = decls[0].kind;
    if (kind === 'function') {
      out.push({ fragment: name, kind }); // an overload group is one declaration
    } else if (kind === 'arrow' && decls.length === 1) {
      out.push({ fragment: name, kind });
    } else if (kind === 'class' && decls.length === 1) {
      out.push({ fragment: name, kind });
      const members = new Map();
      for (const m of decls[0].node.members) {
        const mname = nameOf(m);
        if (!mname || !IDENT.test(mname)) continue;
        let mkind;
        if (ts.isMethodDeclaration(m)) mkind = 'method';
        else if (ts.isGetAccessorDeclaration(m)) mkind = 'get';
        else if (ts.isSetAccessorDeclaration(m)) mkind = 'set';
        else if (ts.isPropertyDeclaration(m)) mkind = isFunctionInit(m.initializer) ? 'arrow-property' : 'property';
        else continue;
        const isStatic = (ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static) !== 0;
        if (!members.has(mname)) members.set(mname, []);
        members.get(mname).push({ mkind, isStatic });
      }
      for (const [mname, ms] of members) {
        const mk = new Set(ms.map((x) => x.mkind));
        const st = new Set(ms.map((x) => x.isStatic));
        if (st.size !== 1) continue; // static and instance member of one name
        if (mk.size === 1 && mk.has('method')) out.push({ fragment: `${name}.${mname}`, kind: 'method' });
        else if (mk.size === 1 && mk.has('arrow-property') && ms.length === 1) out.push({ fragment: `${name}.${mname}`, kind: 'arrow-property' });
        else if ([...mk].every((k) => k === 'get' || k === 'set')) {
          for (const k of ['get', 'set']) {
            if (ms.filter((x) => x.mkind === k).length === 1) out.push({ fragment: `${k}:${name}.${mname}`, kind: k });
          }
        }
      }
    }
  }
  return out;
}

const all = [];
fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
for (const srcDir of srcDirs) {
  const abs = path.join(ws, srcDir);
  const docRel = `docs/${path.basename(srcDir)}.md`;
  const lines = [`# ${path.basename(srcDir)} API`, ''];
  for (const file of walk(abs, [])) {
    const text = fs.readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    if (sf.parseDiagnostics && sf.parseDiagnostics.length) continue;
    const rel = path.relative(ws, file).split(path.sep).join('/');
    const decls = declarations(sf);
    if (!decls.length) continue;
    lines.push(`## ${rel}`, '');
    for (const d of decls) {
      lines.push(`- [${d.fragment}](../${rel}#${d.fragment})`);
      all.push({ doc: docRel, line: lines.length, path: rel, fragment: d.fragment, kind: d.kind });
    }
    lines.push('');
  }
  fs.writeFileSync(path.join(ws, docRel), lines.join('\n'));
}
process.stdout.write(JSON.stringify(all, null, 1) + '\n');
