//! Positions: the only place that converts between the core's byte offsets / 1-based
//! lines and LSP `Position`s in the negotiated encoding (UTF-8 or UTF-16 code units).
//!
//! Line breaks are `\n`, `\r\n` and a lone `\r`, as LSP counts them (ropey's `cr_lines`
//! feature agrees, so buffer edits and these conversions see the same lines). Every
//! conversion clamps instead of failing: an out-of-range position from a client lands
//! on the nearest valid place, never a panic.

use tower_lsp_server::ls_types::{Position, PositionEncodingKind, Range};

/// The negotiated position encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
}

impl Encoding {
    /// Picks UTF-8 when the client offers it (no conversion cost, exact for any text),
    /// UTF-16 otherwise (the LSP default every client supports).
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(list) if list.iter().any(|k| k.as_str() == "utf-8") => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// Line starts of a text, for offset ↔ position conversion.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// Byte offset of the first byte of every line.
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' => {
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    starts.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex { starts, len: text.len() }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of line `line` (0-based) without its line break.
    pub fn line_span(&self, text: &str, line: usize) -> (usize, usize) {
        let Some(&start) = self.starts.get(line) else { return (self.len, self.len) };
        let mut end = self.starts.get(line + 1).copied().unwrap_or(self.len);
        let b = text.as_bytes();
        while end > start && matches!(b.get(end - 1), Some(b'\n') | Some(b'\r')) {
            end -= 1;
        }
        (start, end)
    }

    /// 0-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// LSP position of byte `offset` (clamped to the text, snapped back to a char boundary).
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let (start, end) = self.line_span(text, line);
        let upto = offset.min(end).max(start);
        let col = column_of(&text[start..upto], enc);
        Position::new(line as u32, col)
    }

    pub fn range(&self, text: &str, span: std::ops::Range<usize>, enc: Encoding) -> Range {
        Range::new(self.position(text, span.start, enc), self.position(text, span.end, enc))
    }

    /// Byte offset of an LSP position. A line past the end is the end of the text; a
    /// character past the line's end is the line's end (LSP's rule); a position inside a
    /// surrogate pair or a multi-byte char snaps to the char's start.
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let (start, end) = self.line_span(text, line);
        start + byte_in_line(&text[start..end], pos.character, enc)
    }
}

/// Length of `s` in the encoding's units.
pub fn column_of(s: &str, enc: Encoding) -> u32 {
    match enc {
        Encoding::Utf8 => s.len() as u32,
        Encoding::Utf16 => s.chars().map(|c| c.len_utf16() as u32).sum(),
    }
}

/// Byte offset inside `line` of a column in the encoding's units (clamped).
pub fn byte_in_line(line: &str, col: u32, enc: Encoding) -> usize {
    match enc {
        Encoding::Utf8 => {
            let mut b = (col as usize).min(line.len());
            while !line.is_char_boundary(b) {
                b -= 1;
            }
            b
        }
        Encoding::Utf16 => {
            let mut units = 0u32;
            for (i, c) in line.char_indices() {
                let next = units + c.len_utf16() as u32;
                if next > col {
                    return i;
                }
                units = next;
            }
            line.len()
        }
    }
}

/// LSP position of a 1-based line and 0-based *byte* column in `text` (declarations
/// carry byte columns).
pub fn position_of_line_col(text: &str, index: &LineIndex, line1: u32, byte_col: u32, enc: Encoding) -> Position {
    let line = (line1.max(1) - 1) as usize;
    if line >= index.line_count() {
        return index.position(text, text.len(), enc);
    }
    let (start, end) = index.line_span(text, line);
    index.position(text, (start + byte_col as usize).min(end), enc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_columns_agree_on_offsets() {
        let text = "a\r\n日本 😀x\rlast";
        let ix = LineIndex::new(text);
        assert_eq!(ix.line_count(), 3);
        let x = text.find('x').unwrap();
        assert_eq!(ix.position(text, x, Encoding::Utf16), Position::new(1, 5));
        assert_eq!(ix.position(text, x, Encoding::Utf8), Position::new(1, 11));
        assert_eq!(ix.offset(text, Position::new(1, 5), Encoding::Utf16), x);
        assert_eq!(ix.offset(text, Position::new(1, 11), Encoding::Utf8), x);
        // inside the surrogate pair / inside a multi-byte char: snaps back
        assert_eq!(ix.offset(text, Position::new(1, 4), Encoding::Utf16), text.find('😀').unwrap());
        assert_eq!(ix.offset(text, Position::new(1, 1), Encoding::Utf8), text.find('日').unwrap());
        // out of range
        assert_eq!(ix.offset(text, Position::new(9, 0), Encoding::Utf16), text.len());
        assert_eq!(ix.offset(text, Position::new(0, 99), Encoding::Utf16), 1);
        assert_eq!(ix.position(text, 999, Encoding::Utf16), Position::new(2, 4));
    }
}
