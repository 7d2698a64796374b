//! knit-lsp
