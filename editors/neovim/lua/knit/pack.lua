-- :KnitPack — the context pack in a floating window and in the quickfix list.
--
-- The pack comes from the custom request `knit/contextPack` when the server advertises it
-- (capabilities.experimental.knit.contextPack), else from `workspace/executeCommand
-- knit.contextPack [params]`. `render` and `qf_items` are pure (tested headless).

local knit = require("knit")

local M = {}

local function notify_err(what, err)
  vim.notify(("knit: %s: %s"):format(what, err.message or vim.inspect(err)), vim.log.levels.ERROR)
end

M.sections = { "pinned", "primary", "supporting", "related", "more" }

local lifecycle_marks = {
  ["read"] = "✓ read",
  ["updated-after-read"] = "↻ changed since read",
  ["reread-after-update"] = "✓ re-read",
}

local function anchors_note(a)
  if type(a) ~= "table" or (a.total or 0) == 0 then
    return nil
  end
  local bad = {}
  if (a.stale or 0) > 0 then
    table.insert(bad, a.stale .. " stale")
  end
  if (a.lost or 0) > 0 then
    table.insert(bad, a.lost .. " lost")
  end
  if #bad == 0 then
    return nil
  end
  return ("anchors: %s of %d"):format(table.concat(bad, ", "), a.total)
end

local function relation_label(r)
  local arrow = r.dir == "in" and "←" or "→"
  local at = r.line and (":" .. r.line) or ""
  local sym = r.symbol and (" #" .. r.symbol) or ""
  return ("%s %s %s%s%s"):format(r.type or "?", arrow, r.other or "?", at, sym)
end
M.relation_label = relation_label

