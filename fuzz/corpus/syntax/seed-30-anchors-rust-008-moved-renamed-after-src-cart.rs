//! Conformance fixture (008-moved-renamed, after state): Rust source that the case's docs anchor.
use crate::line::Line;

pub struct Cart {
    lines: Vec<Line>,
    owner: String,
}

impl Cart {
    pub fn total(&self, rate: u32) -> u32 {
        let sum: u32 = self.lines.iter().map(|l| l.price * l.qty).sum();
        match rate {
            0 => sum,
            r => sum + sum * r / 100,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

impl std::fmt::Display for Cart {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} lines of {}", self.lines.len(), self.owner)
    }
}


pub fn vat() -> u32 {
    20
}
