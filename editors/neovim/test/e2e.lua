-- Headless end-to-end test of the knit Neovim plugin against the real `knit lsp`, on a
-- copy of the example workspace (docs) and of fixtures/clients-polyglot (Rust and Python
-- code), plus the help file. Run by test/e2e.sh; prints "ok"/"not ok" lines and ends
-- with "N passed, N failed" (exit status 1 on failure).

local root = assert(os.getenv("KNIT_E2E_ROOT"), "KNIT_E2E_ROOT")
local polyglot = assert(os.getenv("KNIT_E2E_POLYGLOT"), "KNIT_E2E_POLYGLOT")
local bin = assert(os.getenv("KNIT_BIN"), "KNIT_BIN")
local plugin = assert(os.getenv("KNIT_PLUGIN_DIR"), "KNIT_PLUGIN_DIR")
local TIMEOUT = tonumber(os.getenv("KNIT_E2E_TIMEOUT_MS") or "") or 30000

vim.opt.runtimepath:prepend(plugin)
vim.cmd("filetype on")
vim.o.swapfile = false
vim.o.hidden = true
vim.o.columns = 160
vim.o.lines = 50

local harness = dofile(plugin .. "/test/harness.lua")
local out, check, finish = harness.out, harness.check, harness.finish

local ok, err = pcall(function()
  local knit = require("knit")
  -- codeLens.undocumented and diagnostics.codeMentions are off by default; on here, to
  -- see them in a real client
  knit.setup({ cmd = { bin, "lsp" }, init_options = { codeLens = { undocumented = true }, diagnostics = { codeMentions = true } } })

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

  -- 0. the plugin as shipped: the three server definitions attach to the same filetypes
  -- (every language knit reads), and `:help knit` works from 'runtimepath' alone.
  package.loaded["lspconfig.util"] = package.loaded["lspconfig.util"] or {
    root_pattern = function()
      return function() end
    end,
  }
  local native = dofile(plugin .. "/lsp/knit.lua").filetypes
  local lspconfig = dofile(plugin .. "/lua/lspconfig/configs/knit.lua").default_config.filetypes
  package.loaded["lspconfig.util"] = nil
  check("lsp/knit.lua and lspconfig attach to the filetypes setup() does", vim.deep_equal(native, knit.filetypes) and vim.deep_equal(lspconfig, knit.filetypes), {
    setup = knit.filetypes,
    native = native,
    lspconfig = lspconfig,
  })
  local missing = {}
  for _, ft in ipairs({ "markdown", "typescript", "typescriptreact", "javascript", "javascriptreact", "swift", "rust", "python", "go", "kotlin" }) do
    if not vim.tbl_contains(knit.filetypes, ft) then
      table.insert(missing, ft)
    end
  end
  check("filetypes cover every language knit reads", #missing == 0, missing)

  local help_ok, help_err = pcall(vim.cmd, "help knit")
  check(":help knit opens doc/knit.txt", help_ok and vim.bo.filetype == "help" and vim.api.nvim_buf_get_name(0) == plugin .. "/doc/knit.txt", {
    err = help_err,
    buf = vim.api.nvim_buf_get_name(0),
  })
  if help_ok then
    vim.cmd("helpclose")
  end
  -- The committed doc/tags must be exactly what :helptags makes of doc/knit.txt (generated
  -- in a temp copy, so the test never writes into the repository).
  local tmpdoc = vim.fn.tempname()
  vim.fn.mkdir(tmpdoc, "p")
  vim.fn.writefile(vim.fn.readfile(plugin .. "/doc/knit.txt", "b"), tmpdoc .. "/knit.txt", "b")
  vim.cmd("helptags " .. vim.fn.fnameescape(tmpdoc))
  local generated = vim.fn.readfile(tmpdoc .. "/tags", "b")
  vim.fn.delete(tmpdoc, "rf")
  local committed = vim.fn.filereadable(plugin .. "/doc/tags") == 1 and vim.fn.readfile(plugin .. "/doc/tags", "b") or {}
  check("doc/tags is what :helptags generates (regenerate: nvim --headless -u NONE -c 'helptags editors/neovim/doc' -c q)", vim.deep_equal(generated, committed), {
    generated = generated,
    committed = committed,
  })

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

  -- 1a. the doc's outline (:lua vim.lsp.buf.document_symbol(), which Neovim 0.7 puts in
  -- the quickfix list): headings and, under them, each anchor with its state
  vim.fn.setqflist({}, " ", { title = "before symbols", items = {} })
  vim.lsp.buf.document_symbol()
  vim.wait(TIMEOUT, function()
    return vim.fn.getqflist({ title = 1 }).title ~= "before symbols"
  end, 50)
  local outline = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(outline, item.text)
  end
  local joined = table.concat(outline, " | ")
  check("document symbols list the heading and the anchors", joined:find("Architecture", 1, true) ~= nil and joined:find("resolver", 1, true) ~= nil and joined:find("languageForPath", 1, true) ~= nil, outline)
  vim.cmd("silent! cclose")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(doc))

  -- 1a'. anchored declarations by name from anywhere (vim.lsp.buf.workspace_symbol)
  vim.fn.setqflist({}, " ", { title = "before workspace symbols", items = {} })
  vim.lsp.buf.workspace_symbol("extensionOf")
  vim.wait(TIMEOUT, function()
    return vim.fn.getqflist({ title = 1 }).title ~= "before workspace symbols"
  end, 50)
  local wsyms = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(wsyms, ("%s:%d %s"):format(vim.api.nvim_buf_get_name(item.bufnr):sub(#root + 2), item.lnum, item.text))
  end
  check("workspace symbols find the anchored declaration where it is", #wsyms == 1 and wsyms[1]:find("^src/util/paths.ts:2 ") ~= nil, wsyms)
  vim.cmd("silent! cclose")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(doc))

  -- 1b. Neovim 0.7 does not watch files for the server: a change made on disk behind the
  -- editor (a checkout, another program) still reaches the diagnostics, without :e.
  local paths_ts = root .. "/src/util/paths.ts"
  local original = vim.fn.readfile(paths_ts, "b")
  local changed = {}
  for _, l in ipairs(original) do
    table.insert(changed, (l:gsub("toLowerCase", "toUpperCase")))
  end
  vim.fn.writefile(changed, paths_ts, "b")
  vim.wait(TIMEOUT, function()
    return find_diag(doc, "stale", 6) ~= nil
  end, 50)
  check("a code change on disk turns an anchor stale without :e", find_diag(doc, "stale", 6) ~= nil, diag_summary(doc))
  vim.fn.writefile(original, paths_ts, "b")
  vim.wait(TIMEOUT, function()
    return find_diag(doc, "stale", 6) == nil
  end, 50)
  check("restoring it on disk makes the anchor fresh again", find_diag(doc, "stale", 6) == nil, diag_summary(doc))

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
    table.insert(texts, ("%s:%d:%d %s"):format(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ":t"), item.lnum, item.col, item.text))
  end
  check(":KnitCheck fills the quickfix list", qf.title == "knit check" and #qf.items > 0, texts)
  local has_stale = false
  for _, t in ipairs(texts) do
    -- at the link's own column, not column 1
    has_stale = has_stale or (t:find("architecture.md:3:34 [stale]", 1, true) ~= nil)
  end
  check(":KnitCheck lists the stale anchor at its doc line", has_stale, texts)

  -- 6b. completion in a link destination through Neovim 0.7's own omnifunc logic: it
  -- inserts an item's word at the start of the keyword under the cursor (`/`, `.` and
  -- `#` are not keyword characters), so the server's edit must be just that segment.
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/docs/new.md"))
  local nbuf = vim.api.nvim_get_current_buf()
  local nwin = vim.api.nvim_get_current_win()
  vim.wait(TIMEOUT, function()
    return #vim.lsp.buf_get_clients(nbuf) > 0
  end, 50)
  -- types `typed` on a line, asks for completion at its end and accepts the item whose
  -- word starts with `pick`, as <C-x><C-o> then <CR> would: the resulting line
  local function complete(typed, pick)
    vim.api.nvim_buf_set_lines(nbuf, 0, -1, false, { typed })
    vim.api.nvim_win_set_cursor(nwin, { 1, #typed })
    -- Neovim debounces didChange (150 ms): let the server see the line first
    vim.wait(400)
    local start = vim.fn.match(typed, "\\k*$")
    local prefix = typed:sub(start + 1)
    -- the insert-mode cursor, after the last character (normal mode cannot stand there)
    local params = { textDocument = vim.lsp.util.make_text_document_params(), position = { line = 0, character = #typed } }
    local replies = vim.lsp.buf_request_sync(nbuf, "textDocument/completion", params, TIMEOUT) or {}
    for _, reply in pairs(replies) do
      if reply.result then
        for _, m in ipairs(vim.lsp.util.text_document_completion_list_to_complete_items(reply.result, prefix)) do
          if vim.startswith(m.word, pick) then
            return typed:sub(1, start) .. m.word
          end
        end
      end
    end
    return nil
  end
  local path_line = complete("[r](../src/", "resolve.ts")
  check("completion after ../src/ inserts the file name once", path_line == "[r](../src/resolve.ts", path_line)
  local partial_line = complete("[r](../src/res", "resolve.ts")
  check("completion of a partly typed name completes it", partial_line == "[r](../src/resolve.ts", partial_line)
  local member_line = complete("[r](../src/resolve.ts#AnchorResolver.", "resolve")
  check("completion after Class. inserts the member, born recorded", member_line ~= nil and vim.startswith(member_line, '[r](../src/resolve.ts#AnchorResolver.resolve "knit:'), member_line)
  local filtered_line = complete("[r](../src/resolve.ts#AnchorResolver.res", "resolve")
  check("a partly typed member still matches", filtered_line ~= nil and vim.startswith(filtered_line, '[r](../src/resolve.ts#AnchorResolver.resolve "knit:'), filtered_line)
  vim.api.nvim_buf_set_lines(nbuf, 0, -1, false, {})
  vim.cmd("bwipeout! " .. nbuf)

  -- 6c. "Show changes since review" on the stale anchor (e2e.sh gave the workspace its
  -- history: the reviewed version committed, then a commit that changed `resolve`): the
  -- code action opens the declaration's diff in a scratch buffer.
  vim.api.nvim_set_current_buf(doc)
  local review_win = vim.api.nvim_get_current_win()
  local line3 = vim.api.nvim_buf_get_lines(doc, 2, 3, false)[1]
  local rcol = line3:find("[resolver]", 1, true) + 2
  -- vim.ui.select stand-in: picks the first entry whose text matches `want` (code
  -- actions by title, the rebind picker by its formatted item) and records what it saw.
  local seen_select = {}
  local function select_matching(want)
    vim.ui.select = function(items, opts, on_choice)
      for i, item in ipairs(items) do
        local action = item.action or item[2] or item
        local text = action.title or (opts.format_item and opts.format_item(item)) or ""
        table.insert(seen_select, text)
        if text:find(want) then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end
  end
  local function changes_buffer()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(b):find("knit://changes/", 1, true) then
        return b
      end
    end
  end
  select_matching("^Show changes since review")
  vim.api.nvim_win_set_cursor(review_win, { 3, rcol })
  vim.lsp.buf.code_action()
  vim.wait(TIMEOUT, function()
    return changes_buffer() ~= nil
  end, 50)
  local cbuf = changes_buffer()
  local ctext = cbuf and table.concat(vim.api.nvim_buf_get_lines(cbuf, 0, -1, false), "\n") or ""
  check("Show changes since review opens the diff in a scratch buffer", cbuf ~= nil and vim.bo[cbuf].filetype == "diff" and vim.bo[cbuf].buftype == "nofile", { offered = seen_select, name = cbuf and vim.api.nvim_buf_get_name(cbuf) })
  check("the diff names the reviewed commit and the commit since", ctext:find("Reviewed as of %x+ %(%d+%-%d+%-%d+%) Example workspace") ~= nil and ctext:find("Resolver: name the unsupported language", 1, true) ~= nil, ctext)
  check("the diff shows the declaration's change", ctext:find("-      return `unsupported: ${anchor.path}`;", 1, true) ~= nil and ctext:find("+      return `unsupported language: ${anchor.path}`;", 1, true) ~= nil, ctext)
  if cbuf then
    vim.fn.writefile(vim.api.nvim_buf_get_lines(cbuf, 0, -1, false), (os.getenv("KNIT_E2E_CAPTURE") or "/dev/null"))
    vim.cmd("bwipeout! " .. cbuf)
  end
  vim.api.nvim_set_current_win(vim.fn.bufwinid(doc))
  -- :KnitChanges at the cursor does the same.
  vim.api.nvim_win_set_cursor(0, { 3, rcol })
  vim.cmd("KnitChanges")
  vim.wait(TIMEOUT, function()
    return changes_buffer() ~= nil
  end, 50)
  check(":KnitChanges at the cursor opens the same diff", changes_buffer() ~= nil)
  if changes_buffer() then
    vim.cmd("bwipeout! " .. changes_buffer())
  end
  vim.api.nvim_set_current_win(vim.fn.bufwinid(doc))

  -- 6d. "Rebind … to…": the picker (vim.ui.select) lists every declaration, most alike
  -- first; the one picked is applied, its baseline recorded: the anchor is fresh.
  seen_select = {}
  select_matching("to…$")
  local picked_from
  local code_action_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    if opts.kind == "knit.rebind" then
      picked_from = {}
      for i, item in ipairs(items) do
        picked_from[i] = opts.format_item(item)
        if item.symbol == "LanguageRegistry.lookup" then
          return on_choice(item, i)
        end
      end
      return on_choice(nil, nil)
    end
    return code_action_select(items, opts, on_choice)
  end
  vim.api.nvim_win_set_cursor(0, { 3, rcol })
  vim.lsp.buf.code_action()
  vim.wait(TIMEOUT, function()
    local l = vim.api.nvim_buf_get_lines(doc, 2, 3, false)[1]
    return l:find("#LanguageRegistry.lookup", 1, true) ~= nil
  end, 50)
  vim.ui.select = original_select
  local rebound = vim.api.nvim_buf_get_lines(doc, 2, 3, false)[1]
  check("Rebind … to… offers a picker over the workspace's declarations", picked_from ~= nil and #picked_from >= 5 and picked_from[1]:find("^AnchorResolver ") ~= nil and picked_from[1]:find("%d+%% alike: name shares `resolve`") ~= nil, { offered = seen_select, picker = picked_from })
  check("the picked declaration is applied with its baseline", rebound:find('(../src/lang.ts#LanguageRegistry.lookup "knit:', 1, true) ~= nil, rebound)
  vim.wait(TIMEOUT, function()
    return find_diag(doc, "stale", 2) == nil
  end, 50)
  check("the rebound anchor is fresh", find_diag(doc, "stale", 2) == nil, diag_summary(doc))
  vim.cmd("silent! undo")

  -- 7. code buffers of the other languages (a workspace of its own): knit attaches, puts a
  -- code lens on each anchored declaration, answers references with the doc line, and
  -- flags an unsaved edit that would make the doc stale.
  local function knit_attached(bufnr)
    local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
    for _, c in pairs(clients) do
      if c.name == "knit" then
        return c
      end
    end
  end
  -- Lens texts as drawn (virtual text in the codelens namespaces), by 0-based line.
  local function drawn_lenses(bufnr)
    local drawn = {}
    for name, ns in pairs(vim.api.nvim_get_namespaces()) do
      if name:find("codelens", 1, true) then
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
          local text = {}
          for _, chunk in ipairs(m[4].virt_text or {}) do
            table.insert(text, chunk[1])
          end
          drawn[m[2]] = (drawn[m[2]] or "") .. table.concat(text)
        end
      end
    end
    return drawn
  end
  local cases = {
    { lang = "rust", file = "src/config.rs", decl = "pub fn parse_config", name = "parse_config", doc_line = 3, edit = { "starts_with('#')", "starts_with(';')" }, undocumented = "default_port" },
    { lang = "python", file = "tools/report.py", decl = "def render_report", name = "render_report", doc_line = 6, edit = { "sorted(settings)", "settings" } },
    { lang = "go", file = "server/listen.go", decl = "func ListenAddress", name = "ListenAddress", doc_line = 9, edit = { '"127.0.0.1"', '"0.0.0.0"' } },
    { lang = "kotlin", file = "app/Greeting.kt", decl = "fun greeting", name = "greeting", doc_line = 10, edit = { '"service"', '"app"' } },
  }
  for _, case in ipairs(cases) do
    vim.cmd("edit " .. vim.fn.fnameescape(polyglot .. "/" .. case.file))
    local buf = vim.api.nvim_get_current_buf()
    local win = vim.api.nvim_get_current_win()
    check(case.lang .. " buffer detected", vim.bo[buf].filetype == case.lang, vim.bo[buf].filetype)
    vim.wait(TIMEOUT, function()
      return knit_attached(buf) ~= nil
    end, 50)
    local c = knit_attached(buf)
    if check("knit client attached to the " .. case.lang .. " buffer", c ~= nil) then
      check(case.lang .. ": client root is the polyglot workspace", c.config.root_dir == polyglot, c.config.root_dir)
      local decl_line
      for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        if not decl_line and l:find(case.decl, 1, true) then
          decl_line = i
        end
      end
      local want = ("described by 1 doc line: docs/config.md:%d"):format(case.doc_line)
      -- The first scan of the workspace may still be running: ask again until it answers.
      local lens
      vim.wait(TIMEOUT, function()
        for _, l in ipairs(vim.lsp.codelens.get(buf)) do
          if l.command and l.command.title == want then
            lens = l
            return true
          end
        end
        vim.lsp.codelens.refresh()
        return false
      end, 200)
      check(case.lang .. ": code lens on " .. case.name .. " names the doc line", lens ~= nil and lens.range.start.line == decl_line - 1, {
        want = want,
        decl_line = decl_line,
        lenses = vim.lsp.codelens.get(buf),
      })
      vim.wait(2000, function()
        return (drawn_lenses(buf)[decl_line - 1] or ""):find(want, 1, true) ~= nil
      end, 50)
      check(case.lang .. ": the lens is drawn above the declaration", (drawn_lenses(buf)[decl_line - 1] or ""):find(want, 1, true) ~= nil, drawn_lenses(buf))
      if case.undocumented then
        local title = "not documented: no doc anchors " .. case.undocumented
        local found = false
        for _, l in ipairs(vim.lsp.codelens.get(buf)) do
          found = found or (l.command and l.command.title == title)
        end
        check(case.lang .. ": a public declaration no doc anchors has a \"not documented\" lens (codeLens.undocumented)", found, vim.lsp.codelens.get(buf))
      end

      -- running the lens, as <cmd>lua vim.lsp.codelens.run()<cr> on its line would: the doc
      -- line lands in the quickfix list
      vim.fn.setqflist({}, " ", { title = "before the lens", items = {} })
      vim.api.nvim_win_set_cursor(win, { decl_line, 0 })
      vim.lsp.codelens.run()
      vim.wait(TIMEOUT, function()
        return vim.fn.getqflist({ title = 1 }).title == require("knit").lens_list_title
      end, 50)
      local from_lens = {}
      for _, item in ipairs(vim.fn.getqflist()) do
        table.insert(from_lens, ("%s:%d"):format(vim.api.nvim_buf_get_name(item.bufnr):sub(#polyglot + 2), item.lnum))
      end
      check(case.lang .. ": running the lens lists the doc line", vim.deep_equal(from_lens, { "docs/config.md:" .. case.doc_line }), from_lens)
      vim.cmd("cclose")
      vim.api.nvim_set_current_win(win)

      -- references on the declaration's name, as a user would: the quickfix list
      vim.fn.setqflist({}, " ", { title = "before references", items = {} })
      local name_col = vim.api.nvim_buf_get_lines(buf, decl_line - 1, decl_line, false)[1]:find(case.name, 1, true)
      vim.api.nvim_win_set_cursor(win, { decl_line, name_col })
      vim.lsp.buf.references()
      vim.wait(TIMEOUT, function()
        return vim.fn.getqflist({ title = 1 }).title == "References"
      end, 50)
      local refs = {}
      for _, item in ipairs(vim.fn.getqflist()) do
        table.insert(refs, ("%s:%d"):format(vim.api.nvim_buf_get_name(item.bufnr):sub(#polyglot + 2), item.lnum))
      end
      check(case.lang .. ": references on " .. case.name .. " list the doc line", vim.deep_equal(refs, { "docs/config.md:" .. case.doc_line }), refs)
      vim.cmd("cclose")
      vim.api.nvim_set_current_win(win)

      -- an unsaved edit of the body: the declaration says the doc will go stale
      for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        local at = l:find(case.edit[1], 1, true)
        if at then
          vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { l:sub(1, at - 1) .. case.edit[2] .. l:sub(at + #case.edit[1]) })
          break
        end
      end
      local function hint()
        for _, d in ipairs(vim.diagnostic.get(buf)) do
          if code_of(d) == "will-go-stale" and d.source == "knit" then
            return d
          end
        end
      end
      vim.wait(TIMEOUT, function()
        return hint() ~= nil
      end, 50)
      local d = hint()
      check(case.lang .. ": an unsaved edit of " .. case.name .. " shows will-go-stale on it", d ~= nil and d.lnum == decl_line - 1, diag_summary(buf))
      vim.cmd("silent! edit!")
    end
  end

  -- 9. a doc's heading: references list the links to its section; rename rewrites the
  -- heading and those links (vim.lsp.buf.rename, as a user would)
  local guide_path = root .. "/docs/guide.md"
  vim.fn.writefile({ "# Guide", "", "## Setup", "", "Steps. See [setup](#setup) again." }, guide_path)
  vim.cmd("edit " .. vim.fn.fnameescape(guide_path))
  local guide = vim.api.nvim_get_current_buf()
  vim.wait(TIMEOUT, function()
    return knit.get_client(guide) ~= nil
  end, 50)
  vim.api.nvim_win_set_cursor(0, { 3, 4 })
  vim.fn.setqflist({}, " ", { title = "before heading references", items = {} })
  vim.lsp.buf.references()
  vim.wait(TIMEOUT, function()
    return vim.fn.getqflist({ title = 1 }).title == "References"
  end, 50)
  local hrefs = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(hrefs, ("%s:%d"):format(vim.api.nvim_buf_get_name(item.bufnr):sub(#root + 2), item.lnum))
  end
  table.sort(hrefs)
  check("references on a heading list it and the link to its section", vim.deep_equal(hrefs, { "docs/guide.md:3", "docs/guide.md:5" }), hrefs)
  vim.cmd("silent! cclose")
  vim.api.nvim_set_current_win(vim.fn.bufwinid(guide))
  vim.api.nvim_win_set_cursor(0, { 3, 4 })
  vim.lsp.buf.rename("Getting started")
  vim.wait(TIMEOUT, function()
    return vim.api.nvim_buf_get_lines(guide, 2, 3, false)[1] == "## Getting started"
  end, 50)
  local renamed = vim.api.nvim_buf_get_lines(guide, 0, -1, false)
  check("renaming a heading rewrites it and the links to it", renamed[3] == "## Getting started" and renamed[5] == "Steps. See [setup](#getting-started) again.", renamed)

  -- 10. code mentions (diagnostics.codeMentions, on in this setup): inline code naming one
  -- declaration gets a hint; its code action turns it into a recorded anchor
  local mentions_path = root .. "/docs/mentions.md"
  vim.fn.writefile({ "# Mentions", "", "The doc resolver is `AnchorResolver.resolve`." }, mentions_path)
  vim.cmd("edit " .. vim.fn.fnameescape(mentions_path))
  local mentions = vim.api.nvim_get_current_buf()
  vim.wait(TIMEOUT, function()
    return find_diag(mentions, "code-mention", 2) ~= nil
  end, 50)
  local hint = find_diag(mentions, "code-mention", 2)
  check("a code mention naming one declaration gets a hint (codeMentions)", hint ~= nil and hint.severity == vim.diagnostic.severity.HINT, diag_summary(mentions))
  local offered_here = {}
  local select_before = vim.ui.select
  vim.ui.select = function(items, _, on_choice)
    for i, item in ipairs(items) do
      local title = (item.action or item[2] or item).title or ""
      table.insert(offered_here, title)
      if title:find("^Convert `AnchorResolver.resolve` to an anchor") then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  vim.api.nvim_win_set_cursor(0, { 3, 25 })
  vim.lsp.buf.code_action()
  vim.wait(TIMEOUT, function()
    return vim.api.nvim_buf_get_lines(mentions, 2, 3, false)[1]:find("#AnchorResolver.resolve \"knit:", 1, true) ~= nil
  end, 50)
  vim.ui.select = select_before
  local converted = vim.api.nvim_buf_get_lines(mentions, 2, 3, false)[1]
  check("its code action converts it into a recorded anchor", converted:find("[`AnchorResolver.resolve`](../src/resolve.ts#AnchorResolver.resolve \"knit:", 1, true) ~= nil, { offered = offered_here, line = converted })

  -- 11. a TSDoc symbol link: go to definition (gd's vim.lsp.buf.definition) lands on the
  -- declaration; one whose class lacks the member is a broken-link diagnostic
  vim.api.nvim_buf_set_lines(mentions, 3, 3, false, { "", "See {@link AnchorResolver.resolve} and {@link AnchorResolver.reslove}." })
  vim.wait(TIMEOUT, function()
    return find_diag(mentions, "broken-link", 4) ~= nil
  end, 50)
  local broken_link = find_diag(mentions, "broken-link", 4)
  check("a {@link} to a member its class lacks is a broken link, with did-you-mean", broken_link ~= nil and broken_link.message:find("did you mean `resolve`", 1, true) ~= nil, diag_summary(mentions))
  vim.api.nvim_win_set_cursor(0, { 5, 15 })
  vim.lsp.buf.definition()
  vim.wait(TIMEOUT, function()
    return vim.api.nvim_buf_get_name(0):find("src/resolve.ts", 1, true) ~= nil
  end, 50)
  local landed = vim.api.nvim_buf_get_name(0)
  local resolve_line = vim.api.nvim_win_get_cursor(0)[1]
  local want_line = vim.fn.readfile(root .. "/src/resolve.ts")[resolve_line] or ""
  check("go to definition on a {@link} lands on the declaration", landed:find("src/resolve.ts", 1, true) ~= nil and want_line:find("resolve", 1, true) ~= nil, { landed = landed, line = want_line })
end)
if not ok then
  check("test script ran without error", false, tostring(err))
end
finish()
