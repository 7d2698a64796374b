//! Debug aid: every DocC / TSDoc symbol link of a folder's Markdown with what it resolves
//! to (`cargo run -p knit-anchors --example symbol_links -- ROOT`), one per line:
//! `doc:line<TAB>link<TAB>targets | BROKEN message | EXTERNAL`. Reads the folder into
//! memory (hidden folders and `target`/`node_modules` skipped).
use knit_anchors::{scan_doc, CheckConfig, DeclCache, MemTree, Session, SourceTree};
use std::path::Path;

fn load(tree: &mut MemTree, root: &Path, dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if p.is_dir() {
            load(tree, root, &p);
        } else if let (Ok(bytes), Ok(rel)) = (std::fs::read(&p), p.strip_prefix(root)) {
            if bytes.len() < 1 << 20 {
                tree.insert(&rel.to_string_lossy(), bytes);
            }
        }
    }
}

fn main() {
    let root = std::env::args().nth(1).expect("usage: symbol_links ROOT");
    let mut tree = MemTree::new();
    load(&mut tree, Path::new(&root), Path::new(&root));
    let cache = DeclCache::default();
    let mut session = Session::new(&tree, &cache, CheckConfig::default());
    let docs: Vec<String> = tree.files().iter().filter(|f| f.ends_with(".md")).cloned().collect();
    for doc in docs {
        let Some(text) = tree.text(&doc).map(str::to_string) else { continue };
        for l in scan_doc(&doc, &text).symbol_links {
            let r = session.resolve_symbol_link(&l);
            let what = match (&r.broken, r.targets.is_empty()) {
                (Some(m), _) => format!("BROKEN {m}"),
                (None, true) => "EXTERNAL".to_string(),
                (None, false) => r.targets.iter().map(|t| format!("{}#{}", t.path, t.symbol.clone().unwrap_or_default())).collect::<Vec<_>>().join(" ; "),
            };
            println!("{doc}:{}\t{}\t{what}", l.line, l.target);
        }
    }
}
