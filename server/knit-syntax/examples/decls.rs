//! Debug aid: lists a file's declarations (`cargo run -p knit-syntax --example decls -- FILE`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: decls FILE");
    let src = std::fs::read_to_string(&path).expect("read");
    let lang = knit_syntax::Lang::from_path(&path).expect("supported language");
    let fs = knit_syntax::parse(lang, &src);
    println!("has_error={}", fs.has_error);
    for d in &fs.declarations {
        println!(
            "{:>4}-{:<4} {:<10} {:<40} {} body={:?} err={} members={}",
            d.start_line,
            d.end_line,
            d.kind,
            d.qualified_name,
            d.fingerprint.encode(),
            d.body.map(|b| (b.fingerprint.encode(), b.tokens)),
            d.has_error,
            d.members.len()
        );
    }
}
