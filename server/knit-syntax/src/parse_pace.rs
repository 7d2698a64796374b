//! The pace of one parse: whether it can still finish within its time cap (see
//! `lang::PARSE_NANOS_PER_BYTE`), judged at each of tree-sitter's progress reports from
//! how far into the text the parser has come.
//!
//! The cap alone lets a hopeless parse run to its end: error recovery that costs more
//! with every token (a megabyte of `}` lines after `func f() {` in Swift) advances a few
//! kilobytes a second and is stopped only at the cap, six seconds for a 1 MB file. A
//! parse that has spent 0.4 s on the first 2 % of its text will not finish in the
//! remaining time, and saying so then costs the same answer (`over_budget`, anchors
//! `unchecked` as `too_costly`) a tenth of the time.
//!
//! Recovery that is slow but steady is judged the same way against the cap's pace: 1 MB
//! of `func f() {}}` lines parses as TypeScript at about 3.7 µs a byte to its end, over
//! twice the cap's 1.5 µs, so both projections pass the cap within the first window.
//! (Under the former 5 µs a byte it ran to its end, four to six seconds.)
//!
//! The judgement is deliberately slow to fire, because a wrong one leaves a real file
//! unread: it needs both the whole parse's average pace *and* the pace of the last
//! [`WINDOW`] to project a finish past the cap. A stall of a few hundred milliseconds in
//! an otherwise fast parse moves the window's projection, not the average's; a pace that
//! slows as it goes (quadratic recovery) moves the window's first, and the average's soon
//! after. Real code parses at under 0.5 µs a byte, with syntax errors or without, over
//! three times inside the cap's pace, so neither projection comes near it. Like the cap, the
//! outcome depends on the machine.
//!
//! The parser's offset can move back when it re-reads a region; progress is the furthest
//! offset reached. Times are given, never read here, so the judgement is a pure function
//! of the reports (tested below without a clock).

use std::time::Duration;

/// The shortest stretch over which a pace is measured: shorter ones are noise (a
/// progress report in recovery can itself take tens of milliseconds).
pub(crate) const WINDOW: Duration = Duration::from_millis(100);

/// The progress of one parse of a text of `len` bytes, to be finished within `cap` of its
/// start.
pub(crate) struct Pace {
    len: u64,
    cap: Duration,
    furthest: u64,
    /// When the current window began (time since the parse began) and how far the
    /// parser had come then.
    window: (Duration, u64),
}

impl Pace {
    pub(crate) fn new(len: usize, cap: Duration) -> Self {
        Pace { len: len as u64, cap, furthest: 0, window: (Duration::ZERO, 0) }
    }

