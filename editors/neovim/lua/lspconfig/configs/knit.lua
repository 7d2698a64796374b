-- nvim-lspconfig server definition for knit (`require("lspconfig").knit.setup({})`).
-- Put editors/neovim on your 'runtimepath' (or install it as a plugin) and lspconfig
-- finds this file by name.
local util = require("lspconfig.util")
-- Loading the knit module registers the client side of its code lens command.
pcall(require, "knit")

return {
  default_config = {
    cmd = { "knit", "lsp" },
    filetypes = { "markdown", "typescript", "typescriptreact", "javascript", "javascriptreact", "swift", "rust", "python", "go", "kotlin" },
    root_dir = util.root_pattern("knit.toml", ".git"),
    single_file_support = false,
    -- clientCommands: the knit plugin shows those commands' results (knit.review).
    init_options = { diagnostics = { workspace = true }, clientCommands = { "knit.changesSinceReview", "knit.rebindCandidates" } },
    handlers = {
      ["knit/status"] = function(err, result, ctx)
        if not err and type(result) == "table" then
          require("knit").statuses[ctx.client_id] = result
          pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "KnitStatus", modeline = false })
        end
      end,
    },
  },
  docs = {
    description = [[
knit keeps Markdown docs honest about the code they describe: stale, moved, renamed and
lost code anchors are diagnostics on the doc line, with code actions to rebind or
confirm them; hover and go-to-definition follow anchors to the code. It also serves
context packs (`:KnitPack` from the knit plugin).

Install the server: `cargo install --locked --path server/knit-cli` in a knit checkout.
]],
  },
}
