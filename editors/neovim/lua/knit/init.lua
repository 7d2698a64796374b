-- knit for Neovim: registers `knit lsp` for Markdown and code buffers (diagnostics, code
-- actions, hover, definition, completion and references come from the server through
-- Neovim's LSP client as they are) and adds :KnitPack, :KnitCheck, :KnitRecord, and for
-- reviewing drift :KnitChanges and :KnitRebind (knit.review, also behind the code actions
-- "Show changes since review" and "Rebind … to…").
--
-- Works on Neovim 0.7 (vim.lsp.start_client + buf_attach_client), 0.8–0.10 (vim.lsp.start)
-- and 0.11+ (vim.lsp.config + vim.lsp.enable).

local M = {}

M.filetypes = { "markdown", "typescript", "typescriptreact", "javascript", "javascriptreact", "swift", "rust", "python", "go", "kotlin" }
M.root_markers = { ".git", "knit.toml" }

local defaults = {
  cmd = nil, -- default: { "knit", "lsp" }
  filetypes = nil, -- default: M.filetypes
  root_markers = nil, -- default: M.root_markers
  init_options = { diagnostics = { workspace = true } },
  settings = nil,
  on_attach = nil,
  capabilities = nil,
  commands = true, -- define :KnitPack, :KnitCheck, :KnitRecord
  lsp = true, -- register the server (false: you start it with nvim-lspconfig or lsp/knit.lua)
  pack = { limit = 20, border = "rounded" },
}

M.config = vim.deepcopy(defaults)
--- Last `knit/status` per client id.
M.statuses = {}

local function has(version)
  return vim.fn.has("nvim-" .. version) == 1
end

local uv = vim.uv or vim.loop

local function notify(msg, level)
  vim.notify("knit: " .. msg, level or vim.log.levels.INFO)
end

--- The nearest folder at or above `path` holding one of the markers (nil when none).
function M.find_root(path, markers)
  markers = markers or M.config.root_markers or M.root_markers
  if not path or path == "" then
    return nil
  end
  local dir = path
  local stat = uv.fs_stat(dir)
  if not stat or stat.type ~= "directory" then
    dir = vim.fn.fnamemodify(path, ":p:h")
  end
  while dir and dir ~= "" do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

local function json_decode(text)
  if vim.json and vim.json.decode then
    return pcall(vim.json.decode, text)
  end
  return pcall(vim.fn.json_decode, text)
end
M.json_decode = json_decode

--- Sends a request on `client` in the form this Neovim expects (0.11 made them methods).
function M.request(client, method, params, handler, bufnr)
  if has("0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function status_handler(err, result, ctx)
  if err or type(result) ~= "table" then
    return
  end
  M.statuses[ctx.client_id] = result
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "KnitStatus", modeline = false })
end

--- The init options sent: the configured ones, plus the commands whose result this
--- plugin shows (the server offers their code actions only to clients that do).
function M.init_options(opts)
  local o = vim.deepcopy(opts or {})
  o.clientCommands = o.clientCommands or vim.deepcopy(require("knit.review").client_commands)
  return o
end

local function client_config()
  local c = M.config
  local handlers = { ["knit/status"] = status_handler }
  return {
    name = "knit",
    cmd = c.cmd or { "knit", "lsp" },
    filetypes = c.filetypes or M.filetypes,
    root_markers = c.root_markers or M.root_markers,
    init_options = M.init_options(c.init_options),
    settings = c.settings,
    capabilities = c.capabilities,
    handlers = handlers,
    on_attach = c.on_attach,
  }
end

--- The title of the quickfix list a code lens fills.
M.lens_list_title = "knit: docs that describe this"