    /// At a progress report, `elapsed` after the parse began with the parser at byte
    /// `offset`: true when the parse is past its cap, or when both the whole parse's pace
    /// and the last window's project a finish past it.
    pub(crate) fn hopeless(&mut self, elapsed: Duration, offset: usize) -> bool {
        let cap = self.cap;
        if elapsed >= cap {
            return true;
        }
        self.furthest = self.furthest.max(offset as u64).min(self.len);
        let (began, from) = self.window;
        let span = elapsed.saturating_sub(began);
        if span < WINDOW {
            return false;
        }
        self.window = (elapsed, self.furthest);
        let remaining = self.len - self.furthest;
        if remaining == 0 {
            return false;
        }
        let overruns = |spent: Duration, advanced: u64| {
            // At `advanced` bytes per `spent`, the rest takes remaining × spent / advanced;
            // no advance at all projects no finish.
            advanced == 0 || elapsed.as_nanos() + u128::from(remaining) * spent.as_nanos() / u128::from(advanced) > cap.as_nanos()
        };
        overruns(elapsed, self.furthest) && overruns(span, self.furthest - from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: usize = 1_000_000;
    /// The cap of a 1 MB text: 1 s plus 1.5 µs a byte.
    const CAP: Duration = Duration::from_millis(2_500);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Replays reports every `step` ms, the offset at each given by `at(elapsed_ms)`,
    /// until the parse reaches the end or `until` ms; the time at which it was judged
    /// hopeless, if it was. A 1 MB text under its cap [`CAP`].
    fn judged(step: u64, until: u64, at: impl Fn(u64) -> usize) -> Option<u64> {
        judged_against(MB, CAP, step, until, at)
    }

    /// [`judged`] for a text of `len` bytes under `cap`.
    fn judged_against(len: usize, cap: Duration, step: u64, until: u64, at: impl Fn(u64) -> usize) -> Option<u64> {
        let mut pace = Pace::new(len, cap);
        let mut t = step;
        while t <= until {
            let offset = at(t);
            if pace.hopeless(ms(t), offset) {
                return Some(t);
            }
            if offset >= len {
                return None;
            }
            t += step;
        }
        None
    }

    /// A steady pace: the whole text in `total_ms`.
    fn linear(total_ms: u64) -> impl Fn(u64) -> usize {
        move |t| (t as usize * MB / total_ms as usize).min(MB)
    }

    #[test]
    fn recovery_that_slows_with_every_token_is_stopped_in_its_first_windows() {
        // Swift's `}` lines measured: 9 336 bytes at 473 ms, 33 336 at 5.9 s (offset ∝ √t).
        // (replayed times, no clock: judged at the first report a window after the start)
        assert_eq!(judged(20, 10_000, |t| (430.0 * (t as f64).sqrt()) as usize), Some(100));
        // A report can take far longer than a window (Kotlin's `=>` lines: one in 177 ms).
        assert_eq!(judged(180, 10_000, |t| t as usize / 6), Some(180));
    }

    #[test]
    fn real_code_paces_are_never_stopped() {
        // The slowest real files measured: 0.44 µs a byte, so 1 MB in 440 ms (0.54 µs
        // with syntax errors); four times slower still finishes within the cap.
        assert_eq!(judged(5, 10_000, linear(440)), None);
        assert_eq!(judged(5, 10_000, linear(2_200)), None);
    }

    #[test]
    fn a_steady_pace_is_judged_against_the_cap() {
        // A steady pace that ends at 2.4 s, under the 2.5 s cap, runs to its end.
        assert_eq!(judged(20, 10_000, linear(2_400)), None);
        // TypeScript's `func f() {}}` lines: about 3.7 µs a byte, done at 3.7 s, is
        // stopped once both projections say so, at the first window.
        assert_eq!(judged(20, 10_000, linear(3_700)), Some(100));
    }

    #[test]
    fn a_stall_in_a_fast_parse_is_not_taken_for_a_hopeless_one() {
        // Half the text in 200 ms, then 600 ms at the same offset, then on at the same pace:
        // the window projects no finish, the whole parse's average still does.
        let at = |t: u64| match t {
            0..=200 => t as usize * MB / 400,
            201..=800 => MB / 2,
            _ => (MB / 2 + (t as usize - 800) * MB / 400).min(MB),
        };
        assert_eq!(judged(10, 10_000, at), None);
    }

    #[test]
    fn the_parser_reading_back_is_not_progress_lost() {
        // Offsets that fall back to 0 every other report keep the furthest reached.
        let at = |t: u64| if (t / 10) % 2 == 0 { linear(440)(t) } else { 0 };
        assert_eq!(judged(10, 10_000, at), None);
    }

    #[test]
    fn the_real_cap_stops_steady_recovery_and_spares_real_code() {
        // Against the cap `lang` gives a 1 MiB text (the largest a check reads):
        // TypeScript's steady recovery (3.7 µs a byte, measured) is stopped at the first
        // window, and real code three times slower than the slowest measured (0.44 µs a
        // byte) still finishes.
        let len = 1 << 20;
        let replay = |micros_per_byte: f64| {
            let at = |t: u64| ((t as f64 * 1000.0 / micros_per_byte) as usize).min(len);
            judged_against(len, crate::lang::time_cap(len), 20, 10_000, at)
        };
        assert_eq!(replay(3.7), Some(100));
        assert_eq!(replay(3.0 * 0.44), None);
    }

    #[test]
    fn the_cap_itself_still_stops_a_parse() {
        let mut pace = Pace::new(MB, CAP);
        assert!(!pace.hopeless(ms(2_400), MB));
        assert!(pace.hopeless(CAP, MB));
    }
}
