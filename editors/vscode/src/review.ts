// Reviewing drift: the two server commands whose result LSP has no UI for.
// - "Show changes since review" (`knit.changesSinceReview [uri, position]`): the server
//   gives the declaration's diff since the doc was reviewed, with the reviewed commit and
//   the commits since; it opens as a read-only `knit-diff:` document (a .diff, so VS Code
//   highlights it).
// - "Rebind to…" (`knit.rebindCandidates [uri, position]`): every declaration of the
//   workspace, ranked by likeness with why; the pick goes back as `knit.rebind`.
// Both are reachable from the server's code actions (the middleware in extension.ts maps
// their commands here) and from the command palette at the cursor.

import * as vscode from "vscode";
import { changesUri, ChangesResult, RebindList, rebindPickItems, splitChangesUri } from "./reviewModel";

export const DIFF_SCHEME = "knit-diff";

export interface ServerCommands {
  command(base: string, args: unknown[]): Promise<unknown>;
}

type LspPosition = { line: number; character: number };

/** The anchor a command is about: its arguments, else the active editor's cursor. */
function target(uri?: unknown, position?: unknown): [string, LspPosition] {
  if (typeof uri === "string" && position && typeof position === "object") {
    return [uri, position as LspPosition];
  }
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "markdown") {
    throw new Error("put the cursor on an anchor in a Markdown file");
  }
  const p = editor.selection.active;
  return [editor.document.uri.toString(), { line: p.line, character: p.character }];
}

/** Serves `knit-diff:` documents: each asks the server again, so a reopened one is current. */
export class ChangesProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly server: ServerCommands) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const at = splitChangesUri(uri.path, uri.query);
    if (!at) {
      return "knit: this is not a changes-since-review document";
    }
    const r = (await this.server.command("knit.changesSinceReview", [at.doc, at.position])) as ChangesResult;
    return r.text ?? `knit: ${r.message ?? "no changes to show"}\n`;
  }
}

export async function showChangesSinceReview(server: ServerCommands, uri?: unknown, position?: unknown): Promise<vscode.TextEditor | undefined> {
  const [doc, pos] = target(uri, position);
  // Ask first: when history holds no reviewed version, say so instead of opening an empty diff.
  const r = (await server.command("knit.changesSinceReview", [doc, pos])) as ChangesResult;
  if (r.text == null) {
    void vscode.window.showInformationMessage(`Knit: ${r.message ?? "no changes to show"}`);
    return undefined;
  }
  const { path, query } = changesUri(r.anchor, doc, pos);
  const virtual = vscode.Uri.from({ scheme: DIFF_SCHEME, path, query });
  const document = await vscode.workspace.openTextDocument(virtual);
  return vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

export async function rebindTo(server: ServerCommands, uri?: unknown, position?: unknown): Promise<unknown> {
  const [doc, pos] = target(uri, position);
  const list = (await server.command("knit.rebindCandidates", [doc, pos])) as RebindList;
  const items = rebindPickItems(list);
  if (items.length === 0) {
    void vscode.window.showInformationMessage("Knit: the workspace has no declaration to rebind to");
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: `Rebind ${list.anchor} to…`,
    placeHolder: "a declaration of the workspace, most alike first",
    matchOnDescription: true,
    matchOnDetail: false,
  });
  if (!pick) {
    return undefined;
  }
  return server.command("knit.rebind", [doc, pos, { path: pick.path, symbol: pick.symbol }]);
}
