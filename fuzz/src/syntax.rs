//! Target `syntax`: declarations, fingerprints and imports of every language on arbitrary
//! source. The first input byte picks the language (low three bits, see
//! [`crate::common::lang_of`]); the rest is the file's text.
//!
//! Properties: no panic; every declaration's byte range lies in the file on character
//! boundaries with ordered lines; parsing is deterministic (caches are keyed by content, so
//! two parses of one text must agree); the exact fragment knit writes for each declaration
//! designates that declaration alone; import lines exist in the file.

use crate::common::{ext_of, lang_of};
use knit_syntax::{fragment::exact_fragment, Fragment};

pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let lang = lang_of(selector);
    let src = String::from_utf8_lossy(rest);
    let src: &str = &src;
    let syntax = knit_syntax::parse(lang, src);
    let decls = &syntax.declarations;
    for (i, d) in decls.iter().enumerate() {
        let range = d.start_byte as usize..d.end_byte as usize;
        assert!(src.get(range.clone()).is_some(), "{} spans bytes {range:?} of a {}-byte file", d.qualified_name, src.len());
        assert!(1 <= d.start_line && d.start_line <= d.end_line, "{}: lines {}-{}", d.qualified_name, d.start_line, d.end_line);
        assert!(d.start_line <= d.name_line && d.name_line <= d.end_line, "{}: name line {} outside {}-{}", d.qualified_name, d.name_line, d.start_line, d.end_line);
        let exact = exact_fragment(&syntax, i);
        let f = Fragment::parse(&exact).unwrap_or_else(|e| panic!("exact fragment {exact:?} of {} does not parse: {e}", d.qualified_name));
        assert_eq!(f.designates(&syntax), vec![i], "exact fragment {exact:?} does not designate {:?} alone", d.qualified_name);
    }
    assert_eq!(knit_syntax::parse(lang, src), syntax, "two parses of the same text differ");
    let line_count = src.split('\n').count() as u32;
    for import in knit_syntax::imports(&format!("src/a.{}", ext_of(lang)), src) {
        assert!(1 <= import.line && import.line <= line_count, "import {:?} on line {} of {line_count}", import.specifier, import.line);
    }
}
