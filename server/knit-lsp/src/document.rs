//! Open buffers: their text in a rope (incremental edits are O(log n)), their version,
//! and what kind of file they are. The rope is owned by the single writer
//! (`main_loop`); readers only ever see a frozen [`DocText`] (immutable, shared by `Arc`),
//! materialised lazily so a burst of keystrokes costs one copy, not one per keystroke.

use crate::position::{Encoding, LineIndex};
use knit_syntax::Lang;
use ropey::Rope;
use std::sync::Arc;
use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent};

/// What a buffer is, for knit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Markdown,
    /// A source file knit can read declarations of.
    Code(Lang),
    Other,
}

impl FileKind {
    pub fn of(path: &str, language_id: Option<&str>) -> FileKind {
        let lower = path.to_ascii_lowercase();
        if language_id == Some("markdown") || lower.ends_with(".md") || lower.ends_with(".markdown") {
            return FileKind::Markdown;
        }
        match Lang::from_path(path) {
            Some(l) => FileKind::Code(l),
            None => FileKind::Other,
        }
    }
}

/// An immutable view of a buffer at one version.
#[derive(Debug)]
pub struct DocText {
    pub version: i32,
    pub text: Arc<str>,
    pub index: LineIndex,
}

impl DocText {
    pub fn new(version: i32, text: Arc<str>) -> DocText {
        let index = LineIndex::new(&text);
        DocText { version, text, index }
    }
}

pub struct Document {
    pub version: i32,
    pub kind: FileKind,
    rope: Rope,
    frozen: Option<Arc<DocText>>,
    /// 1-based lines of the latest ranged edits, newest last: the context pack weighs
    /// the task's terms near them more (DESIGN 4.1).
    recent_edits: Vec<u32>,
}

/// How many recent edit positions a document remembers.
const RECENT_EDITS: usize = 16;

impl Document {
    pub fn new(version: i32, kind: FileKind, text: &str) -> Document {
        Document { version, kind, rope: Rope::from_str(text), frozen: None, recent_edits: Vec::new() }
    }

    /// Applies one `didChange` batch in order. A change without a range replaces the
    /// whole text; ranges are clamped (a client bug must not panic the server).
    pub fn apply(&mut self, version: i32, changes: &[TextDocumentContentChangeEvent], enc: Encoding) {
        for c in changes {
            match c.range {
                None => self.rope = Rope::from_str(&c.text),
                Some(r) => {
                    let line = r.start.line.saturating_add(1);
                    self.recent_edits.retain(|&l| l != line);
                    self.recent_edits.push(line);
                    if self.recent_edits.len() > RECENT_EDITS {
                        self.recent_edits.remove(0);
                    }
                    let start = self.char_at(r.start, enc);
                    let end = self.char_at(r.end, enc).max(start);
                    if start < end {
                        self.rope.remove(start..end);
                    }
                    if !c.text.is_empty() {
                        self.rope.insert(start, &c.text);
                    }
                }
            }
        }
        self.version = version;
        self.frozen = None;
    }

    /// 1-based lines edited recently, newest last.
    pub fn recent_edit_lines(&self) -> Vec<u32> {
        self.recent_edits.clone()
    }

    /// Replaces the whole text (didOpen of an already open document, reloads).
    pub fn replace(&mut self, version: i32, text: &str) {
        self.rope = Rope::from_str(text);
        self.version = version;
        self.frozen = None;
    }

    /// The current text, frozen (cached until the next edit).
    pub fn snapshot(&mut self) -> Arc<DocText> {
        if let Some(f) = &self.frozen {
            return f.clone();
        }
        let text: Arc<str> = Arc::from(self.rope.to_string());
        let f = Arc::new(DocText::new(self.version, text));
        self.frozen = Some(f.clone());
        f
    }

    /// Char index of an LSP position in the rope, clamped to the line's content.
    fn char_at(&self, pos: Position, enc: Encoding) -> usize {
        let rope = &self.rope;
        let line = pos.line as usize;
        if line >= rope.len_lines() {
            return rope.len_chars();
        }
        let line_start = rope.line_to_char(line);
        let slice = rope.line(line);
        let mut content_chars = slice.len_chars();
        while content_chars > 0 {
            let c = slice.char(content_chars - 1);
            if c == '\n' || c == '\r' {
                content_chars -= 1;
            } else {
                break;
            }
        }
        let line_end = line_start + content_chars;
        let target = match enc {
            Encoding::Utf16 => {
                let base = rope.char_to_utf16_cu(line_start);
                let end_cu = rope.char_to_utf16_cu(line_end);
                let cu = (base + pos.character as usize).min(end_cu);
                rope.utf16_cu_to_char(cu)
            }
            Encoding::Utf8 => {
                let base = rope.char_to_byte(line_start);
                let end_b = rope.char_to_byte(line_end);
                let b = (base + pos.character as usize).min(end_b);
                rope.byte_to_char(b)
            }
        };
        target.clamp(line_start, line_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::Range;

    fn change(l0: u32, c0: u32, l1: u32, c1: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l0, c0), Position::new(l1, c1))),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn incremental_edits_in_both_encodings() {
        let mut d = Document::new(1, FileKind::Markdown, "😀a\r\nb日c\n");
        // after the emoji: 2 UTF-16 units, 4 bytes
        d.apply(2, &[change(0, 2, 0, 3, "X")], Encoding::Utf16);
        assert_eq!(&*d.snapshot().text, "😀X\r\nb日c\n");
        d.apply(3, &[change(1, 4, 1, 5, "Y")], Encoding::Utf8);
        assert_eq!(&*d.snapshot().text, "😀X\r\nb日Y\n");
        // out of range: clamped, no panic
        d.apply(4, &[change(0, 99, 7, 3, "!")], Encoding::Utf16);
        assert_eq!(&*d.snapshot().text, "😀X!");
        // the edited lines are remembered for the context pack, newest last, 1-based
        assert_eq!(d.recent_edit_lines(), vec![2, 1]);
    }

    #[test]
    fn recent_edits_are_bounded_and_deduplicated() {
        let mut d = Document::new(1, FileKind::Markdown, &"x\n".repeat(40));
        for line in 0..30 {
            d.apply(line as i32 + 2, &[change(line, 0, line, 0, "y")], Encoding::Utf8);
        }
        d.apply(40, &[change(20, 0, 20, 0, "z")], Encoding::Utf8);
        let recent = d.recent_edit_lines();
        assert_eq!(recent.len(), RECENT_EDITS);
        assert_eq!(recent.last(), Some(&21));
        assert_eq!(recent.iter().filter(|&&l| l == 21).count(), 1);
    }
}
