//! SKILL.md as an agent reads it: its prose (sentences, instructions, exfiltration and
//! injection wording, dependency confusion), the code in its fences and its frontmatter name.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    git_skill_fuzz::analyse("SKILL.md", data);
});
