//! Archives opened in memory (zip, tar, gzip, nested), every member scanned as a file.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The first byte picks the name the archive goes by (its members are found by content).
    let name = match data.first().map(|b| b % 4) {
        Some(0) => "assets/data.zip",
        Some(1) => "assets/data.tar.gz",
        Some(2) => "assets/report.docx",
        _ => "assets/data.tar",
    };
    git_skill_fuzz::scan(name, data);
});
