//! A reference document through the whole scan: normalised views, quoted examples, context
//! demotions, base64 and hex blobs decoded, line and column mapping.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    git_skill_fuzz::scan("references/guide.md", data);
});
