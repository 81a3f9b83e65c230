use spice::corenlp::serial::{Graph, Node, Value};
use std::io::Read;
fn show(g: &Graph, v: Value, depth: usize, max: usize, seen: &mut std::collections::HashSet<usize>) {
    let pad = "  ".repeat(depth);
    match v {
        Value::Node(i) => {
            if !seen.insert(i) { println!("{pad}@{i}"); return; }
            match g.node(i) {
                Node::String(s) => println!("{pad}\"{}\"", s.chars().take(60).collect::<String>()),
                Node::Array { elems, .. } => println!("{pad}array {:?}", match elems { spice::corenlp::serial::Array::Values(v) => format!("objs {}", v.len()), spice::corenlp::serial::Array::Ints(v)=> format!("ints {}", v.len()), spice::corenlp::serial::Array::Doubles(v)=> format!("doubles {:?}", &v[..v.len().min(4)]), other => format!("{:?}", std::mem::discriminant(other)) }),
                Node::Object { data, .. } => {
                    let o = g.obj(v).unwrap();
                    println!("{pad}{}", o.class);
                    if depth >= max { return; }
                    for d in data {
                        for (n, fv) in &d.fields {
                            match fv { Value::Node(_) => { println!("{pad} .{n} ({}):", d.class); show(g, *fv, depth + 2, max, seen) }, other => println!("{pad} .{n} = {other:?}") }
                        }
                        if !d.written.is_empty() { println!("{pad} [{} wrote {} items]", d.class, d.written.len()); }
                    }
                }
                other => println!("{pad}{:?}", std::mem::discriminant(other)),
            }
        }
        other => println!("{pad}{other:?}"),
    }
}
fn main() {
    let path = std::env::args().nth(1).expect("path");
    let max: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(6);
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_end(&mut raw).unwrap();
    let t = std::time::Instant::now();
    let g = Graph::read(&raw).unwrap();
    eprintln!("{} bytes, {:?}, {:?}", raw.len(), g, t.elapsed());
    let mut seen = Default::default();
    for &v in &g.top { show(&g, v, 0, max, &mut seen); }
}
