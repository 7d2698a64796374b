//! The protocol face: `Backend` implements tower-lsp-server's `LanguageServer`. It owns
//! no analysis. Notifications are forwarded to the single writer *synchronously* (no
//! `.await` before the send), so they reach it in wire order; requests take a snapshot
//! through the writer (a barrier: it reflects every notification sent before the
//! request) and compute on a blocking thread, so a long request never stalls the reader
//! loop and a cancelled one is simply dropped.

use crate::commands;
use crate::config::Settings;
use crate::handlers;
use crate::position::Encoding;
use crate::handle::ServerHandle;
use crate::snapshot::ClientCaps;
use crate::world::Event;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// The `LanguageServer` implementation around the [`ServerHandle`] that handlers receive
/// (they never see the `Backend`, so handlers do not depend on this module).
pub struct Backend {
    handle: ServerHandle,
}

impl std::ops::Deref for Backend {
    type Target = ServerHandle;
    fn deref(&self) -> &ServerHandle {
        &self.handle
    }
}

impl Backend {
    pub(crate) fn new(client: Client, tx: mpsc::UnboundedSender<Event>) -> Backend {
        Backend { handle: ServerHandle::new(client, tx) }
    }

    /// Custom request `knit/contextPack`.
    pub async fn context_pack(&self, params: Value) -> Result<Value> {
        let snap = self.snapshot().await?;
        handlers::context_pack::pack(self, snap, params).await
    }

    /// The answer to a frame the input pump found malformed (`transport`).
    pub async fn invalid_message(&self, params: Value) -> Result<Value> {
        crate::transport::invalid_message(params)
    }

    /// Custom notification `knit/didRead {uri}`: read evidence from agent integrations.
    pub async fn did_read(&self, params: Value) {
        let Ok(snap) = self.snapshot().await else { return };
        handlers::context_pack::did_read(self, snap, params).await;
    }
}

