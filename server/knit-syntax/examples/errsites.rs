//! Debug aid: the syntax-error sites knit's own (repaired) parse leaves in a file, and the
//! declarations not extracted cleanly (`cargo run -p knit-syntax --example errsites -- FILE…`).
fn main() {
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).expect("read");
        let Some(lang) = knit_syntax::Lang::from_path(&path) else {
            continue;
        };
        let (syntax, sites, misread) = knit_syntax::lang::parse_reporting_errors(lang, &src);
        let unclean: Vec<_> = syntax
            .declarations
            .iter()
            .filter(|d| d.has_error)
            .map(|d| d.qualified_name.clone())
            .collect();
        println!(
            "{path}: {} site(s), {} declaration(s), {} unclean {:?}",
            sites.len(),
            syntax.declarations.len(),
            unclean.len(),
            unclean
        );
        for s in sites {
            println!("  {}: {}", s.line, s.construct);
        }
        for s in misread {
            println!("  {}: misread: {}", s.line, s.construct);
        }
    }
}