--- Running a knit code lens: its command is `knit.showReferences [uri, position,
--- locations]` (VS Code's references-view shape). Neovim has no such view, and the server
--- only echoes the locations back, so the client shows them itself, in the quickfix list
--- as `vim.lsp.buf.references()` would. Registered when this module loads, so lspconfig
--- users who never call setup() get it too.
function M.show_references(command, ctx)
  local locations = (command.arguments or {})[3] or {}
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or "utf-16"
  local items = vim.lsp.util.locations_to_items(locations, encoding)
  vim.fn.setqflist({}, " ", { title = M.lens_list_title, items = items })
  if #items > 0 then
    vim.cmd("copen")
  end
end
vim.lsp.commands["knit.showReferences"] = M.show_references
-- The review commands' client side (vim.lsp.commands), for the same reason.
require("knit.review")

--- The server definition as a table for nvim-lspconfig / vim.lsp.config users.
function M.server_config()
  local cfg = client_config()
  cfg.root_dir = nil
  return cfg
end

local started = {} -- root -> client id (Neovim 0.7 path)

local function start_for_buffer(bufnr)
  local cfg = client_config()
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or vim.bo[bufnr].buftype ~= "" then
    return
  end
  local root = M.find_root(name, cfg.root_markers) or vim.fn.getcwd()
  local lsp_config = {
    name = "knit",
    cmd = cfg.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = cfg.init_options,
    settings = cfg.settings,
    capabilities = cfg.capabilities or vim.lsp.protocol.make_client_capabilities(),
    handlers = cfg.handlers,
    on_attach = cfg.on_attach,
  }
  if vim.lsp.start then
    vim.lsp.start(lsp_config, { bufnr = bufnr })
    return
  end
  -- Neovim 0.7: one client per root, attached to each buffer under it.
  local id = started[root]
  if id and not vim.lsp.get_client_by_id(id) then
    id = nil
  end
  if not id then
    if vim.fn.executable(cfg.cmd[1]) ~= 1 then
      notify(("`%s` not found: install it with `cargo install --locked --path server/knit-cli` or pass cmd to setup()"):format(cfg.cmd[1]), vim.log.levels.ERROR)
      return
    end
    id = vim.lsp.start_client(lsp_config)
    if not id then
      return
    end
    started[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

--- The knit client attached to `bufnr` (or any knit client when the buffer has none).
function M.get_client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local clients
  if vim.lsp.get_clients then
    clients = vim.lsp.get_clients({ name = "knit" })
  else
    clients = vim.tbl_values(vim.lsp.get_active_clients())
  end
  local fallback
  for _, client in ipairs(clients) do
    if client.name == "knit" then
      local attached = client.attached_buffers and client.attached_buffers[bufnr]
      if attached or vim.lsp.buf_is_attached(bufnr, client.id) then
        return client
      end
      fallback = fallback or client
    end
  end
  return fallback
end

--- Status counts for statuslines: "knit: 2 stale, 1 lost" or "" when clean / unknown.
function M.statusline(bufnr)
  local client = M.get_client(bufnr)
  local s = client and M.statuses[client.id]
  if not s then
    return ""
  end
  local parts = {}
  if (s.stale or 0) > 0 then
    table.insert(parts, s.stale .. " stale")
  end
  if (s.lost or 0) > 0 then
    table.insert(parts, s.lost .. " lost")
  end
  if #parts == 0 then
    return ""
  end
  return "knit: " .. table.concat(parts, ", ")
end

--- The command id the server advertised for `base` (servers may suffix ids).
function M.command_id(client, base)
  local caps = client.server_capabilities or (client.resolved_capabilities and {}) or {}
  local provider = caps.executeCommandProvider
  for _, id in ipairs(provider and provider.commands or {}) do
    if id == base or id:sub(1, #base + 1) == base .. "/" then
      return id
    end
  end
  return base
end

--- Runs a knit server command; `callback(err, result)`.
function M.execute(base, arguments, callback, bufnr)
  local client = M.get_client(bufnr)
  if not client then
    notify("no knit language server is running for this buffer", vim.log.levels.WARN)
    return false
  end
  local params = { command = M.command_id(client, base), arguments = arguments }
  M.request(client, "workspace/executeCommand", params, function(err, result)
    if callback then
      callback(err, result, client)
    elseif err then
      notify(base .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end, bufnr or vim.api.nvim_get_current_buf())
  return true
end

local function define_commands()
  vim.api.nvim_create_user_command("KnitPack", function(opts)
    require("knit.pack").show({ query = opts.args ~= "" and opts.args or nil })
  end, { nargs = "*", desc = "knit: show the context pack (for the args as a task, else the current buffer)" })
  vim.api.nvim_create_user_command("KnitCheck", function(opts)
    require("knit.check").run(opts.fargs)
  end, { nargs = "*", complete = "file", desc = "knit: check anchors into the quickfix list ([--changed [REV]] [PATH...])" })
  vim.api.nvim_create_user_command("KnitRecord", function()
    M.execute("knit.recordFile", { vim.uri_from_bufnr(0) }, function(err, result)
      if err then
        notify("record: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif type(result) == "table" then
        notify(("recorded %d baseline(s)"):format(result.recorded or 0))
      end
    end)
  end, { desc = "knit: record every unrecorded anchor of this Markdown file" })
  vim.api.nvim_create_user_command("KnitChanges", function()
    local review = require("knit.review")
    review.show_changes(review.cursor_args())
  end, { desc = "knit: show what changed since review of the anchor under the cursor (diff in a scratch buffer)" })
  vim.api.nvim_create_user_command("KnitRebind", function()
    local review = require("knit.review")
    review.rebind(review.cursor_args())
  end, { desc = "knit: rebind the anchor under the cursor to any declaration (vim.ui.select)" })
end

--- setup({ cmd = { "knit", "lsp" }, filetypes = {...}, root_markers = {...}, init_options = {...},
---        on_attach = fn, capabilities = {...}, commands = true, pack = { limit = 20 } })
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if M.config.commands then
    define_commands()
  end
  if not M.config.lsp then
    return M
  end
  if vim.lsp.config and vim.lsp.enable then
    local cfg = client_config()
    cfg.name = nil
    vim.lsp.config("knit", cfg)
    vim.lsp.enable("knit")
    return M
  end
  local group = vim.api.nvim_create_augroup("knit_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes or M.filetypes,
    callback = function(args)
      start_for_buffer(args.buf)
    end,
  })
  -- buffers already open when setup() runs
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.config.filetypes or M.filetypes, vim.bo[bufnr].filetype) then
      start_for_buffer(bufnr)
    end
  end
  return M
end

return M
