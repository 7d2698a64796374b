//! How much heap tree-sitter holds on the current thread: the measure behind the parse's
//! memory bound (see `lang::PARSE_HEAP_BYTES_PER_SOURCE_BYTE`).
//!
//! A parse tree costs memory in proportion to the number of syntax nodes, and the parse
//! stack in proportion to the open nesting, so a 1 MiB file of one long expression or of
//! half a million nested parentheses made tree-sitter alone hold 170–270 MiB. To stop such
//! a parse early, tree-sitter's allocator is routed through functions that count, per
//! thread, the usable size of every block it allocates minus every block it frees; the
//! parse's progress callback compares the count with the budget for the file's size.
//!
//! The counting functions call the C allocator themselves and read block sizes with
//! `malloc_usable_size`, so no header is added to any block: a block allocated before
//! the switch and freed after it is only miscounted, never corrupted. The count is per
//! thread because a parse runs entirely on its caller's thread; a tree dropped on another
//! thread lowers that thread's count, which is why only differences taken on one thread
//! during one parse are meaningful.
//!
//! Linux only (where `malloc_usable_size` is available); elsewhere [`held`] stays 0 and
//! the memory bound is not enforced — the work bound still is.

#[cfg(target_os = "linux")]
mod imp {
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::sync::Once;

    thread_local! {
        // Const-initialised and without a destructor: safe to touch from inside an
        // allocator, even while the thread is being torn down.
        static HELD: Cell<isize> = const { Cell::new(0) };
    }

    fn add(bytes: isize) {
        let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(bytes)));
    }

    fn usable(ptr: *mut c_void) -> isize {
        if ptr.is_null() {
            0
        } else {
            // SAFETY: `ptr` is a live block of the C allocator (tree-sitter only frees or
            // reallocates what it allocated).
            unsafe { libc::malloc_usable_size(ptr) as isize }
        }
    }

    /// tree-sitter's own default allocator aborts when memory runs out rather than
    /// handing its callers a null they do not check; so do these.
    fn checked(ptr: *mut c_void, size: usize) -> *mut c_void {
        if ptr.is_null() && size > 0 {
            std::process::abort();
        }
        ptr
    }

    unsafe extern "C" fn counting_malloc(size: usize) -> *mut c_void {
        let p = checked(unsafe { libc::malloc(size) }, size);
        add(usable(p));
        p
    }

    unsafe extern "C" fn counting_calloc(count: usize, size: usize) -> *mut c_void {
        let p = checked(unsafe { libc::calloc(count, size) }, count.saturating_mul(size));
        add(usable(p));
        p
    }

    unsafe extern "C" fn counting_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
        let before = usable(ptr);
        let p = checked(unsafe { libc::realloc(ptr, size) }, size);
        add(usable(p) - before);
        p
    }

    unsafe extern "C" fn counting_free(ptr: *mut c_void) {
        add(-usable(ptr));
        unsafe { libc::free(ptr) }
    }

    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: the functions are thread-safe wrappers of the C allocator that
            // tree-sitter uses by default, so blocks from before and after the switch
            // are interchangeable.
            unsafe {
                tree_sitter::set_allocator(
                    Some(counting_malloc),
                    Some(counting_calloc),
                    Some(counting_realloc),
                    Some(counting_free),
                )
            }
        });
    }

    pub fn held() -> isize {
        HELD.try_with(|h| h.get()).unwrap_or(0)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn install() {}
    pub fn held() -> isize {
        0
    }
}

/// Routes tree-sitter's allocations through the counter (once per process; call before
/// creating a parser).
pub(crate) fn install() {
    imp::install()
}

/// Bytes of heap tree-sitter allocated and has not freed on this thread (net; may be
/// negative when trees built elsewhere are dropped here). Take differences.
pub(crate) fn held() -> isize {
    imp::held()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::Lang;

    #[test]
    fn a_parse_is_counted_while_its_tree_lives_and_released_when_dropped() {
        install();
        let src = "export function f(a) { return a + 1; }\n".repeat(2000);
        let before = held();
        let tree = crate::lang::tree_for_tests(Lang::TypeScript, &src);
        let during = held() - before;
        assert!(during > src.len() as isize, "a 2 000-function tree holds more than its source: {during}");
        drop(tree);
        let after = held() - before;
        assert!(after < during / 10, "the dropped tree is released: {after} of {during}");
    }
}
