use crate::guard::rule::{Category, Matcher, Rule, Severity};

/// The structural rules, in id order. Each is a constant too: the scanner names the one it
/// reports by its constant, so a mistyped id does not compile.
pub const RULES: &[Rule] = &[
    STR001, STR002, STR003, STR004, STR005, STR006, STR007, STR008, STR009, STR010, STR011, STR012,
    STR013, STR014, STR015, STR016, STR017, STR018, STR019,
];

/// A file has a blocked binary extension.
pub const STR001: Rule = Rule {
    id: "STR001",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file has a blocked binary extension",
    explanation: "Files ending in .exe, .dll, .so, .dylib, .bin, .dat, .com, .msi, .dmg, .app, \
.deb or .rpm are programs, libraries or installers: an agent can be told to run them and nobody \
can review them. Instead, ship source code under scripts/ and build or install the tool through a \
pinned, reviewed step.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A file is an executable binary (by its magic bytes).
pub const STR002: Rule = Rule {
    id: "STR002",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file is an executable binary (by its magic bytes)",
    explanation: "The file starts with the signature of an ELF, PE (Windows), Mach-O or \
WebAssembly binary, whatever its name says. A binary cannot be reviewed and runs with the user's \
rights. Instead, ship source code and build it reproducibly.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A file is an archive that cannot be scanned.
pub const STR003: Rule = Rule {
    id: "STR003",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file is an archive that cannot be scanned",
    explanation: "Zip (Office documents included), tar and gzip archives are opened and their \
members scanned, but bzip2, xz, zstd, 7z and rar archives, and zip members compressed with \
another method than stored or deflate, cannot be: their contents are hidden from review and from \
this scanner, and an agent can be told to unpack and run them. What cannot be looked into cannot \
pass, so the skill is dangerous. Instead, commit the files themselves, or a zip or tar.gz of them.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A file is too large to scan.
pub const STR004: Rule = Rule {
    id: "STR004",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file is too large to scan",
    explanation: "Files over 32 MiB are not read, so nothing in them is checked; a payload can \
hide in the bulk, and what cannot be looked at cannot pass, so the skill is dangerous. Anything \
smaller is scanned whole. Skill files should be at most 1 MiB anyway. Instead, shrink the file or \
keep large data outside the skill.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A symlink points outside the skill.
pub const STR005: Rule = Rule {
    id: "STR005",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a symlink points outside the skill",
    explanation: "A link to `/etc`, to the home directory or out of the skill with `..` lets the \
skill read or overwrite whatever it points at, and means something else on every machine. \
git-skill never follows it. Instead, copy the needed file into the skill.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// An executable file outside scripts/.
pub const STR006: Rule = Rule {
    id: "STR006",
    category: Category::Structural,
    severity: Severity::Medium,
    message: "an executable file outside scripts/",
    explanation: "Executable files belong under scripts/, where reviewers and this scanner \
treat everything as code that runs. An executable Markdown file or asset is unusual and often a \
disguised script. Instead, move scripts to scripts/ and clear the executable bit elsewhere \
(`git update-index --chmod=-x`).",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// The skill exceeds the file-count or size limits.
pub const STR007: Rule = Rule {
    id: "STR007",
    category: Category::Structural,
    severity: Severity::Medium,
    message: "the skill exceeds the file-count or size limits",
    explanation: "A skill may hold at most 50 files and 1 MiB in all. Bulk makes review \
impractical and is where payloads hide. Instead, keep the skill to what the agent needs.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A FIFO, socket or device file.
pub const STR008: Rule = Rule {
    id: "STR008",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a FIFO, socket or device file",
    explanation: "Special files are never part of a legitimate skill: reading a FIFO can block \
and a device can be anything, so it cannot be scanned and the skill is dangerous. Instead, \
remove it.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A file holds binary data.
pub const STR009: Rule = Rule {
    id: "STR009",
    category: Category::Structural,
    severity: Severity::Medium,
    message: "a file holds binary data",
    explanation: "The file contains NUL bytes or is mostly not text. It is still scanned as text, \
but a reviewer cannot read it. Instead, keep binary assets to known formats under assets/ (images, \
fonts), or generate them at build time.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A file could not be read.
pub const STR010: Rule = Rule {
    id: "STR010",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file could not be read",
    explanation: "The scanner could not read this file, so nothing in it was checked. A check \
never passes by not looking: the skill is dangerous and the scan exits with an error. Instead, \
fix the permissions or remove the file.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// The skill could not be listed whole.
pub const STR011: Rule = Rule {
    id: "STR011",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "the skill could not be listed whole",
    explanation: "The skill holds more than 10,000 entries or directories nested more than 16 \
levels deep, so the listing stopped and some files were never looked at. What is not looked at \
cannot pass, so the skill is dangerous. Instead, keep the skill small and shallow: an agent needs \
a SKILL.md and a few support files.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// An archive is over the bounds it is opened within.
pub const STR012: Rule = Rule {
    id: "STR012",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "an archive is over the bounds it is opened within",
    explanation: "Archives are unpacked in memory within bounds: 64 MiB in all per archive (and \
no more than is left of the skill's 64 MiB read budget), 10,000 members, three archives nested \
in one another, and no member over 1 MiB expanding more than 100 times its compressed size (a \
decompression bomb, made to exhaust whoever unpacks it). Past a bound the rest is not looked at, \
and what is not looked at cannot pass, so the skill is dangerous. Instead, commit the files \
themselves, or a smaller and flatter archive.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// An archive member is encrypted.
pub const STR013: Rule = Rule {
    id: "STR013",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "an archive member is encrypted",
    explanation: "An encrypted member (ZipCrypto or AES) cannot be read without its password, so \
nothing in it is checked, and a password handed to the agent unlocks whatever it holds. What \
cannot be looked into cannot pass, so the skill is dangerous. Instead, ship the files \
unencrypted; secrets do not belong in a skill.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// An archive is corrupt or ambiguous.
pub const STR014: Rule = Rule {
    id: "STR014",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "an archive is corrupt or ambiguous",
    explanation: "The archive could not be read to its end (it is truncated, a checksum does \
not match, a header is malformed), or different tools would see different files in it: duplicate \
names, members overlapping one another, local headers that disagree with the zip's central \
directory or that it does not list. That is how archives hide a payload from one reader and hand \
it to another (zip cloaking). What is not read as the user's tools read it cannot pass, so the \
skill is dangerous. Instead, rebuild the archive with a standard tool, or commit its files.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// An archive member would be extracted outside its directory.
pub const STR015: Rule = Rule {
    id: "STR015",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "an archive member would be extracted outside its directory",
    explanation: "A member named with an absolute path or a `..` component, or a link whose \
target leaves the archive, is written outside the directory it is extracted to by many tools \
(zip slip): an agent told to unpack the archive can overwrite the user's files, shell profile or \
SSH keys. The member's content is still scanned. Instead, name members relative to the archive's \
top, without `..`.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A file is compiled bytecode.
pub const STR016: Rule = Rule {
    id: "STR016",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file is compiled bytecode",
    explanation: "Python bytecode (.pyc and .pyo files, or any file with the header of one: a \
release's magic number, `\\r\\n` and a marshalled code object) and Java class files (0xCAFEBABE \
and a class-file version) are programs in compiled form: the interpreter runs them, nobody can \
review them and this scanner cannot read them, so the skill is dangerous. Instead, ship the \
source (.py, .java) and let the interpreter compile it.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// The scanner failed on a file (a bug in git-skill).
pub const STR017: Rule = Rule {
    id: "STR017",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "the scanner failed on a file",
    explanation: "An internal error (a bug in git-skill) stopped the scan of this file part way, \
so what it holds was not all checked. A check never passes by not looking: the skill is \
dangerous, the run exits with an error, and every other file and skill is still reported. \
Please report the bug with the file (or a redacted copy); until it is fixed, a commit that needs \
the file can skip the check once with git commit --no-verify after a person has read it.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A Git LFS pointer whose object is not here.
pub const STR018: Rule = Rule {
    id: "STR018",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a file is a Git LFS pointer whose object was not scanned",
    explanation: "With `filter=lfs` in `.gitattributes`, git stores a small pointer and the \
checkout holds the object it names: agents run the object, which the pointer does not show. A \
pointer is scanned through its object when the repository's LFS store (`.git/lfs/objects/`) has \
it, with the size and SHA-256 the pointer names; otherwise what agents get was not looked at, \
and what cannot be looked at cannot pass. Instead, fetch the objects before the check (`git lfs \
pull`; in CI, `actions/checkout` with `lfs: true`), or commit the file itself: a skill's scripts \
and documents are small text and gain nothing from LFS.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};

/// A symbolic link whose text is no path.
pub const STR019: Rule = Rule {
    id: "STR019",
    category: Category::Structural,
    severity: Severity::Critical,
    message: "a symbolic link holds text that is no path",
    explanation: "Git stores a link as a blob holding its target's path. Where links are not \
made (`core.symlinks=false`, Git for Windows' default), the checkout writes that text into a \
regular file, which an agent then runs like any script. A target holding a line break, a NUL \
or a shebang is no path anyone links to: it is a script smuggled in as a link. Its text is \
scanned as the file it becomes (so is a target with shell syntax in it). Instead, commit the \
script as a regular file.",
    matcher: Matcher::Structural,
    fires: &[],
    passes: &[],
    ..Rule::PLAIN
};
