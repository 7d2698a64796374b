// The buffers and files knit is told about: Markdown and every language knit reads
// declarations from. Pure (no `vscode` import) so the unit tests can hold it against
// package.json's activation events and the server's own list of extensions — a language
// missing here gets no code lens, references or will-go-stale hint in VS Code.

/** VS Code language ids of the documents the client syncs to `knit lsp`. */
export const LANGUAGES = [
  "markdown",
  "typescript",
  "typescriptreact",
  "javascript",
  "javascriptreact",
  "swift",
  "rust",
  "python",
  "go",
  "kotlin",
];

/** File extensions whose changes on disk the server hears about (docs and code). */
export const WATCHED_EXTENSIONS = ["md", "markdown", "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "swift", "rs", "py", "pyi", "go", "kt", "kts"];

export const WATCH_GLOB = `**/*.{${WATCHED_EXTENSIONS.join(",")}}`;
