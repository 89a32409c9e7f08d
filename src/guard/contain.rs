//! A bug in the scanner must cost one file, not the run: a panic while one file (or one
//! skill) is checked is caught at that boundary and becomes an error naming the file, so the
//! other skills' findings are still reported and the run still fails closed (exit 2).
//!
//! The panic's message is kept for the error instead of being printed by the default hook
//! (a backtrace in the middle of a report helps nobody); panics outside a contained call are
//! printed as before.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

/// Where a contained panic is reported.
pub const BUG_REPORT: &str =
    "this is a bug in git-skill: please report it with the file (or a redacted copy) and the output of git skill --version";

thread_local! {
    /// How many contained calls this thread is inside.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The message of the last contained panic of this thread.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                return previous(info);
            }
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            let place = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST.with(|l| *l.borrow_mut() = Some(format!("{message}{place}")));
        }));
    });
}

/// Runs `f`; a panic inside it comes back as its message (where it happened included).
pub fn contained<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = {
        let _leave = Leave;
        panic::catch_unwind(AssertUnwindSafe(f))
    };
    result.map_err(|_| {
        LAST.with(|l| l.borrow_mut().take())
            .unwrap_or_else(|| "a panic without a message".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_the_next_call_works() {
        let err = contained(|| -> u8 { panic!("slice at {}", 3) }).unwrap_err();
        assert!(err.starts_with("slice at 3 at "), "{err}");
        assert!(err.contains("contain.rs"), "{err}");
        assert_eq!(contained(|| 7).unwrap(), 7);
        // Nested: the inner panic is the inner call's, the outer call goes on.
        let outer = contained(|| contained(|| -> u8 { panic!("inner") }).unwrap_err());
        assert!(outer.unwrap().starts_with("inner"));
    }
}