fn folders_of(params: &InitializeParams) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Some(ws) = &params.workspace_folders {
        out.extend(ws.iter().filter_map(|f| crate::folder::uri_path(&f.uri)));
    }
    #[allow(deprecated)]
    if out.is_empty() {
        if let Some(p) = params.root_uri.as_ref().and_then(crate::folder::uri_path) {
            out.push(p);
        } else if let Some(p) = params.root_path.as_ref() {
            let p = std::path::PathBuf::from(p);
            if p.is_absolute() {
                out.push(p);
            }
        }
    }
    out
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = &params.capabilities;
        let encoding = Encoding::negotiate(caps.general.as_ref().and_then(|g| g.position_encodings.as_deref()));
        let settings = Settings::from_json(params.initialization_options.as_ref());
        let client_caps = ClientCaps {
            work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
            watch_dynamic: caps
                .workspace
                .as_ref()
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            document_changes: caps
                .workspace
                .as_ref()
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            code_lens_refresh: caps
                .workspace
                .as_ref()
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
        };
        let unique = settings.unique_command_ids;
        self.send(Event::Init {
            folders: folders_of(&params),
            encoding,
            settings,
            caps: client_caps,
            instance: self.instance.clone(),
        });
        let command_ids = commands::ALL
            .iter()
            .map(|c| if unique { format!("{c}/{}", self.instance) } else { c.to_string() })
            .collect();
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding.kind()),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                })),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions { prepare_provider: Some(true), work_done_progress_options: Default::default() })),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec!["(".into(), "/".into(), "#".into(), ".".into()]),
                    ..Default::default()
                }),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::SOURCE, CodeActionKind::REFACTOR]),
                    ..Default::default()
                })),
                code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
                execute_command_provider: Some(ExecuteCommandOptions { commands: command_ids, ..Default::default() }),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                experimental: Some(json!({ "knit": { "contextPack": true, "didRead": true, "status": true } })),
                ..Default::default()
            },
            server_info: Some(ServerInfo { name: "knit".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.send(Event::Initialized);
        let Ok(snap) = self.snapshot().await else { return };
        if snap.caps.watch_dynamic {
            let client = self.client.clone();
            // Registration is a request to the client: never awaited by the writer.
            tokio::spawn(async move {
                let opts = json!({ "watchers": [ { "globPattern": "**/*" } ] });
                let _ = client
                    .register_capability(vec![Registration {
                        id: "knit-watched-files".into(),
                        method: "workspace/didChangeWatchedFiles".into(),
                        register_options: Some(opts),
                    }])
                    .await;
            });
        }
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        let d = p.text_document;
        self.send(Event::Open { uri: d.uri.clone(), version: d.version, language_id: d.language_id, text: d.text });
        handlers::context_pack::after_open(self, d.uri);
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        self.send(Event::Change { uri: p.text_document.uri, version: p.text_document.version, changes: p.content_changes });
    }

    async fn did_save(&self, p: DidSaveTextDocumentParams) {
        self.send(Event::Save { uri: p.text_document.uri.clone() });
        handlers::context_pack::file_changed(self, p.text_document.uri, false);
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        self.send(Event::Close { uri: p.text_document.uri });
    }

    async fn did_change_watched_files(&self, p: DidChangeWatchedFilesParams) {
        for c in &p.changes {
            handlers::context_pack::file_changed(self, c.uri.clone(), c.typ == FileChangeType::DELETED);
        }
        self.send(Event::Watched(p.changes));
    }

    async fn did_change_configuration(&self, p: DidChangeConfigurationParams) {
        let empty = p.settings.is_null() || p.settings.as_object().is_some_and(|o| o.is_empty());
        if !empty {
            self.send(Event::Config(Some(p.settings)));
            return;
        }
        // Pull-style clients send `null` and expect the server to ask.
        let client = self.client.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let item = ConfigurationItem { scope_uri: None, section: Some("knit".into()) };
            if let Ok(mut v) = client.configuration(vec![item]).await {
                if let Some(v) = v.pop().filter(|v| !v.is_null()) {
                    let _ = tx.send(Event::Config(Some(v)));
                }
            }
        });
    }

    async fn did_change_workspace_folders(&self, p: DidChangeWorkspaceFoldersParams) {
        let added = p.event.added.iter().filter_map(|f| crate::folder::uri_path(&f.uri)).collect();
        let removed = p.event.removed.iter().filter_map(|f| crate::folder::uri_path(&f.uri)).collect();
        self.send(Event::Folders { added, removed });
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let snap = self.snapshot().await?;
        let pp = p.text_document_position_params;
        self.blocking(move || handlers::hover::hover(&snap, &pp.text_document.uri, pp.position)).await
    }

    async fn goto_definition(&self, p: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let snap = self.snapshot().await?;
        let pp = p.text_document_position_params;
        self.blocking(move || handlers::definition::definition(&snap, &pp.text_document.uri, pp.position)).await
    }

    async fn references(&self, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let snap = self.snapshot().await?;
        let pp = p.text_document_position;
        let with_heading = p.context.include_declaration;
        self.blocking(move || handlers::references::references(&snap, &pp.text_document.uri, pp.position, with_heading)).await
    }

    async fn completion(&self, p: CompletionParams) -> Result<Option<CompletionResponse>> {
        let snap = self.snapshot().await?;
        let pp = p.text_document_position;
        self.blocking(move || handlers::completion::completion(&snap, &pp.text_document.uri, pp.position)).await
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let snap = self.snapshot().await?;
        self.blocking(move || handlers::code_action::code_actions(&snap, &p)).await
    }

    async fn document_symbol(&self, p: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let snap = self.snapshot().await?;
        self.blocking(move || handlers::document_symbol::document_symbols(&snap, &p.text_document.uri)).await
    }

    async fn prepare_rename(&self, p: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        let snap = self.snapshot().await?;
        self.blocking(move || handlers::rename::prepare_rename(&snap, &p.text_document.uri, p.position)).await
    }

    async fn rename(&self, p: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let snap = self.snapshot().await?;
        let pp = p.text_document_position;
        let answer = self.blocking(move || handlers::rename::rename(&snap, &pp.text_document.uri, pp.position, &p.new_name)).await?;
        answer.map_err(|why| {
            let mut e = tower_lsp_server::jsonrpc::Error::invalid_params(why.clone());
            e.message = format!("knit: {why}").into();
            e
        })
    }

    async fn symbol(&self, p: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        let snap = self.snapshot().await?;
        let found = self.blocking(move || handlers::workspace_symbol::workspace_symbols(&snap, &p.query)).await?;
        Ok(Some(WorkspaceSymbolResponse::Flat(found)))
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let snap = self.snapshot().await?;
        self.blocking(move || handlers::code_lens::code_lens(&snap, &p.text_document.uri)).await
    }

    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<Value>> {
        handlers::execute_command::execute(self, p).await
    }
}
