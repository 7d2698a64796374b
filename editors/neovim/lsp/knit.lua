-- Neovim 0.11+ native config (`vim.lsp.enable("knit")` finds this file on 'runtimepath').
-- require("knit").setup() does the same and adds :KnitPack / :KnitCheck / :KnitRecord.
-- Loading the knit module registers the client side of its code lens and review commands.
pcall(require, "knit")
return {
  cmd = { "knit", "lsp" },
  filetypes = { "markdown", "typescript", "typescriptreact", "javascript", "javascriptreact", "swift", "rust", "python", "go", "kotlin" },
  root_markers = { "knit.toml", ".git" },
  -- clientCommands: this plugin shows those commands' results (knit.review).
  init_options = { diagnostics = { workspace = true }, clientCommands = { "knit.changesSinceReview", "knit.rebindCandidates" } },
}
