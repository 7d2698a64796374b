-- Reviewing drift in Neovim: the client side of the two server commands whose result
-- LSP has no UI for, reached from knit's code actions (vim.lsp.commands) and from
-- :KnitChanges / :KnitRebind at the cursor.
--   knit.changesSinceReview [uri, position] → the declaration's diff since the doc was
--     reviewed (reviewed commit, commits since, unified diff) in a scratch buffer,
--     filetype diff;
--   knit.rebindCandidates [uri, position] → every declaration of the workspace, most
--     alike first, in vim.ui.select; the pick goes back as knit.rebind.

local M = {}

--- The server commands this module shows; sent as `clientCommands` so the server
--- offers the code actions that carry them.
M.client_commands = { "knit.changesSinceReview", "knit.rebindCandidates" }

local function notify(msg, level)
  vim.notify("knit: " .. msg, level or vim.log.levels.INFO)
end

--- The scratch buffer of one anchor's changes: reused (and refreshed) when shown again.
local function scratch(name, lines)
  local bufnr = vim.fn.bufnr(name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
  end
  vim.bo[bufnr].buftype = "nofile"
  vim.bo[bufnr].bufhidden = "wipe"
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].filetype = "diff"
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, bufnr)
  else
    vim.api.nvim_set_current_win(win)
  end
  return bufnr
end

--- Shows the changes since review of the anchor at `args` ({ uri, position }).
function M.show_changes(args, bufnr)
  local knit = require("knit")
  return knit.execute("knit.changesSinceReview", args, function(err, result)
    if err then
      notify("changes since review: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= "table" or type(result.text) ~= "string" then
      notify((type(result) == "table" and result.message) or "no changes to show", vim.log.levels.WARN)
      return
    end
    local name = "knit://changes/" .. (result.anchor or "anchor"):gsub("^[./]+", "") .. ".diff"
    scratch(name, vim.split(result.text:gsub("\n$", ""), "\n", { plain = true }))
  end, bufnr)
end

--- Lists every declaration as a new target for the anchor at `args` and rebinds it to
--- the one picked.
function M.rebind(args, bufnr)
  local knit = require("knit")
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  return knit.execute("knit.rebindCandidates", args, function(err, result)
    if err then
      notify("rebind: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local items = type(result) == "table" and result.items or {}
    if #items == 0 then
      notify("the workspace has no declaration to rebind to", vim.log.levels.WARN)
      return
    end
    vim.ui.select(items, {
      prompt = ("Rebind %s to: "):format(result.anchor or "the anchor"),
      kind = "knit.rebind",
      format_item = function(item)
        return ("%s  %s  (%s)"):format(item.label, item.description, item.detail)
      end,
    }, function(item)
      if not item then
        return
      end
      knit.execute("knit.rebind", { args[1], args[2], { path = item.path, symbol = item.symbol } }, function(e, done)
        if e then
          notify("rebind: " .. (e.message or vim.inspect(e)), vim.log.levels.ERROR)
        elseif type(done) == "table" and not done.applied then
          notify("rebind was not applied (the buffer changed meanwhile?)", vim.log.levels.WARN)
        end
      end, bufnr)
    end)
  end, bufnr)
end

--- `{ uri, position }` of the cursor in the current buffer.
function M.cursor_args()
  local p = vim.lsp.util.make_position_params()
  return { p.textDocument.uri, p.position }
end

-- Code actions carry the server's command; Neovim runs vim.lsp.commands[id] when set.
vim.lsp.commands["knit.changesSinceReview"] = function(command, ctx)
  M.show_changes(command.arguments or {}, ctx and ctx.bufnr)
end
vim.lsp.commands["knit.rebindCandidates"] = function(command, ctx)
  M.rebind(command.arguments or {}, ctx and ctx.bufnr)
end

return M
