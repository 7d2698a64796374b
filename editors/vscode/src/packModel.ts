// The Context Pack view model: pure functions from editor state to `knit/contextPack`
// params and from a pack result to tree nodes, plus the small protocol helpers the
// extension needs (command ids, status text). No `vscode` import: unit-tested under
// `node --test` without a VS Code instance.

// ---- wire shapes (DESIGN.md 4.4) ------------------------------------------------------

export interface Position {
  line: number;
  character: number;
}

export interface PackParams {
  query?: string | string[];
  focus?: { uri: string; position?: Position };
  kinds?: Array<"doc" | "code" | "media">;
  limit?: number;
}

export type Lifecycle = "unread" | "read" | "updated-after-read" | "reread-after-update";

export interface RelationFact {
  /** `changedWith`: changed together in git history; `uses`: uses identifiers `other`
   * declares; `usedBy`: declares identifiers `other` uses (`symbol` names one). */
  type: "references" | "documents" | "imports" | "tests" | "changedWith" | "uses" | "usedBy";
  /** "in": `other` points at this item; "out": this item points at `other`. */
  dir: "in" | "out" | string;
  other: string;
  line?: number;
  symbol?: string;
}

export interface PackItem {
  path: string;
  kind: "doc" | "code" | "media" | string;
  role: "impl" | "test" | "config" | "design" | "doc" | string;
  title: string;
  summary: string;
  provenance: "retrieval" | "relation" | "manual" | string;
  reasons: string[];
  relations: RelationFact[];
  /** 1-based, inclusive. */
  passage?: { startLine: number; endLine: number; text: string };
  anchors?: { total: number; stale: number; lost: number };
  lifecycle?: Lifecycle;
}

export interface PackResult {
  task: { source: string; text?: string; terms: string[]; openBuffers: string[] };
  epoch: number;
  delta?: { entered: string[]; left: string[]; changedTier: Array<{ path: string; from: string; to: string }> };
  stats: {
    collected: number;
    excluded: number;
    candidates: number;
    relations: number;
    pinned: number;
    packed: number;
    truncated: number;
  };
  pinned: PackItem[];
  primary: PackItem[];
  supporting: PackItem[];
  related: PackItem[];
  more: PackItem[];
  degraded?: { reason: string; detail: string };
}

/** `knit/status` params (the server may add fields). */
export interface StatusParams {
  fresh?: number;
  stale?: number;
  moved?: number;
  renamed?: number;
  movedRenamed?: number;
  lost?: number;
  invalid?: number;
  unrecorded?: number;
  unchecked?: number;
  brokenLinks?: number;
  scanned?: boolean;
  [key: string]: unknown;
}

// ---- request params from editor state --------------------------------------------------

export interface EditorState {
  /** URI (string form) of the focused editor's document, if any. */
  uri?: string;
  /** URI scheme of that document: only `file` documents are knit's to rank. */
  scheme?: string;
  cursor?: Position;
  /** An explicit task typed by the user (Knit: Show context pack). */
  query?: string;
}

export const DEFAULT_LIMIT = 20;

/** The `knit/contextPack` params for the current editor: an explicit query wins; the
 * focused file and cursor are always sent (they weigh the task and are never packed). */
export function requestParams(state: EditorState, limit: number = DEFAULT_LIMIT): PackParams {
  const params: PackParams = { limit };
  const query = state.query?.trim();
  if (query) {
    params.query = query;
  }
  if (state.uri && (state.scheme === undefined || state.scheme === "file")) {
    params.focus = { uri: state.uri };
    if (state.cursor) {
      params.focus.position = { line: Math.max(0, state.cursor.line), character: Math.max(0, state.cursor.character) };
    }
  }
  return params;
}

/** Two requests are the same when they would produce the same pack: the view skips a
 * refresh when only the cursor's column moved. */
export function sameRequest(a: PackParams | undefined, b: PackParams): boolean {
  if (!a) {
    return false;
  }
  return (
    JSON.stringify(a.query) === JSON.stringify(b.query) &&
    a.focus?.uri === b.focus?.uri &&
    a.focus?.position?.line === b.focus?.position?.line &&
    a.limit === b.limit &&
    JSON.stringify(a.kinds) === JSON.stringify(b.kinds)
  );
}

// ---- tree nodes --------------------------------------------------------------------------

