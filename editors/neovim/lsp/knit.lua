-- Neovim 0.11+ native config (`vim.lsp.enable("knit")` finds this file on 'runtimepath').
-- require("knit").setup() does the same and adds :KnitPack / :KnitCheck / :KnitRecord.
return {
  cmd = { "knit", "lsp" },
  filetypes = { "markdown", "typescript", "typescriptreact", "javascript", "javascriptreact", "swift", "rust", "python", "go", "kotlin" },
  root_markers = { "knit.toml", ".git" },
  init_options = { diagnostics = { workspace = true } },
}
