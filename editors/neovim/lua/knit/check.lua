-- :KnitCheck — `knit check --format json` into the quickfix list (works without the
-- language server running; uses the same binary as the `cmd` given to setup()).

local knit = require("knit")

local M = {}

local error_states = { lost = true, invalid = true }

--- Quickfix entries for a `knit check --format json` report: every anchor that is not
--- fresh, every broken link and every mention (pure; tested headless).
function M.qf_items(report, root)
  local out = {}
  local function file(doc)
    return root and (root .. "/" .. doc) or doc
  end
  for _, a in ipairs(report.anchors or {}) do
    if a.state ~= "fresh" then
      local text = ("[%s] %s"):format(a.state, a.detail and a.detail.message or "")
      local now = a.detail and a.detail.now
      if now and now.path and a.state ~= "stale" then
        text = text .. (" (now %s:%s)"):format(now.path, now.line or "?")
      end
      table.insert(out, { filename = file(a.doc), lnum = a.line, col = a.column or 1, text = text, type = error_states[a.state] and "E" or (a.state == "unrecorded" and "I" or "W") })
    end
  end
  for _, b in ipairs(report.broken_links or {}) do
    table.insert(out, { filename = file(b.doc), lnum = b.line, col = 1, text = "[broken-link] " .. (b.message or b.path or ""), type = "E" })
  end
  for _, m in ipairs(report.mentions or {}) do
    table.insert(out, { filename = file(m.doc), lnum = m.line, col = 1, text = ("[mention] `%s` could be an anchor: %s"):format(m.text or "", m.suggestion or ""), type = "I" })
  end
  return out
end

--- The workspace root for the current buffer (same markers as the server).
local function root_dir()
  local client = knit.get_client()
  if client and client.config and client.config.root_dir then
    return client.config.root_dir
  end
  local name = vim.api.nvim_buf_get_name(0)
  return knit.find_root(name ~= "" and name or vim.fn.getcwd()) or vim.fn.getcwd()
end

--- Runs the check asynchronously; `done(report, items)` is called after the quickfix list is set.
function M.run(args, done)
  local cmd = (knit.config.cmd or { "knit" })[1]
  local root = root_dir()
  local argv = { cmd, "check", "--root", root, "--format", "json" }
  for _, a in ipairs(args or {}) do
    table.insert(argv, a)
  end
  local stdout, stderr = {}, {}
  local job = vim.fn.jobstart(argv, {
    cwd = root,
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      stdout = data or {}
    end,
    on_stderr = function(_, data)
      stderr = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        if code ~= 0 and code ~= 1 then
          vim.notify(("knit check failed (exit %d): %s"):format(code, table.concat(stderr, "\n")), vim.log.levels.ERROR)
          return
        end
        local ok, report = knit.json_decode(table.concat(stdout, "\n"))
        if not ok or type(report) ~= "table" then
          vim.notify("knit check: unreadable output", vim.log.levels.ERROR)
          return
        end
        local items = M.qf_items(report, root)
        vim.fn.setqflist({}, " ", { title = "knit check", items = items })
        if #items > 0 then
          vim.cmd("copen")
        else
          vim.notify(("knit: all %d anchor(s) fresh"):format(#(report.anchors or {})))
        end
        if done then
          done(report, items)
        end
      end)
    end,
  })
  if job <= 0 then
    vim.notify(("knit: cannot run `%s` (install it with `cargo install --locked --path server/knit-cli`)"):format(cmd), vim.log.levels.ERROR)
  end
  return job
end

return M
