// The Context Pack view (explorer side bar): a TreeDataProvider over the pure model in
// packModel.ts. It asks the server for a pack when the focused editor or its cursor line
// changes (debounced, only while the view is visible) and opens items at their passage.

import * as vscode from "vscode";
import {
  debounce,
  deltaDescription,
  EditorState,
  ItemNode,
  PackParams,
  PackResult,
  packToTree,
  requestParams,
  sameRequest,
  TreeNode,
} from "./packModel";

export const VIEW_ID = "knit.contextPack";
const EXCLUDED_KEY = "knit.excludedPaths";
const REFRESH_DELAY_MS = 300;

/** What the view needs from the language client (see extension.ts). */
export interface PackSource {
  /** The pack for `params`, or undefined when the server is not running. */
  contextPack(params: PackParams, token: vscode.CancellationToken): Promise<PackResult | undefined>;
  /** Runs `knit.pin`/`knit.unpin`/`knit.exclude`/`knit.restore` on the server. */
  command(base: string, args: unknown[]): Promise<unknown>;
  /** Why there is no server, when there is none. */
  unavailable(): string | undefined;
}

export class ContextPackView implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<TreeNode>;
  private readonly disposables: vscode.Disposable[] = [];
  private roots: TreeNode[] = [];
  private lastParams: PackParams | undefined;
  private lastFolder: vscode.WorkspaceFolder | undefined;
  private query: string | undefined;
  private inflight: vscode.CancellationTokenSource | undefined;
  private readonly scheduled = debounce(() => void this.refresh(false), REFRESH_DELAY_MS);
  /** The last pack shown (for tests and the Show command). */
  pack: PackResult | undefined;

  constructor(private readonly source: PackSource, private readonly state: vscode.Memento) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e && e.document.uri.scheme !== "file") {
          return; // output panels and the like are not tasks
        }
        this.schedule();
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) {
          this.schedule();
        }
      }),
      vscode.workspace.onDidSaveTextDocument(() => this.schedule(true)),
      this.view.onDidChangeVisibility((e) => {
        if (e.visible) {
          this.schedule(true);
        }
      }),
    );
  }

  dispose(): void {
    this.scheduled.cancel();
    this.inflight?.cancel();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  /** An explicit task from "Knit: Show context pack" (empty: back to the open editor). */
  setQuery(query: string | undefined): void {
    this.query = query?.trim() || undefined;
  }

  get currentQuery(): string | undefined {
    return this.query;
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  private forceNext = false;

  schedule(force = false): void {
    this.forceNext = this.forceNext || force;
    if (this.view.visible) {
      this.scheduled.trigger();
    }
  }

  private editorState(): { state: EditorState; folder: vscode.WorkspaceFolder | undefined } {
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    const folder = (doc && vscode.workspace.getWorkspaceFolder(doc.uri)) ?? vscode.workspace.workspaceFolders?.[0];
    return {
      state: {
        uri: doc?.uri.toString(),
        scheme: doc?.uri.scheme,
        cursor: editor ? { line: editor.selection.active.line, character: editor.selection.active.character } : undefined,
        query: this.query,
      },
      folder,
    };
  }

  /** Asks for a pack now. `force` also re-asks for an unchanged request (after a save,
   * a pin, a restart). */
  async refresh(force = true): Promise<void> {
    force = force || this.forceNext;
    this.forceNext = false;
    const why = this.source.unavailable();
    if (why) {
      this.view.message = why;
      this.setRoots([]);
      return;
    }
    const { state, folder } = this.editorState();
    const params = requestParams(state);
    if (!force && sameRequest(this.lastParams, params)) {
      return;
    }
    this.lastParams = params;
    this.lastFolder = folder;
    this.inflight?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight = cts;
    try {
      const pack = await this.source.contextPack(params, cts.token);
      if (cts.token.isCancellationRequested) {
        return;
      }
      if (!pack) {
        this.view.message = this.source.unavailable() ?? "knit is starting…";
        return;
      }
      this.pack = pack;
      this.view.message = undefined;
      this.view.description = deltaDescription(pack);
      this.setRoots(packToTree(pack, { excluded: this.excluded() }));
    } catch (e) {
      if (!cts.token.isCancellationRequested) {
        this.view.message = `Context pack failed: ${e instanceof Error ? e.message : String(e)}`;
      }
    } finally {
      if (this.inflight === cts) {
        this.inflight = undefined;
      }
      cts.dispose();
    }
  }

  private setRoots(roots: TreeNode[]): void {
    this.roots = roots;
    this.changed.fire(undefined);
  }

  private excluded(): string[] {
    return this.state.get<string[]>(EXCLUDED_KEY, []);
  }

  /** Pin, unpin, exclude or restore a path, then refresh. The server answers with the
   * workspace's pinned and excluded lists; the excluded one feeds the Excluded section. */
  async control(action: "pin" | "unpin" | "exclude" | "restore", path: string): Promise<void> {
    const uri = this.uriOf(path);
    const result = (await this.source.command(`knit.${action}`, [uri ? uri.toString() : path])) as { excluded?: unknown } | undefined;
    const excluded = new Set(this.excluded());
    if (result && Array.isArray(result.excluded)) {
      excluded.clear();
      for (const p of result.excluded) {
        if (typeof p === "string") {
          excluded.add(p);
        }
      }
    } else if (action === "exclude") {
      excluded.add(path);
    } else if (action === "restore") {
      excluded.delete(path);
    }
    await this.state.update(EXCLUDED_KEY, [...excluded].sort());
    await this.refresh(true);
  }

  uriOf(path: string): vscode.Uri | undefined {
    const folder = this.lastFolder ?? vscode.workspace.workspaceFolders?.[0];
    return folder ? vscode.Uri.joinPath(folder.uri, ...path.split("/")) : undefined;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      return this.roots;
    }
    if (node.type === "section" || node.type === "item") {
      return node.children;
    }
    return [];
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.type) {
      case "info": {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon(node.icon === "warning" ? "warning" : node.icon === "search" ? "search" : "info");
        return item;
      }
      case "section": {
        const item = new vscode.TreeItem(
          node.label,
          node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = node.id;
        item.description = node.description;
        item.contextValue = `knit.section.${node.section}`;
        return item;
      }
      case "item":
        return this.itemTreeItem(node);
      case "detail": {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.iconPath = new vscode.ThemeIcon(node.icon === "relation" ? "references" : "lightbulb");
        const uri = node.target && this.uriOf(node.target.path);
        if (uri && node.target) {
          const line = node.target.line ?? 0;
          item.command = {
            command: "vscode.open",
            title: "Open",
            arguments: [uri, { selection: new vscode.Range(line, 0, line, 0), preview: true }],
          };
        }
        return item;
      }
      case "excluded": {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = node.description;
        item.contextValue = node.contextValue;
        item.iconPath = new vscode.ThemeIcon("eye-closed");
        return item;
      }
    }
  }

  private itemTreeItem(node: ItemNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = node.description;
    const tooltip = new vscode.MarkdownString(node.tooltip);
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    item.contextValue = node.contextValue;
    const uri = this.uriOf(node.path);
    if (uri) {
      item.resourceUri = uri;
      const selection = node.range && node.kind !== "media" ? new vscode.Range(node.range.startLine, 0, node.range.endLine, 0) : undefined;
      item.command = { command: "vscode.open", title: "Open", arguments: [uri, selection ? { selection, preview: true } : { preview: true }] };
    }
    item.iconPath =
      node.section === "pinned"
        ? new vscode.ThemeIcon("pinned")
        : node.lifecycle === "updated-after-read"
          ? new vscode.ThemeIcon("history")
          : node.kind === "doc"
            ? new vscode.ThemeIcon("book")
            : node.kind === "media"
              ? new vscode.ThemeIcon("file-media")
              : new vscode.ThemeIcon("file-code");
    return item;
  }
}
