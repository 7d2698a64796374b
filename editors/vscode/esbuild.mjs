// Bundles the extension and vscode-languageclient into dist/extension.js (the .vsix then
// needs no node_modules). `vscode` is provided by the editor at run time.
import { build } from "esbuild";

await build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node18",
  sourcemap: true,
  minify: process.argv.includes("--minify"),
  logLevel: "warning",
});
