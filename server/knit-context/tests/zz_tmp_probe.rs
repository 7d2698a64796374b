mod common;
use common::*;
use knit_context::{PackParams, QueryParam, TaskInput};
#[test]
fn probe() {
    let data = eval_json();
    let c = &data["context_eval"];
    let ws = Workspace::new();
    for r in c["corpus"].as_array().unwrap() {
        ws.write(&s(&r["rel"]), doc_text(&s(&r["title"]), &s(&r["summary"]), &s(&r["text"])));
    }
    let mut engine = ws.engine();
    for case in c["cases"].as_array().unwrap() {
        let mut m = strings(&case["messages"]); m.reverse();
        let params = PackParams { query: Some(QueryParam::Conversation(m)), ..Default::default() };
        let rk = engine.ranking(&params, &TaskInput::default()).unwrap();
        println!("== {} terms={:?}\n   rank={:?}", s(&case["name"]), rk.terms, rk.files.iter().take(6).map(|f| f.path.as_str()).collect::<Vec<_>>());
        let p = pack(&mut engine, &params);
        for (t, items) in [("P", &p.primary), ("S", &p.supporting)] {
            for i in items.iter() { println!("   {t} {} {}", i.path, serde_json::to_string(&i).unwrap().chars().take(400).collect::<String>()); }
        }
    }
}
