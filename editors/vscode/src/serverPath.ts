// Finding the `knit` binary: the `knit.server.path` setting, else `knit` on PATH. Pure
// Node (no `vscode` import) so it is unit-tested with `node --test`.

import * as fs from "node:fs";
import * as path from "node:path";

export const INSTALL_HINT = "cargo install --locked --path server/knit-cli";

export type ServerLookup = { ok: true; command: string } | { ok: false; message: string };

function isExecutableFile(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` on the PATH (with PATHEXT extensions on Windows), or undefined. */
export function whichOnPath(name: string, envPath: string | undefined, pathExt: string | undefined = process.env.PATHEXT): string | undefined {
  const exts = process.platform === "win32" ? ["", ...(pathExt ?? ".EXE;.CMD;.BAT").split(";").filter(Boolean)] : [""];
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

const WORKSPACE_FOLDER = "${workspaceFolder}";

/**
 * The setting as a path: `${workspaceFolder}` (the first workspace folder) and
 * `${userHome}` substituted as in VS Code's own settings, a leading `~` expanded, and a
 * relative path with a separator resolved against the first workspace folder — the folder
 * you opened, not the knit checkout, which is why the docs ask for an absolute path. A
 * bare name (`knit-dev`) is left for a PATH lookup. `${workspaceFolder}` stays as written
 * when no folder is open.
 */
export function expandSetting(value: string, home: string, workspaceFolder: string | undefined): string {
  let v = value.trim().replace(/\$\{userHome\}/g, () => home);
  if (workspaceFolder) {
    v = v.split(WORKSPACE_FOLDER).join(workspaceFolder);
  }
  if (v === "~" || v.startsWith("~/") || v.startsWith("~\\")) {
    v = path.join(home, v.slice(1));
  }
  if (!path.isAbsolute(v) && (v.includes("/") || v.includes("\\")) && workspaceFolder) {
    v = path.resolve(workspaceFolder, v);
  }
  return v;
}

/** Resolves the server command, or explains what to do when there is none. */
export function findServer(setting: string | undefined, envPath: string | undefined, home: string, workspaceFolder?: string): ServerLookup {
  if (setting && setting.trim() !== "") {
    const configured = expandSetting(setting, home, workspaceFolder);
    if (configured.includes(WORKSPACE_FOLDER) || (!path.isAbsolute(configured) && /[\\/]/.test(configured))) {
      return {
        ok: false,
        message: `knit.server.path is "${setting}", which needs an open workspace folder (\${workspaceFolder} and relative paths are resolved against the first one). Set an absolute path to the knit binary.`,
      };
    }
    if (path.isAbsolute(configured)) {
      if (isExecutableFile(configured)) {
        return { ok: true, command: configured };
      }
      return {
        ok: false,
        message: `knit.server.path is set to "${setting}", but ${configured} is not an executable file. Fix the setting, or install knit with \`${INSTALL_HINT}\` and clear it.`,
      };
    }
    const found = whichOnPath(configured, envPath);
    if (found) {
      return { ok: true, command: found };
    }
    return { ok: false, message: `knit.server.path is "${setting}", which is not on PATH. Install knit with \`${INSTALL_HINT}\` or set an absolute path.` };
  }
  const onPath = whichOnPath("knit", envPath);
  if (onPath) {
    return { ok: true, command: onPath };
  }
  return {
    ok: false,
    message: `The knit language server was not found: \`knit\` is not on PATH and knit.server.path is not set. Install it from a checkout of knit with \`${INSTALL_HINT}\`, or set knit.server.path to the binary.`,
  };
}
