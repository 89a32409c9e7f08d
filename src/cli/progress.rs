//! A long run's steps on the terminal (`[3/8] triage: ... (model calls 2/5, 4.1 s)`), and its
//! warnings: what `optimize` and `review` show while they work.

use std::io::Write as _;
use std::time::Instant;

use git_skill::progress::Progress;

use super::ui::safe;

pub struct Steps<'a> {
    pub err: &'a mut Box<dyn std::io::Write>,
    /// Show the steps (stderr is a terminal and not --quiet); warnings show always.
    pub show: bool,
    pub started: Instant,
    /// Model calls made, of about how many, once the run says.
    pub calls: Option<(u32, usize)>,
}

impl<'a> Steps<'a> {
    pub fn new(err: &'a mut Box<dyn std::io::Write>, show: bool) -> Steps<'a> {
        Steps {
            err,
            show,
            started: git_skill::clock::monotonic(),
            calls: None,
        }
    }
}

impl Progress for Steps<'_> {
    fn warn(&mut self, message: &str) {
        let _ = writeln!(self.err, "warning: {}", safe(message));
    }

    fn progress(&mut self, step: u8, total: u8, name: &str, what: &str) {
        if self.show {
            let elapsed = self.started.elapsed().as_secs_f64();
            let calls = match self.calls {
                Some((done, planned)) => format!("model calls {done}/{planned}, "),
                None => String::new(),
            };
            let _ = writeln!(
                self.err,
                "[{step}/{total}] {name}: {} ({calls}{elapsed:.1} s)",
                safe(what)
            );
        }
    }

    fn calls(&mut self, done: u32, planned: usize) {
        self.calls = Some((done, planned.max(done as usize)));
    }
}
