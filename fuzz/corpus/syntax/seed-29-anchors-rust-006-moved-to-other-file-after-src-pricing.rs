//! Pricing rules.

pub fn discount(total: u32, percent: u32) -> u32 {
    let cut = total * percent / 100;
    if cut > total {
        return 0;
    }
    total - cut
}
