// The Knit extension: starts `knit lsp` through vscode-languageclient (diagnostics, code
// actions, hover, definition, completion, references and code lenses come from the
// server as they are), and adds what LSP has no UI for: the Context Pack view, the
// anchor status bar item, the review commands (changes since review, rebind picker) and
// the Knit commands.

import * as os from "node:os";
import * as vscode from "vscode";
import {
  CancellationToken,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RequestType,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { LANGUAGES, WATCH_GLOB } from "./languages";
import { advertisedCommand, commandBase, PackParams, PackResult, StatusParams, statusBar } from "./packModel";
import { ContextPackView, PackSource } from "./packView";
import { ChangesProvider, DIFF_SCHEME, rebindTo, showChangesSinceReview } from "./review";
import { CLIENT_COMMANDS } from "./reviewModel";
import { findServer } from "./serverPath";

const CONTEXT_PACK = new RequestType<PackParams, PackResult, void>("knit/contextPack");

class Knit implements PackSource {
  client: LanguageClient | undefined;
  private problem: string | undefined;
  private status: StatusParams | undefined;
  readonly output = vscode.window.createOutputChannel("Knit");
  readonly statusItem = vscode.window.createStatusBarItem("knit.status", vscode.StatusBarAlignment.Left, 50);
  view!: ContextPackView;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.statusItem.name = "Knit anchors";
    this.statusItem.command = "workbench.actions.view.problems";
    this.renderStatus();
    this.statusItem.show();
  }

  unavailable(): string | undefined {
    if (this.problem) {
      return this.problem;
    }
    if (!this.client || this.client.state !== State.Running) {
      return "knit is starting…";
    }
    return undefined;
  }

  private renderStatus(): void {
    if (this.problem) {
      this.statusItem.text = "$(error) knit";
      this.statusItem.tooltip = this.problem;
      this.statusItem.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      return;
    }
    const s = statusBar(this.status);
    this.statusItem.text = s.text;
    this.statusItem.tooltip = s.tooltip;
    this.statusItem.backgroundColor = s.attention ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }

  async start(): Promise<void> {
    const config = vscode.workspace.getConfiguration("knit");
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const found = findServer(config.get<string>("server.path"), process.env.PATH, os.homedir(), folder);
    if (!found.ok) {
      this.problem = found.message;
      this.renderStatus();
      this.view.refresh();
      const choice = await vscode.window.showErrorMessage(found.message, "Open Settings");
      if (choice === "Open Settings") {
        await vscode.commands.executeCommand("workbench.action.openSettings", "knit.server.path");
      }
      return;
    }
    this.problem = undefined;
    const args = ["lsp", ...config.get<string[]>("server.extraArgs", [])];
    const serverOptions: ServerOptions = { command: found.command, args, options: { env: { ...process.env, RUST_BACKTRACE: "1" } } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGES.map((language) => ({ scheme: "file", language })),
      initializationOptions: {
        uniqueCommandIds: true,
        // Code actions carrying these are run here (a diff document, a quick pick).
        clientCommands: Object.keys(CLIENT_COMMANDS),
        diagnostics: {
          workspace: config.get<boolean>("diagnostics.workspace", true),
          codeMentions: config.get<boolean>("diagnostics.codeMentions", false),
        },
        codeLens: { undocumented: config.get<boolean>("codeLens.undocumented", false) },
      },
      synchronize: {
        configurationSection: "knit",
        fileEvents: [
          vscode.workspace.createFileSystemWatcher(WATCH_GLOB),
          vscode.workspace.createFileSystemWatcher("**/{knit.toml,.gitignore}"),
        ],
      },
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        // "Show changes since review" and "Rebind to…" carry server commands whose result
        // only the extension can show: run its own commands instead (review.ts).
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          for (const a of actions ?? []) {
            const cmd = a instanceof vscode.CodeAction ? a.command : (a as vscode.Command);
            const own = cmd && CLIENT_COMMANDS[commandBase(cmd.command)];
            if (cmd && own) {
              cmd.command = own;
            }
          }
          return actions;
        },
        // Code lenses on anchored declarations carry `knit.showReferences [uri, position,
        // locations]`: show them in VS Code's references peek instead of a server round trip.
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          const client = this.client;
          if (!lenses || !client) {
            return lenses;
          }
          for (const lens of lenses) {
            const cmd = lens.command;
            if (cmd && commandBase(cmd.command) === "knit.showReferences" && Array.isArray(cmd.arguments) && cmd.arguments.length === 3) {
              const [uri, position, locations] = cmd.arguments as [string, { line: number; character: number }, unknown[]];
              cmd.command = "editor.action.showReferences";
              cmd.arguments = [
                vscode.Uri.parse(uri),
                client.protocol2CodeConverter.asPosition(position),
                (await client.protocol2CodeConverter.asReferences(locations as never)) ?? [],
              ];
            }
          }
          return lenses;
        },
      },
    };
    const client = new LanguageClient("knit", "Knit", serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.view.schedule(true);
      }
      this.renderStatus();
    });
    try {
      await client.start();
    } catch (e) {
      this.problem = `knit lsp failed to start (${found.command}): ${e instanceof Error ? e.message : String(e)}`;
      this.renderStatus();
      this.output.appendLine(this.problem);
      void vscode.window.showErrorMessage(this.problem, "Show Log").then((c) => c && this.output.show());
      return;
    }
    this.context.subscriptions.push(
      client.onNotification("knit/status", (p: StatusParams) => {
        this.status = p;
        this.renderStatus();
      }),
    );
    this.view.schedule(true);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.status = undefined;
    if (client) {
      try {
        await client.stop(2000);
      } catch (e) {
        this.output.appendLine(`stopping knit lsp: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  private advertised(): readonly string[] | undefined {
    return this.client?.initializeResult?.capabilities.executeCommandProvider?.commands;
  }

  /** Runs a server command by its base id (`knit.pin`), whatever suffix it was advertised with. */
  async command(base: string, args: unknown[]): Promise<unknown> {
    const client = this.runningClient();
    return client.sendRequest(ExecuteCommandRequest.type, { command: advertisedCommand(this.advertised(), base), arguments: args });
  }

  private runningClient(): LanguageClient {
    const client = this.client;
    if (!client || client.state !== State.Running) {
      throw new Error(this.problem ?? "knit is not running");
    }
    return client;
  }

  async contextPack(params: PackParams, token: CancellationToken): Promise<PackResult | undefined> {
    const client = this.client;
    if (!client || client.state !== State.Running) {
      return undefined;
    }
    const experimental = client.initializeResult?.capabilities.experimental as { knit?: { contextPack?: boolean } } | undefined;
    if (experimental?.knit?.contextPack) {
      return client.sendRequest(CONTEXT_PACK, params, token);
    }
    // Servers without the custom request still have the executeCommand twin.
    return (await client.sendRequest(
      ExecuteCommandRequest.type,
      { command: advertisedCommand(this.advertised(), "knit.contextPack"), arguments: [params] },
      token,
    )) as PackResult | undefined;
  }
}

function describeCheck(result: unknown): string {
  if (result && typeof result === "object") {
    const r = result as Record<string, unknown>;
    const counts = Object.entries(r)
      .filter(([, v]) => typeof v === "number" && v > 0)
      .map(([k, v]) => `${v} ${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}`);
    if (counts.length) {
      return `knit: ${counts.join(", ")}`;
    }
  }
  return "knit: workspace checked";
}

let active: Knit | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const knit = new Knit(context);
  active = knit;
  const view = new ContextPackView(knit, context.workspaceState);
  knit.view = view;
  context.subscriptions.push(knit.output, knit.statusItem, view);

  const guarded =
    (fn: (...args: never[]) => Promise<unknown>) =>
    async (...args: never[]): Promise<unknown> => {
      try {
        return await fn(...args);
      } catch (e) {
        void vscode.window.showErrorMessage(`Knit: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      }
    };

  context.subscriptions.push(
    vscode.commands.registerCommand(
      "knit.checkWorkspace",
      guarded(async () => {
        const result = await knit.command("knit.checkWorkspace", []);
        await vscode.commands.executeCommand("workbench.actions.view.problems");
        void vscode.window.showInformationMessage(describeCheck(result));
        return result;
      }),
    ),
    vscode.commands.registerCommand(
      "knit.recordFile",
      guarded(async (uri?: vscode.Uri) => {
        const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
        if (!target) {
          throw new Error("open a Markdown file to record its baselines");
        }
        return knit.command("knit.recordFile", [target.toString()]);
      }),
    ),
    vscode.commands.registerCommand(
      "knit.showContextPack",
      guarded(async (query?: string) => {
        let task = typeof query === "string" ? query : undefined;
        if (task === undefined) {
          task = await vscode.window.showInputBox({
            title: "Knit: context pack",
            prompt: "What are you working on? Leave empty to rank for the open editor.",
            value: view.currentQuery ?? "",
          });
          if (task === undefined) {
            return undefined;
          }
        }
        view.setQuery(task);
        await view.reveal();
        await view.refresh(true);
        return view.pack;
      }),
    ),
    vscode.commands.registerCommand(
      "knit.restartServer",
      guarded(async () => {
        await knit.stop();
        await knit.start();
      }),
    ),
    vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, new ChangesProvider(knit)),
    vscode.commands.registerCommand(
      "knit.showChangesSinceReview",
      guarded(async (uri?: unknown, position?: unknown) => showChangesSinceReview(knit, uri, position)),
    ),
    vscode.commands.registerCommand("knit.rebindTo", guarded(async (uri?: unknown, position?: unknown) => rebindTo(knit, uri, position))),
    vscode.commands.registerCommand("knit.pack.pin", guarded(async (node?: { path?: string }) => node?.path && view.control("pin", node.path))),
    vscode.commands.registerCommand("knit.pack.unpin", guarded(async (node?: { path?: string }) => node?.path && view.control("unpin", node.path))),
    vscode.commands.registerCommand("knit.pack.exclude", guarded(async (node?: { path?: string }) => node?.path && view.control("exclude", node.path))),
    vscode.commands.registerCommand("knit.pack.restore", guarded(async (node?: { path?: string }) => node?.path && view.control("restore", node.path))),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("knit.server")) {
        const choice = await vscode.window.showInformationMessage("Knit server settings changed.", "Restart server");
        if (choice) {
          await vscode.commands.executeCommand("knit.restartServer");
        }
      }
    }),
  );
  await knit.start();
}

export async function deactivate(): Promise<void> {
  await active?.stop();
  active = undefined;
}
