// The data side of reviewing drift in VS Code (no `vscode` import, so unit tests run in
// plain Node): the server's answers, the `knit-diff:` URI that names one anchor's
// changes, the quick pick items of "Rebind to…", and which code-action commands the
// extension runs itself.

export type LspPosition = { line: number; character: number };

/** `knit.changesSinceReview`'s answer. */
export interface ChangesResult {
  anchor: string;
  doc: string;
  title: string;
  text: string | null;
  message?: string;
}

/** One target of `knit.rebindCandidates`. */
export interface RebindItem {
  label: string;
  description: string;
  detail: string;
  path: string;
  symbol: string;
  line: number;
  kind: string;
  similarity: number;
  why: string;
}

export interface RebindList {
  anchor: string;
  doc: string;
  items: RebindItem[];
}

/** The server commands whose result the extension shows, and its own command for each. */
export const CLIENT_COMMANDS: Record<string, string> = {
  "knit.changesSinceReview": "knit.showChangesSinceReview",
  "knit.rebindCandidates": "knit.rebindTo",
};

/**
 * The `knit-diff:` path and query of an anchor's changes: the path reads as the anchor
 * (a readable tab title, `.diff` so VS Code highlights it), the query says which doc
 * position to ask the server about.
 */
export function changesUri(anchor: string, doc: string, position: LspPosition): { path: string; query: string } {
  const name = anchor.replace(/^(\.\.\/)+/, "").replace(/[^A-Za-z0-9._#-]+/g, "_") || "anchor";
  return { path: `/${name}.diff`, query: JSON.stringify({ doc, line: position.line, character: position.character }) };
}

/** The doc and position a `knit-diff:` URI names, or undefined when it names none. */
export function splitChangesUri(path: string, query: string): { doc: string; position: LspPosition } | undefined {
  if (!path.endsWith(".diff")) {
    return undefined;
  }
  try {
    const q = JSON.parse(query) as { doc?: unknown; line?: unknown; character?: unknown };
    if (typeof q.doc !== "string" || typeof q.line !== "number" || typeof q.character !== "number") {
      return undefined;
    }
    return { doc: q.doc, position: { line: q.line, character: q.character } };
  } catch {
    return undefined;
  }
}

/** A quick pick item of "Rebind to…" and the target it stands for. */
export interface RebindPick {
  label: string;
  description: string;
  detail: string;
  alwaysShow: boolean;
  path: string;
  symbol: string;
}

/** Quick pick items, in the server's order (most alike first; the first three stay in view while the user filters). */
export function rebindPickItems(list: RebindList): RebindPick[] {
  return (list.items ?? []).map((i, n) => ({
    label: i.label,
    description: i.description,
    detail: i.detail,
    alwaysShow: n < 3,
    path: i.path,
    symbol: i.symbol,
  }));
}
