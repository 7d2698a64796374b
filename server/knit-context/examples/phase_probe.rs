//! temporary phase probe (deleted before hand-off)
use std::path::Path;
use std::time::Instant;
use knit_context::*;
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic workspaces across runs
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Zipf-like pick: small indexes are common, large ones rare.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary(rng: &mut Rng, size: usize) -> Vec<String> {
    let syllables = ["ka", "lo", "mi", "ten", "ra", "vo", "shu", "pel", "dor", "qui", "zan", "bex", "nor", "fa", "gri", "hol", "jun", "wex", "yal", "cor"];
    let mut words: Vec<String> = Vec::with_capacity(size);
    while words.len() < size {
        let parts = 2 + rng.below(3);
        let word: String = (0..parts).map(|_| syllables[rng.below(syllables.len())]).collect();
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

fn generate(root: &Path, files: usize, vocab: &[String], rng: &mut Rng) -> u64 {
    let mut bytes = 0u64;
    for i in 0..files {
        let is_doc = i % 7 == 0;
        let dir = root.join(if is_doc { format!("docs/area{}", i % 40) } else { format!("src/mod{}", i % 200) });
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut text = String::new();
        let w = |rng: &mut Rng| vocab[rng.zipf(vocab.len())].clone();
        if is_doc {
            text.push_str(&format!("# {} {}\n\n{} {} {} overview.\n\n", w(rng), w(rng), w(rng), w(rng), w(rng)));
            for _ in 0..(30 + rng.below(60)) {
                let line: Vec<String> = (0..10).map(|_| w(rng)).collect();
                text.push_str(&line.join(" "));
                text.push('\n');
            }
        } else {
            text.push_str(&format!("import {{ {} }} from './file{}'\n\n", w(rng), rng.below(files)));
            for _ in 0..(40 + rng.below(80)) {
                let (a, b, c) = (w(rng), w(rng), w(rng));
                let camel = format!("{a}{}{}", b[..1].to_uppercase(), &b[1..]);
                text.push_str(&format!("export function {camel}(input: {c}) {{ return {}_{}(input) }}\n", w(rng), w(rng)));
            }
        }
        let name = if is_doc { format!("note{i}.md") } else { format!("file{i}.ts") };
        bytes += text.len() as u64;
        std::fs::write(dir.join(name), text).expect("write");
    }
    bytes
}


fn main() {
    let root = Path::new("/tmp/ws10k");
    if !root.exists() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let vocab = vocabulary(&mut rng, 6000);
        generate(root, 10000, &vocab, &mut rng);
    }
    if std::env::args().nth(1).as_deref() == Some("engine") { engine_only(root); return; }
    let t = Instant::now();
    let walked = knit_context::fsio::walk_workspace(root);
    println!("walk {} files {:.2}s", walked.len(), t.elapsed().as_secs_f64());
    let t = Instant::now();
    let texts: Vec<(String, String)> = walked.iter().map(|w| (w.rel.clone(), std::fs::read_to_string(root.join(&w.rel)).unwrap())).collect();
    println!("read {:.2}s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut n = 0usize;
    for (p, s) in &texts { n += knit_context::relations::syntax_imports(p, s).len(); }
    println!("imports {n} {:.2}s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut n = 0usize;
    for (_, s) in &texts { knit_context::analysis::for_each_term(s, |_| n += 1); }
    println!("tokenize {n} {:.2}s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut n = 0usize;
    for (_, s) in &texts { n += knit_context::passages::split(s, Kind::Code, 0).len(); }
    println!("passages {n} {:.2}s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut n = 0usize;
    for (_, s) in &texts { n += knit_context::fsio::content_hash(s).len(); }
    println!("hash {:.2}s", t.elapsed().as_secs_f64());
    for threads in [1usize, 2] {
        let cache = tempfile::tempdir().unwrap();
        let options = EngineOptions { cache_dir: Some(cache.path().into()), state_dir: Some(cache.path().join("s")), rescan_interval: None, import_extractor: None, index_threads: threads, ..Default::default() };
        let t = Instant::now();
        let mut engine = ContextEngine::open(root, options).unwrap();
        engine.refresh().unwrap();
        println!("engine no-imports threads={threads} {:.2}s", t.elapsed().as_secs_f64());
    }
}

fn engine_only(root: &Path) {
    let threads: usize = std::env::args().nth(2).and_then(|v| v.parse().ok()).unwrap_or(1);
    let imports = std::env::args().nth(3).as_deref() == Some("imports");
    let cache = tempfile::tempdir().unwrap();
    let options = EngineOptions { cache_dir: Some(cache.path().into()), state_dir: Some(cache.path().join("s")), rescan_interval: None, import_extractor: if imports { Some(knit_context::relations::syntax_imports) } else { None }, index_threads: threads, ..Default::default() };
    let t = Instant::now();
    let mut engine = ContextEngine::open(root, options).unwrap();
    engine.refresh().unwrap();
    println!("engine threads={threads} imports={imports} {:.2}s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    drop(engine);
    println!("drop {:.2}s", t.elapsed().as_secs_f64());
}
