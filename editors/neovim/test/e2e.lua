-- Headless end-to-end test of the knit Neovim plugin against the real `knit lsp`, on a
-- copy of the example workspace. Run by test/e2e.sh; prints "ok"/"not ok" lines and ends
-- with "N passed, N failed" (exit status 1 on failure).

local root = assert(os.getenv("KNIT_E2E_ROOT"), "KNIT_E2E_ROOT")
local bin = assert(os.getenv("KNIT_BIN"), "KNIT_BIN")
local plugin = assert(os.getenv("KNIT_PLUGIN_DIR"), "KNIT_PLUGIN_DIR")
local TIMEOUT = tonumber(os.getenv("KNIT_E2E_TIMEOUT_MS") or "") or 30000

vim.opt.runtimepath:prepend(plugin)
vim.cmd("filetype on")
vim.o.swapfile = false
vim.o.hidden = true
vim.o.columns = 160
vim.o.lines = 50

local passed, failed = 0, 0
local function out(line)
  io.stdout:write(line .. "\n")
  io.stdout:flush()
end
local function check(name, cond, detail)
  if cond then
    passed = passed + 1
    out("ok - " .. name)
  else
    failed = failed + 1
    out("not ok - " .. name)
    if detail ~= nil then
      out("    # " .. (type(detail) == "string" and detail or vim.inspect(detail)):gsub("\n", "\n    # "))
    end
  end
  return cond
end
local function finish()
  out(("%d passed, %d failed"):format(passed, failed))
  if failed > 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qall!")
  end
end

