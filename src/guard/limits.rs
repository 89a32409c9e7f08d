//! How much of a skill the guard reads: the bounds every reader of skill files shares.

/// Files larger than this are not read; the size is a critical finding of its own (STR004).
/// Anything smaller is scanned whole, in linear time (about 16 MB/s on one core).
pub const MAX_SCAN_BYTES: u64 = 32 << 20;
/// The most bytes of one skill read in all, files taken in path order: past it a file is not
/// read and is a critical finding (STR004), which bounds the memory a skill can make a check
/// use whatever it holds.
pub const MAX_SKILL_SCAN_BYTES: u64 = 64 << 20;
