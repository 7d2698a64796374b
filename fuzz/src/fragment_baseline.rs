//! Target `fragment_baseline`: the two small grammars knit reads out of a link, on
//! arbitrary text — symbol fragments (`#[kind:]Qualified.name[~N]`, `#L12-L40`) and
//! baselines (`knit:<baseline>` in the title), plus `strip_baselines`.
//!
//! Properties: no panic; a decoded baseline re-encodes to at most 40 characters of the
//! baseline alphabet and decodes back to itself; a parsed fragment prints to text that
//! parses back to the same fragment; resolving a fragment against real declarations (one
//! fixture file per language) gives in-range indices, and every exact fragment offered for
//! an ambiguous one designates exactly its declaration (it is what a rebind writes).

use knit_anchors::{baseline, target, Baseline};
use knit_syntax::{FileSyntax, Fragment, Lang, Resolution};
use std::sync::OnceLock;

/// Declarations of one fixture file per language, parsed once per process.
fn fixture_files() -> &'static [FileSyntax] {
    static FILES: OnceLock<Vec<FileSyntax>> = OnceLock::new();
    FILES.get_or_init(|| {
        let files: [(Lang, &str); 8] = [
            (Lang::TypeScript, include_str!("../../fixtures/anchors/ts/003-fresh-prettier-no-semi/before/src/cart.ts")),
            (Lang::Tsx, include_str!("../../fixtures/anchors/ts/047-tsx-component-moved-renamed/before/src/PickList.tsx")),
            (Lang::Swift, include_str!("../../fixtures/anchors/swift/032-unrecorded/before/Sources/Audio/Mixer.swift")),
            (Lang::JavaScript, include_str!("../../fixtures/anchors/js/011-lost-two-identical-bodies/before/src/cart.js")),
            (Lang::Rust, include_str!("../../fixtures/anchors/rust/011-lost-two-identical-bodies/before/src/cart.rs")),
            (Lang::Python, include_str!("../../fixtures/anchors/python/012-invalid-ambiguous-and-unknown/before/shop/cart.py")),
            (Lang::Go, include_str!("../../fixtures/anchors/go/002-fresh-formatter-only/before/shop/cart.go")),
            (Lang::Kotlin, include_str!("../../fixtures/anchors/kotlin/002-fresh-formatter-only/before/src/main/kotlin/shop/Checkout.kt")),
        ];
        files.iter().map(|(lang, src)| knit_syntax::parse(*lang, src)).collect()
    })
}

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text: &str = &text;

    if let Some(b) = Baseline::decode(text) {
        let encoded = b.encode();
        assert!(encoded.len() <= 40, "baseline {encoded:?} is longer than 40 characters");
        assert!(encoded.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'), "{encoded:?}");
        assert_eq!(Baseline::decode(&encoded).as_ref(), Some(&b), "{text:?} → {encoded:?} does not decode back");
    }
    let stripped = baseline::strip_baselines(text);
    assert!(stripped.len() <= text.len());
    if let Some(token) = baseline::baseline_in_title(text) {
        let _ = Baseline::decode(token);
    }
    if let Some((start, end)) = target::parse_line_fragment(text) {
        assert!(1 <= start && start <= end);
    }

    let Ok(fragment) = Fragment::parse(text) else { return };
    let shown = fragment.to_string();
    assert_eq!(Fragment::parse(&shown).as_ref(), Ok(&fragment), "{text:?} prints as {shown:?}, which parses differently");
    let _ = fragment.simple_name();
    for syn in fixture_files() {
        let decls = &syn.declarations;
        match fragment.resolve(syn) {
            Resolution::Unique(i) => assert!(i < decls.len()),
            Resolution::NotFound => {}
            Resolution::Ambiguous(options) => {
                for (i, exact) in options {
                    let f = Fragment::parse(&exact).unwrap_or_else(|e| panic!("exact fragment {exact:?} does not parse: {e}"));
                    assert_eq!(f.designates(syn), vec![i], "exact fragment {exact:?} does not designate declaration {i} alone");
                }
            }
        }
        let _ = knit_syntax::fragment::suggestions(&fragment.name, decls, 5);
    }
    // The same fragment as written in a link destination.
    let _ = target::classify("docs/a.md", &format!("../src/a.ts#{text}"));
}