local ok, err = pcall(function()
  local knit = require("knit")
  knit.setup({ cmd = { bin, "lsp" } })

  local function code_of(d)
    return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  end
  local function find_diag(bufnr, code, lnum)
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if code_of(d) == code and d.lnum == lnum and d.source == "knit" then
        return d
      end
    end
  end
  local function diag_summary(bufnr)
    local s = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(s, ("%d:%s:%s"):format(d.lnum, tostring(code_of(d)), d.message))
    end
    return table.concat(s, " | ")
  end

  -- 1. open the doc: the server starts, attaches and reports the stale anchor
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/docs/architecture.md"))
  local doc = vim.api.nvim_get_current_buf()
  check("markdown buffer detected", vim.bo[doc].filetype == "markdown", vim.bo[doc].filetype)
  vim.wait(TIMEOUT, function()
    return knit.get_client(doc) ~= nil
  end, 50)
  local client = knit.get_client(doc)
  if not check("knit client attached to the doc", client ~= nil) then
    return
  end
  check("client root is the workspace (knit.toml)", client.config.root_dir == root, client.config.root_dir)
  vim.wait(TIMEOUT, function()
    return find_diag(doc, "stale", 2) ~= nil and find_diag(doc, "moved-renamed", 5) ~= nil
  end, 50)
  local stale = find_diag(doc, "stale", 2)
  check("stale-anchor diagnostic on line 3", stale ~= nil and stale.message:find("AnchorResolver.resolve", 1, true) ~= nil, diag_summary(doc))
  check("moved-renamed diagnostic on line 6", find_diag(doc, "moved-renamed", 5) ~= nil, diag_summary(doc))

  -- 2. hover on the renamed anchor (K, as a user would): the float names the new name
  local line6 = vim.api.nvim_buf_get_lines(doc, 5, 6, false)[1]
  local col = line6:find("[languageForPath]", 1, true) + 2
  vim.api.nvim_win_set_cursor(0, { 6, col })
  local main_win = vim.api.nvim_get_current_win()
  vim.lsp.buf.hover()
  local hover_lines
  vim.wait(TIMEOUT, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if w ~= main_win and vim.api.nvim_win_get_config(w).relative ~= "" then
        hover_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)
        return true
      end
    end
    return false
  end, 50)
  local hover_text = table.concat(hover_lines or {}, "\n")
  check("hover shows the new name pathLanguage", hover_text:find("pathLanguage", 1, true) ~= nil, hover_text)
  check("hover shows where it lives now", hover_text:find("src/util/paths.ts", 1, true) ~= nil, hover_text)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if w ~= main_win and vim.api.nvim_win_get_config(w).relative ~= "" then
      vim.api.nvim_win_close(w, true)
    end
  end
  vim.api.nvim_set_current_win(main_win)

  -- 3. code action: pick "Rebind …" from the menu; the diagnostic clears
  local offered = {}
  local original_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      local action = item.action or item[2] or item
      local title = action.title or ""
      table.insert(offered, title)
      if title:find("^Rebind") then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  vim.api.nvim_win_set_cursor(0, { 6, col })
  vim.lsp.buf.code_action()
  vim.wait(TIMEOUT, function()
    local l = vim.api.nvim_buf_get_lines(doc, 5, 6, false)[1]
    return l:find("paths.ts#pathLanguage", 1, true) ~= nil
  end, 50)
  vim.ui.select = original_select
  local new_line = vim.api.nvim_buf_get_lines(doc, 5, 6, false)[1]
  check("rebind action offered and applied", new_line:find("../src/util/paths.ts#pathLanguage", 1, true) ~= nil, { offered = offered, line = new_line })
  vim.wait(TIMEOUT, function()
    return find_diag(doc, "moved-renamed", 5) == nil
  end, 50)
  check("moved-renamed diagnostic cleared after the rebind", find_diag(doc, "moved-renamed", 5) == nil, diag_summary(doc))
  check("the stale diagnostic stays", find_diag(doc, "stale", 2) ~= nil, diag_summary(doc))

  -- 4. knit/status reaches the statusline helper
  vim.wait(TIMEOUT, function()
    return knit.statusline(doc):find("stale", 1, true) ~= nil
  end, 50)
  check("knit/status counts in the statusline", knit.statusline(doc):find("stale", 1, true) ~= nil, vim.inspect(knit.statuses))

  -- 5. :KnitPack — float + quickfix, for a typed task
  local pack_mod = require("knit.pack")
  pack_mod.last = nil
  vim.cmd("KnitPack language registry lookup")
  vim.wait(TIMEOUT, function()
    return pack_mod.last ~= nil
  end, 50)
  local last = pack_mod.last
  if check(":KnitPack received a pack", last ~= nil and type(last.pack) == "table") then
    check("pack task is the typed query", last.pack.task and last.pack.task.source == "query", last.pack.task)
    local float_text = table.concat(last.rendered and last.rendered.lines or {}, "\n")
    check("pack float lists src/lang.ts", float_text:find("src/lang.ts", 1, true) ~= nil, float_text)
    check("pack float shows the tier headings", float_text:find("\n%u%l+ %(%d+%)\n") ~= nil, float_text)
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    local names = {}
    for _, item in ipairs(qf.items) do
      table.insert(names, vim.api.nvim_buf_get_name(item.bufnr))
    end
    check("pack filled the quickfix list", qf.title == "knit context pack" and #qf.items > 0, { title = qf.title, names = names })
    local under_root = #names > 0
    for _, n in ipairs(names) do
      under_root = under_root and n:sub(1, #root) == root
    end
    check("quickfix entries are files of the workspace", under_root, names)
    -- <CR> on the first item opens it at its passage
    local win = last.win
    if win and vim.api.nvim_win_is_valid(win) then
      local target
      for lnum = 1, #last.rendered.lines do
        if last.rendered.items[lnum] then
          target = lnum
          break
        end
      end
      vim.api.nvim_win_set_cursor(win, { target, 0 })
      local item = last.rendered.items[target]
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
      local opened = vim.api.nvim_buf_get_name(0)
      check("<CR> opens the item", opened == root .. "/" .. item.path, { opened = opened, item = item.path })
    else
      check("pack float opened", false)
    end
  end

  -- 6. :KnitCheck — knit check --format json into the quickfix list
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/docs/architecture.md"))
  local done_report
  require("knit.check").run({}, function(report)
    done_report = report
  end)
  vim.wait(TIMEOUT, function()
    return done_report ~= nil
  end, 50)
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  local texts = {}
  for _, item in ipairs(qf.items) do
    table.insert(texts, ("%s:%d %s"):format(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ":t"), item.lnum, item.text))
  end
  check(":KnitCheck fills the quickfix list", qf.title == "knit check" and #qf.items > 0, texts)
  local has_stale = false
  for _, t in ipairs(texts) do
    has_stale = has_stale or (t:find("architecture.md:3 [stale]", 1, true) ~= nil)
  end
  check(":KnitCheck lists the stale anchor at its doc line", has_stale, texts)
end)
if not ok then
  check("test script ran without error", false, tostring(err))
end
finish()
