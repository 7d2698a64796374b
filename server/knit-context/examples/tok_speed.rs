fn main() {
    let text: String = (0..200_000).map(|i| format!("export function kaloMiten{i}(input: shupel) {{ return dor_qui(input) }} 相关性排序\n")).collect();
    let t = std::time::Instant::now();
    let mut n = 0;
    knit_context::analysis::for_each_term(&text, |_| n += 1);
    println!("{} MB, {n} tokens in {:?}", text.len() / 1_000_000, t.elapsed());
}
