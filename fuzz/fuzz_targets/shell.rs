//! The shell analysis (syntax tree, data flow, decoded strings) on any text.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    git_skill_fuzz::analyse("scripts/run.sh", data);
});
