//! Debug aid: prints the tree-sitter tree of a file (`cargo run -p knit-syntax --example sexp -- FILE`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: sexp FILE");
    let src = std::fs::read_to_string(&path).expect("read");
    let lang: tree_sitter::Language = if path.ends_with(".py") {
        tree_sitter_python::LANGUAGE.into()
    } else if path.ends_with(".rs") {
        tree_sitter_rust::LANGUAGE.into()
    } else if path.ends_with(".kt") || path.ends_with(".kts") {
        tree_sitter_kotlin_ng::LANGUAGE.into()
    } else if path.ends_with(".swift") {
        tree_sitter_swift::LANGUAGE.into()
    } else if path.ends_with(".tsx") {
        tree_sitter_typescript::LANGUAGE_TSX.into()
    } else {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
    };
    let mut p = tree_sitter::Parser::new();
    p.set_language(&lang).unwrap();
    let t = p.parse(&src, None).unwrap();
    fn walk(n: tree_sitter::Node, src: &str, depth: usize, field: Option<&str>) {
        let text = if n.child_count() == 0 { format!(" {:?}", &src[n.byte_range()]) } else { String::new() };
        println!("{}{}{}{}{}", "  ".repeat(depth), field.map(|f| format!("{f}: ")).unwrap_or_default(), if n.is_named() { n.kind().to_string() } else { format!("'{}'", n.kind()) }, text, if n.is_error() || n.is_missing() { " <<ERR>>" } else { "" });
        let mut c = n.walk();
        for (i, ch) in n.children(&mut c).enumerate() {
            walk(ch, src, depth + 1, n.field_name_for_child(i as u32));
        }
    }
    walk(t.root_node(), &src, 0, None);
}