--- Lines of the float and, per line, the item shown there: { lines, items = {[lnum] = item} }.
function M.render(pack)
  local lines, items = {}, {}
  local task = pack.task or {}
  local terms = table.concat(vim.list_slice(task.terms or {}, 1, 8), ", ")
  local source_label = ({ query = "Task", conversation = "Conversation", openBuffers = "Open files", none = "No task" })[task.source]
    or tostring(task.source)
  table.insert(lines, ("%s: %s"):format(source_label, task.text or (terms ~= "" and terms or "—")))
  if task.text and terms ~= "" then
    table.insert(lines, "Terms: " .. terms)
  end
  if type(pack.degraded) == "table" then
    table.insert(lines, "! " .. (pack.degraded.detail or pack.degraded.reason or "degraded"))
  end
  local any = false
  for _, section in ipairs(M.sections) do
    local list = pack[section] or {}
    if #list > 0 then
      any = true
      table.insert(lines, "")
      table.insert(lines, ("%s (%d)"):format(section:sub(1, 1):upper() .. section:sub(2), #list))
      local numbered = section == "primary" or section == "supporting" or section == "related"
      for i, item in ipairs(list) do
        local range = item.passage and (":%d-%d"):format(item.passage.startLine, item.passage.endLine) or ""
        local head = numbered and ("  %d. "):format(i) or "  - "
        local extras = {}
        if lifecycle_marks[item.lifecycle] then
          table.insert(extras, lifecycle_marks[item.lifecycle])
        end
        local note = anchors_note(item.anchors)
        if note then
          table.insert(extras, note)
        end
        local title = (item.title and item.title ~= "" and item.title ~= item.path) and ("  " .. item.title) or ""
        local suffix = #extras > 0 and ("  [" .. table.concat(extras, "; ") .. "]") or ""
        table.insert(lines, head .. item.path .. range .. title .. suffix)
        items[#lines] = item
        for _, reason in ipairs(item.reasons or {}) do
          table.insert(lines, "       " .. reason)
          items[#lines] = item
        end
        for _, rel in ipairs(item.relations or {}) do
          table.insert(lines, "       " .. relation_label(rel))
          items[#lines] = item
        end
      end
    end
  end
  if not any then
    table.insert(lines, "")
    table.insert(lines, "Nothing to read for this task.")
  end
  return { lines = lines, items = items }
end

--- Quickfix entries: one per item, at its passage, tier and first reason as text.
function M.qf_items(pack, root)
  local out = {}
  for _, section in ipairs(M.sections) do
    for i, item in ipairs(pack[section] or {}) do
      local numbered = section == "primary" or section == "supporting" or section == "related"
      local reason = (item.reasons or {})[1]
      local note = anchors_note(item.anchors)
      local text = ("[%s%s] %s"):format(section, numbered and (" " .. i) or "", item.title ~= "" and item.title or item.path)
      if reason then
        text = text .. " — " .. reason
      end
      if note then
        text = text .. " (" .. note .. ")"
      end
      table.insert(out, {
        filename = root and (root .. "/" .. item.path) or item.path,
        lnum = item.passage and item.passage.startLine or 1,
        end_lnum = item.passage and item.passage.endLine or nil,
        col = 1,
        text = text,
        type = "I",
      })
    end
  end
  return out
end

--- The request params for the current window: focus = buffer + cursor, optional query.
function M.params(opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local params = { limit = opts.limit or knit.config.pack.limit or 20 }
  if opts.query and opts.query ~= "" then
    params.query = opts.query
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name ~= "" and vim.bo[bufnr].buftype == "" then
    local cursor = vim.api.nvim_win_get_cursor(0)
    params.focus = { uri = vim.uri_from_bufnr(bufnr), position = { line = cursor[1] - 1, character = cursor[2] } }
  end
  return params
end

local function root_of(client)
  if client.config and client.config.root_dir then
    return client.config.root_dir
  end
  local folders = client.workspace_folders or (client.config and client.config.workspace_folders)
  if folders and folders[1] then
    return vim.uri_to_fname(folders[1].uri)
  end
  return vim.fn.getcwd()
end

--- Fetches the pack; `callback(err, pack, client)`.
function M.fetch(opts, callback)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = knit.get_client(bufnr)
  if not client then
    callback({ message = "no knit language server is running for this buffer" })
    return
  end
  local params = M.params(opts)
  local caps = client.server_capabilities or {}
  local experimental = caps.experimental or {}
  local handler = function(err, result)
    callback(err, result, client)
  end
  if type(experimental.knit) == "table" and experimental.knit.contextPack then
    knit.request(client, "knit/contextPack", params, handler, bufnr)
  else
    knit.request(client, "workspace/executeCommand", { command = knit.command_id(client, "knit.contextPack"), arguments = { params } }, handler, bufnr)
  end
end

local function open_item(item, root)
  if not item then
    return
  end
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. item.path))
  if item.passage then
    pcall(vim.api.nvim_win_set_cursor, 0, { item.passage.startLine, 0 })
  end
end

--- The last pack shown, its rendering and the float (for mappings and tests).
M.last = nil

function M.open_float(pack, root)
  local rendered = M.render(pack)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, rendered.lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "knitpack"
  local width = 20
  for _, l in ipairs(rendered.lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 6))
  local height = math.min(#rendered.lines, math.max(3, vim.o.lines - 6))
  local border = knit.config.pack and knit.config.pack.border or "rounded"
  local from_win = vim.api.nvim_get_current_win()
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = "minimal",
    border = border,
  })
  vim.wo[win].wrap = false
  vim.wo[win].cursorline = true
  local function close()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end
  local function item_under_cursor()
    return rendered.items[vim.api.nvim_win_get_cursor(win)[1]]
  end
  local function control(action)
    local item = item_under_cursor()
    if not item then
      return
    end
    knit.execute("knit." .. action, { item.path }, function(err)
      if err then
        notify_err(action, err)
        return
      end
      close()
      M.show(M.last and M.last.opts or {})
    end, vim.api.nvim_win_get_buf(from_win))
  end
  local map = function(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
  map("q", close, "close")
  map("<Esc>", close, "close")
  map("<CR>", function()
    local item = item_under_cursor()
    close()
    if vim.api.nvim_win_is_valid(from_win) then
      vim.api.nvim_set_current_win(from_win)
    end
    open_item(item, root)
  end, "open the item at its passage")
  map("p", function()
    control("pin")
  end, "pin")
  map("u", function()
    control("unpin")
  end, "unpin")
  map("x", function()
    control("exclude")
  end, "exclude from packs")
  return buf, win, rendered
end

--- :KnitPack [query] — float + quickfix list. `opts.float = false` fills only the quickfix.
function M.show(opts)
  opts = opts or {}
  M.fetch(opts, function(err, pack, client)
    if err then
      notify_err("context pack", err)
      return
    end
    if type(pack) ~= "table" then
      notify_err("context pack", { message = "the server returned no pack" })
      return
    end
    local root = root_of(client)
    vim.fn.setqflist({}, " ", { title = "knit context pack", items = M.qf_items(pack, root) })
    local buf, win, rendered
    if opts.float ~= false then
      buf, win, rendered = M.open_float(pack, root)
    end
    M.last = { pack = pack, root = root, opts = opts, buf = buf, win = win, rendered = rendered }
    pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "KnitPack", modeline = false })
  end)
end

return M
