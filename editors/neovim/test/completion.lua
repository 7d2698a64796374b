-- Headless end-to-end test of completion in a link destination as a Neovim 0.7 user
-- gets it: real keystrokes in Insert mode, <C-x><C-o> with 'omnifunc' and <C-x><C-u>
-- with 'completefunc' set to vim.lsp.omnifunc, the popup's items, and the line after
-- accepting one with <C-n>…<C-y>. Insert mode and the popup only run in Neovim's main
-- loop, so the test is a chain of timers (not vim.wait). Run by test/e2e.sh after
-- e2e.lua; prints "ok"/"not ok" lines and "N passed, N failed".

local root = assert(os.getenv("KNIT_E2E_ROOT"), "KNIT_E2E_ROOT")
local bin = assert(os.getenv("KNIT_BIN"), "KNIT_BIN")
local plugin = assert(os.getenv("KNIT_PLUGIN_DIR"), "KNIT_PLUGIN_DIR")

vim.opt.runtimepath:prepend(plugin)
vim.cmd("filetype on")
vim.o.swapfile = false
vim.o.hidden = true
vim.o.showmode = false
vim.opt.shortmess:append("c")
-- no item preselected: <C-n> k times selects the k-th
vim.o.completeopt = "menuone,noinsert,noselect"

local harness = dofile(plugin .. "/test/harness.lua")
local out, check, finish = harness.out, harness.check, harness.finish
-- a stuck step must not hang the run
vim.defer_fn(function()
  check("completion test finished in time", false)
  finish()
end, 60000)

require("knit").setup({ cmd = { bin, "lsp" } })
vim.cmd("edit " .. vim.fn.fnameescape(root .. "/docs/completion.md"))
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].omnifunc = "v:lua.vim.lsp.omnifunc"
vim.bo[buf].completefunc = "v:lua.vim.lsp.omnifunc"

local function keys(k)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), "n", false)
end
local function poll(cond, done, left)
  left = left or 200
  if cond() or left == 0 then
    return done()
  end
  vim.defer_fn(function()
    poll(cond, done, left - 1)
  end, 50)
end

-- typed text, the keys that ask for completion, the item to accept, the line expected
local cases = {
  { "omnifunc: after ../src/ the folder's entries", "[r](../src/", "<C-x><C-o>", "resolve.ts", "[r](../src/resolve.ts" },
  { "omnifunc: a partly typed name", "[r](../src/res", "<C-x><C-o>", "resolve.ts", "[r](../src/resolve.ts" },
  { "completefunc: after Class. its members, born recorded", "[r](../src/resolve.ts#AnchorResolver.", "<C-x><C-u>", "resolve", '[r](../src/resolve.ts#AnchorResolver.resolve "knit:' },
  { "completefunc: a partly typed member", "[r](../src/resolve.ts#AnchorResolver.res", "<C-x><C-u>", "resolve", '[r](../src/resolve.ts#AnchorResolver.resolve "knit:' },
}

local function run(i)
  local c = cases[i]
  if not c then
    return finish()
  end
  local name, typed, ask, pick, want = c[1], c[2], c[3], c[4], c[5]
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "" })
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  keys("i" .. typed)
  -- Neovim debounces didChange (150 ms): let the server see the line first
  vim.defer_fn(function()
    keys(ask)
    poll(function()
      return vim.fn.pumvisible() == 1
    end, function()
      local words, at = {}, nil
      for k, item in ipairs(vim.fn.complete_info({ "items" }).items or {}) do
        table.insert(words, item.word)
        if not at and vim.startswith(item.word, pick) then
          at = k
        end
      end
      keys(string.rep("<C-n>", at or 0) .. "<C-y><Esc>")
      vim.defer_fn(function()
        local line = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
        check(name, at ~= nil and vim.startswith(line, want) and not line:find("src/../src", 1, true), { items = words, line = line })
        run(i + 1)
      end, 300)
    end)
  end, 500)
end

poll(function()
  return #vim.lsp.buf_get_clients(buf) > 0
end, function()
  check("knit attached to the new doc", #vim.lsp.buf_get_clients(buf) > 0)
  run(1)
end)