export type SectionId = "pinned" | "primary" | "supporting" | "related" | "more" | "excluded";

export type PackSection = "pinned" | "primary" | "supporting" | "related" | "more";

export const SECTION_ORDER: PackSection[] = ["pinned", "primary", "supporting", "related", "more"];

const SECTION_LABEL: Record<SectionId, string> = {
  pinned: "Pinned",
  primary: "Primary",
  supporting: "Supporting",
  related: "Related",
  more: "More",
  excluded: "Excluded",
};

export type TreeNode = InfoNode | SectionNode | ItemNode | DetailNode | ExcludedNode;

/** A line of information (task, degraded notice, empty pack). */
export interface InfoNode {
  type: "info";
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon: "search" | "warning" | "info";
}

export interface SectionNode {
  type: "section";
  id: string;
  section: SectionId;
  label: string;
  description: string;
  expanded: boolean;
  children: TreeNode[];
}

export interface ItemNode {
  type: "item";
  id: string;
  section: SectionId;
  path: string;
  /** File name, with the rank in numbered tiers ("1. resolve.ts"). */
  label: string;
  /** The first reason, the lifecycle mark and the anchor health, in one line. */
  description: string;
  /** Markdown: title, summary, every reason and relation, passage. */
  tooltip: string;
  kind: string;
  /** 0-based, end exclusive of nothing: [startLine, endLine] to select on open. */
  range?: { startLine: number; endLine: number };
  lifecycle?: Lifecycle;
  lifecycleMark: string;
  /** `knit.item.pinned` or `knit.item.unpinned` (drives the context menu). */
  contextValue: string;
  children: DetailNode[];
}

/** A reason or a relation under an item; relations open the other file. */
export interface DetailNode {
  type: "detail";
  id: string;
  label: string;
  description?: string;
  icon: "reason" | "relation";
  /** Workspace-relative path to open, with a 0-based line. */
  target?: { path: string; line?: number };
}

export interface ExcludedNode {
  type: "excluded";
  id: string;
  path: string;
  label: string;
  description: string;
  contextValue: "knit.excluded";
}

export function lifecycleMark(lifecycle: Lifecycle | undefined): string {
  switch (lifecycle) {
    case "read":
      return "✓ read";
    case "updated-after-read":
      return "↻ changed since read";
    case "reread-after-update":
      return "✓ re-read";
    case "unread":
      return "• unread";
    default:
      return "";
  }
}

export function relationLabel(r: RelationFact): string {
  const arrow = r.dir === "in" ? "←" : "→";
  const at = r.line !== undefined ? `:${r.line}` : "";
  const symbol = r.symbol ? ` #${r.symbol}` : "";
  return `${r.type} ${arrow} ${r.other}${at}${symbol}`;
}

/** 0-based line the relation's evidence sits on, in the file that holds the mention. */
function relationTarget(r: RelationFact): { path: string; line?: number } {
  return { path: r.other, line: r.line !== undefined ? Math.max(0, r.line - 1) : undefined };
}

export function anchorHealth(anchors: PackItem["anchors"]): string {
  if (!anchors || anchors.total === 0) {
    return "";
  }
  const bad: string[] = [];
  if (anchors.stale > 0) {
    bad.push(`${anchors.stale} stale`);
  }
  if (anchors.lost > 0) {
    bad.push(`${anchors.lost} lost`);
  }
  return bad.length ? `anchors: ${bad.join(", ")} of ${anchors.total}` : `anchors: ${anchors.total} fresh`;
}

function baseName(path: string): string {
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}

function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+!|<>])/g, "\\$1");
}

