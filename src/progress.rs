//! What a long, model-driven run tells the person who started it: its steps, warnings that do
//! not stop it, and the model calls made so far. The library never prints; the binary gives an
//! implementation that writes to a terminal (or nothing). Optimize's steps report through it,
//! and so will the review agent's rounds.

pub trait Progress {
    /// Step `step` of `total` started (or made progress): `what` says what it is doing.
    fn progress(&mut self, step: u8, total: u8, name: &str, what: &str);
    /// Something the user should know that does not stop the run.
    fn warn(&mut self, message: &str);
    /// Model calls made so far, of about `planned` in all.
    fn calls(&mut self, done: u32, planned: usize);
}
