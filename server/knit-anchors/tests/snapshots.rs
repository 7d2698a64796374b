//! Snapshot tests of core outputs (expect-test; `UPDATE_EXPECT=1 cargo test` refreshes):
//! the declarations knit sees in representative TypeScript and Swift, and the check
//! report of the bundled example workspace.

use expect_test::{expect, Expect};
use knit_anchors::{check, CheckConfig, CheckOptions, DeclCache, MemTree};
use knit_syntax::Lang;
use std::path::Path;

mod common;

fn decls(lang: Lang, src: &str, expected: Expect) {
    let syn = knit_syntax::parse(lang, src);
    let listing: String = syn
        .declarations
        .iter()
        .map(|d| {
            format!(
                "{:>2}-{:<2} {:<10} {:<8?} {}{}\n",
                d.start_line,
                d.end_line,
                d.kind,
                d.identity,
                d.qualified_name,
                match d.body {
                    Some(b) if b.tokens >= knit_syntax::MIN_BODY_TOKENS => format!("  body={}", b.tokens),
                    _ => String::new(),
                }
            )
        })
        .collect();
    expected.assert_eq(&listing);
}

#[test]
fn typescript_declarations() {
    decls(
        Lang::TypeScript,
        r#"export function f(a: number): number;
export function f(a: any) { return a; }
export default class A<T> extends B {
  @dec() private x = 1;
  get y() { return this.x }
  set y(v) { this.x = v }
  static create(): A<number> { return new A<number>(); }
}
interface I { m(): void; p: string }
interface I { q(): number }
namespace N.M { export const k = (x: number) => x + 1; }
const api = { load() { return fetch("/x").then((r) => r.json()); }, retries: 3 };
enum E { X = 1, Y }
type T = { a: string };
let [d1, d2] = [1, 2];
function outer() { function inner() { return 1; } return inner(); }
"#,
        expect![[r#"
             1-2  function   Callable f
             3-8  class      Type A  body=51
             4-4  property   Value A.x
             5-5  get        Callable A.y
             6-6  set        Callable A.y
             7-7  method     Callable A.create  body=10
             9-9  interface  Type I  body=10
             9-9  method     Callable I.m
             9-9  property   Value I.p
            10-10 interface  Type I
            10-10 method     Callable I.q
            11-11 namespace  Module N.M  body=15
            11-11 variable   Callable N.M.k
            12-12 variable   Value api  body=27
            12-12 method     Callable api.load  body=18
            12-12 property   Value api.retries
            13-13 enum       Type E
            13-13 member     Value E.X
            13-13 member     Value E.Y
            14-14 type       Type T
            16-16 function   Callable outer  body=14
            16-16 function   Callable outer.inner
        "#]],
    );
}

#[test]
fn swift_declarations() {
    decls(
        Lang::Swift,
        r#"struct Mixer {
    var rate: Double = 1.0
    init(rate: Double) { self.rate = rate }
    init() { self.init(rate: 1.0) }
    func blend(first: Int, _ second: Int) -> Int { return first + second }
    subscript(i: Int) -> Int { return i * 2 }
    enum Mode { case fast, slow }
}
extension Mixer { mutating func reset() { rate = 0; print("reset") } }
extension Mixer: Equatable {}
protocol Playable { func play(at volume: Double) }
actor Bank { var total = 0 }
"#,
        expect![[r#"
             1-8  struct     Type Mixer  body=76
             2-2  property   Value Mixer.rate
             3-3  init       Callable Mixer.init(rate:)
             4-4  init       Callable Mixer.init()  body=10
             5-5  method     Callable Mixer.blend(first:_:)
             6-6  subscript  Callable Mixer.subscript(_:)
             7-7  enum       Type Mixer.Mode
             7-7  case       Value Mixer.Mode.fast
             7-7  case       Value Mixer.Mode.slow
             9-9  extension  Type Mixer  body=18
             9-9  method     Callable Mixer.reset()  body=11
            10-10 extension  Type Mixer
            11-11 protocol   Type Playable  body=10
            11-11 method     Callable Playable.play(at:)
            12-12 actor      Type Bank
            12-12 property   Value Bank.total
        "#]],
    );
}

#[test]
fn example_workspace_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/example");
    let mut tree = MemTree::new();
    common::load_dir(&mut tree, &root, &root);
    let docs: Vec<String> = tree.files.keys().filter(|p| p.ends_with(".md")).cloned().collect();
    let mut report = check(&tree, &DeclCache::default(), &CheckConfig::default(), &docs, &CheckOptions::default());
    report.budget.elapsed_ms = 0;
    let mut json = serde_json::to_string_pretty(&report).unwrap();
    json.push('\n');
    expect_test::expect_file!["snapshots/example_report.json"].assert_eq(&json);
}