export function itemTooltip(item: PackItem, section: SectionId): string {
  const lines: string[] = [];
  lines.push(`**${escapeMarkdown(item.title || item.path)}**  `);
  lines.push(`\`${item.path}\` · ${item.kind}/${item.role} · ${section} · ${item.provenance}`);
  if (item.summary) {
    lines.push("", escapeMarkdown(item.summary));
  }
  if (item.reasons.length) {
    lines.push("", ...item.reasons.map((r) => `- ${escapeMarkdown(r)}`));
  }
  if (item.relations.length) {
    lines.push("", ...item.relations.map((r) => `- ${escapeMarkdown(relationLabel(r))}`));
  }
  const health = anchorHealth(item.anchors);
  if (health) {
    lines.push("", health);
  }
  const mark = lifecycleMark(item.lifecycle);
  if (mark) {
    lines.push("", mark);
  }
  if (item.passage) {
    lines.push("", `Lines ${item.passage.startLine}–${item.passage.endLine}:`, "", "```", item.passage.text.replace(/```/g, "ˋˋˋ"), "```");
  }
  return lines.join("\n");
}

function itemNode(item: PackItem, section: SectionId, rank: number | undefined, pinned: Set<string>): ItemNode {
  const mark = lifecycleMark(item.lifecycle);
  const health = anchorHealth(item.anchors);
  const description = [item.reasons[0] ?? "", mark, health.includes("stale") || health.includes("lost") ? health : ""]
    .filter((s) => s !== "")
    .join(" · ");
  const id = `${section}:${item.path}`;
  const details: DetailNode[] = [
    ...item.reasons.map((r, i): DetailNode => ({ type: "detail", id: `${id}#reason${i}`, label: r, icon: "reason" })),
    ...item.relations.map(
      (r, i): DetailNode => ({ type: "detail", id: `${id}#rel${i}`, label: relationLabel(r), icon: "relation", target: relationTarget(r) }),
    ),
  ];
  return {
    type: "item",
    id,
    section,
    path: item.path,
    label: rank !== undefined ? `${rank}. ${baseName(item.path)}` : baseName(item.path),
    description,
    tooltip: itemTooltip(item, section),
    kind: item.kind,
    range: item.passage ? { startLine: Math.max(0, item.passage.startLine - 1), endLine: Math.max(0, item.passage.endLine - 1) } : undefined,
    lifecycle: item.lifecycle,
    lifecycleMark: mark,
    contextValue: section === "pinned" || pinned.has(item.path) ? "knit.item.pinned" : "knit.item.unpinned",
    children: details,
  };
}

export interface TreeOptions {
  /** Paths the user excluded (shown in their own section with a Restore action). */
  excluded?: string[];
}

/** The whole tree for a pack: a task line, an optional degraded notice, then the
 * non-empty sections in order (primary/supporting/related numbered, pinned and more not). */
export function packToTree(pack: PackResult, options: TreeOptions = {}): TreeNode[] {
  const nodes: TreeNode[] = [];
  const terms = pack.task.terms.slice(0, 8).join(", ");
  const taskSource: Record<string, string> = {
    query: "Task",
    conversation: "Conversation",
    openBuffers: "Open files",
    none: "No task",
  };
  nodes.push({
    type: "info",
    id: "task",
    label: `${taskSource[pack.task.source] ?? pack.task.source}: ${pack.task.text ?? (terms || "—")}`,
    description: pack.task.text && terms ? terms : undefined,
    tooltip: [
      pack.task.text ? `Task: ${pack.task.text}` : undefined,
      `Terms: ${pack.task.terms.join(", ") || "none"}`,
      pack.task.openBuffers.length ? `Open: ${pack.task.openBuffers.join(", ")}` : undefined,
      `Epoch ${pack.epoch} · ${pack.stats.candidates} candidates of ${pack.stats.collected} files · ${pack.stats.packed} packed` +
        (pack.stats.excluded ? ` · ${pack.stats.excluded} excluded` : ""),
    ]
      .filter((l) => l !== undefined)
      .join("\n"),
    icon: "search",
  });
  if (pack.degraded) {
    nodes.push({ type: "info", id: "degraded", label: pack.degraded.detail, tooltip: `${pack.degraded.reason}: ${pack.degraded.detail}`, icon: "warning" });
  }
  const pinned = new Set(pack.pinned.map((i) => i.path));
  let any = false;
  for (const section of SECTION_ORDER) {
    const items: PackItem[] = pack[section] ?? [];
    if (!items.length) {
      continue;
    }
    any = true;
    const numbered = section === "primary" || section === "supporting" || section === "related";
    const children = items.map((item, i) => itemNode(item, section, numbered ? i + 1 : undefined, pinned));
    nodes.push({
      type: "section",
      id: `section:${section}`,
      section,
      label: SECTION_LABEL[section],
      description: `${items.length}`,
      expanded: section !== "more",
      children,
    });
  }
  if (!any) {
    nodes.push({ type: "info", id: "empty", label: "Nothing to read for this task", icon: "info" });
  }
  const excluded = options.excluded ?? [];
  if (excluded.length) {
    nodes.push({
      type: "section",
      id: "section:excluded",
      section: "excluded",
      label: SECTION_LABEL.excluded,
      description: `${excluded.length}`,
      expanded: false,
      children: excluded.map((path) => ({
        type: "excluded",
        id: `excluded:${path}`,
        path,
        label: baseName(path),
        description: path,
        contextValue: "knit.excluded",
      })),
    });
  }
  return nodes;
}

/** A short line for the view's header: the epoch and what changed since the last pack. */
export function deltaDescription(pack: PackResult): string {
  const d = pack.delta;
  if (!d) {
    return `epoch ${pack.epoch}`;
  }
  const parts: string[] = [];
  if (d.entered.length) {
    parts.push(`+${d.entered.length}`);
  }
  if (d.left.length) {
    parts.push(`−${d.left.length}`);
  }
  if (d.changedTier.length) {
    parts.push(`~${d.changedTier.length}`);
  }
  return parts.length ? `epoch ${pack.epoch} (${parts.join(" ")})` : `epoch ${pack.epoch}`;
}

// ---- protocol helpers --------------------------------------------------------------------

/** The id the server advertised for a base command (`knit.pin` → `knit.pin/3f2a` when the
 * server suffixes ids for uniqueness); the base id when it was not advertised. */
export function advertisedCommand(advertised: readonly string[] | undefined, base: string): string {
  for (const id of advertised ?? []) {
    if (id === base || id.startsWith(`${base}/`)) {
      return id;
    }
  }
  return base;
}

/** The base of an advertised id (`knit.showReferences/3f2a` → `knit.showReferences`). */
export function commandBase(id: string): string {
  const slash = id.indexOf("/");
  return slash > 0 && id.startsWith("knit.") ? id.slice(0, slash) : id;
}

/** Status bar text and tooltip from `knit/status`. */
export function statusBar(status: StatusParams | undefined): { text: string; tooltip: string; attention: boolean } {
  if (!status) {
    return { text: "$(sync~spin) knit", tooltip: "knit: scanning the workspace…", attention: false };
  }
  const n = (k: keyof StatusParams): number => (typeof status[k] === "number" ? (status[k] as number) : 0);
  const stale = n("stale");
  const lost = n("lost");
  const drift = n("moved") + n("renamed") + n("movedRenamed");
  const other = n("invalid") + n("brokenLinks");
  const scanning = status.scanned === false;
  const detail = [
    `${n("fresh")} fresh`,
    `${stale} stale`,
    `${drift} moved/renamed`,
    `${lost} lost`,
    `${n("invalid")} invalid`,
    `${n("unrecorded")} unrecorded`,
    `${n("unchecked")} unchecked`,
    `${n("brokenLinks")} broken links`,
  ].join(" · ");
  const tooltip = `knit anchors: ${detail}${scanning ? " (scanning…)" : ""}\nClick to open the Problems view.`;
  if (stale + lost === 0) {
    const icon = scanning ? "$(sync~spin)" : drift + other > 0 ? "$(info)" : "$(check)";
    return { text: `${icon} knit`, tooltip, attention: false };
  }
  const parts: string[] = [];
  if (stale) {
    parts.push(`${stale} stale`);
  }
  if (lost) {
    parts.push(`${lost} lost`);
  }
  return { text: `$(warning) knit: ${parts.join(", ")}`, tooltip, attention: true };
}

// ---- debounce ----------------------------------------------------------------------------

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Calls `fn` once, `ms` after the last `trigger()`; `flush()` runs a pending call now. */
export function debounce(fn: () => void, ms: number, timers: Timers = realTimers): { trigger(): void; flush(): void; cancel(): void } {
  let handle: unknown;
  let pending = false;
  const run = (): void => {
    pending = false;
    handle = undefined;
    fn();
  };
  return {
    trigger(): void {
      if (pending) {
        timers.clear(handle);
      }
      pending = true;
      handle = timers.set(run, ms);
    },
    flush(): void {
      if (pending) {
        timers.clear(handle);
        run();
      }
    },
    cancel(): void {
      if (pending) {
        timers.clear(handle);
        pending = false;
        handle = undefined;
      }
    },
  };
}
