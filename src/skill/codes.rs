//! The lint code registry. Codes are stable: a code is never reused for another meaning.

use crate::report::Level;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub name: &'static str,
    pub level: Level,
    pub summary: &'static str,
    pub explanation: &'static str,
}

macro_rules! code {
    ($code:literal, $name:literal, $level:ident, $summary:literal, $explanation:literal) => {
        Code {
            code: $code,
            name: $name,
            level: Level::$level,
            summary: $summary,
            explanation: $explanation,
        }
    };
}

pub const MISSING_FRONTMATTER: &str = "SK001";
pub const UNCLOSED_FRONTMATTER: &str = "SK002";
pub const INVALID_YAML: &str = "SK003";
pub const NOT_A_MAPPING: &str = "SK004";
pub const MISSING_NAME: &str = "SK005";
pub const INVALID_NAME: &str = "SK006";
pub const MISSING_DESCRIPTION: &str = "SK007";
pub const INVALID_DESCRIPTION: &str = "SK008";
pub const CONTENT_TOO_LONG: &str = "SK009";
pub const INVALID_FIELD: &str = "SK010";
pub const FILE_OUTSIDE_ALLOWED_DIRS: &str = "SK011";
pub const FILE_TOO_LARGE: &str = "SK012";
pub const TOO_MANY_FILES: &str = "SK013";
pub const SKILL_TOO_LARGE: &str = "SK014";
pub const PATH_ESCAPES: &str = "SK015";
pub const SYMLINK_ESCAPES: &str = "SK016";
pub const NOT_UTF8: &str = "SK017";
pub const FRONTMATTER_TOO_LARGE: &str = "SK018";
pub const NOT_A_REGULAR_FILE: &str = "SK019";
pub const NAME_MISMATCH: &str = "SK020";
pub const CLIENT_KEY: &str = "SK021";
pub const UNKNOWN_KEY: &str = "SK022";
pub const BODY_TOO_LONG: &str = "SK023";
pub const ANGLE_BRACKETS: &str = "SK024";
pub const EMPTY_BODY: &str = "SK025";
pub const METADATA_NOT_STRING: &str = "SK026";
pub const LAYOUT: &str = "SK027";
pub const NON_ASCII_NAME: &str = "SK028";
pub const ALLOWED_TOOLS_LIST: &str = "SK029";
pub const BYTE_ORDER_MARK: &str = "SK030";
pub const INVALID_LINT_ALLOW: &str = "SK031";
pub const INVALID_EVALS: &str = "SK032";
pub const EVAL_FILE_MISSING: &str = "SK033";
pub const NO_EVAL_CASES: &str = "SK034";

/// Limits that come from the rules for what an agent may write (`skill-evolution-guard.md`
/// §4.3), not from the format: errors for what git-skill writes (optimize's candidates; the
/// manage and review commands to come) and skills marked `source: auto-skill`; warnings for
/// skills people publish, whose loaders take them (the specification lets a skill "contain
/// any files and directories"). A link to a
/// sibling skill (`../other-skill/...`, SK015) is treated the same way; other escapes stay
/// errors.
pub const WRITER_LIMITS: &[&str] = &[
    CONTENT_TOO_LONG,
    FILE_OUTSIDE_ALLOWED_DIRS,
    FILE_TOO_LARGE,
    TOO_MANY_FILES,
    SKILL_TOO_LARGE,
];

/// The level policy in words, for `lint --explain` of a code it concerns.
pub fn level_policy(code: &str) -> Option<&'static str> {
    if WRITER_LIMITS.contains(&code) {
        Some("Level: error for skills that git-skill writes (an optimize candidate) and for skills marked `metadata.source: auto-skill`; a warning for skills people publish, which agents load as they are.")
    } else if code == PATH_ESCAPES {
        Some("Level: an error, except a link to a file of a sibling skill (`../other-skill/file.md`) in a skill people publish, which is a warning; for skills that git-skill writes or that are marked `metadata.source: auto-skill`, every escape is an error.")
    } else {
        None
    }
}

pub static CODES: &[Code] = &[
    code!("SK001", "missing-frontmatter", Error,
        "SKILL.md does not start with a `---` frontmatter block",
        "Agents find a skill through the YAML frontmatter at the very top of SKILL.md: a line \
`---`, then `name:` and `description:`, then a closing `---`. Without it Claude Code, Codex and \
the other loaders skip the skill or refuse it.\n\nThe first line of the file must be `---`: \
blank lines, a title or an HTML comment before it hide the block.\n\nFix: start the file with\n\n\
    ---\n    name: my-skill\n    description: What it does and when to use it.\n    ---\n"),
    code!("SK002", "unclosed-frontmatter", Error,
        "the frontmatter opened by `---` is never closed",
        "The frontmatter runs from the first `---` line to the next line that is exactly `---`. \
Without that closing line a loader reads the whole file as YAML and fails, or reads nothing.\n\n\
Fix: add a line `---` after the last frontmatter key, before the Markdown body."),
    code!("SK003", "invalid-yaml", Error,
        "the frontmatter is not valid YAML",
        "Loaders parse the frontmatter with a YAML parser; one syntax error loses the whole skill.\n\n\
The most common cause is an unquoted value that contains `: `, as in\n\n\
    description: Use when: the user asks for a PDF\n\n\
which YAML reads as a nested key. Fix: quote the value, or use a folded block:\n\n\
    description: \"Use when: the user asks for a PDF\"\n    description: >-\n      Use when: the user asks for a PDF\n\n\
Other causes: tabs used for indentation (YAML allows spaces only), a value starting with `@` or a \
backtick, a key written twice, anchors and aliases that expand without bound (refused as an \
attack)."),
    code!("SK004", "frontmatter-not-a-mapping", Error,
        "the frontmatter is not a mapping of keys to values",
        "The frontmatter must be a YAML mapping (`key: value` lines). A list (`- item`), a bare \
string or an empty block gives loaders nothing to read.\n\nFix: write `name:` and `description:` \
keys at the start of their lines."),
    code!("SK005", "missing-name", Error,
        "the frontmatter has no `name`",
        "Every skill needs a `name`: agents list and invoke skills by it.\n\nFix: add \
`name: <directory-name>`: 1 to 64 characters of lowercase letters, digits and hyphens, equal to \
the directory that holds SKILL.md."),
    code!("SK006", "invalid-name", Error,
        "`name` breaks the naming rules",
        "The agentskills specification allows a name of 1 to 64 characters from `a-z`, `0-9` and \
`-`, not starting or ending with a hyphen and without `--`. Uppercase, spaces, underscores, dots or \
a non-string value (a number, a list) make loaders reject or mangle the skill.\n\nFix: rename to \
something like `pdf-forms`, and rename the directory to match."),
    code!("SK007", "missing-description", Error,
        "the frontmatter has no `description`",
        "The description is what the agent reads to decide when to use the skill; without it the \
skill is never chosen, and several loaders refuse it.\n\nFix: add `description:` with one or two \
sentences saying what the skill does and when to use it (at most 1024 characters)."),
    code!("SK008", "invalid-description", Error,
        "`description` is empty, too long or not a string",
        "The description must be a string of 1 to 1024 characters. A list or mapping (from a stray \
`- ` or an unquoted `: `), a blank value, or a longer text is rejected or cut by loaders.\n\nFix: \
one plain sentence or two, quoted if it contains `: ` or starts with a YAML indicator."),
    code!("SK009", "content-too-long", Error,
        "SKILL.md is longer than 100,000 characters",
        "Skills are loaded into the agent's context; git-skill's limit (from the skill-manage \
validation rules) is 100,000 characters for SKILL.md. Longer files are refused by the writers of \
auto-skills and cost every session that loads them.\n\nFix: keep SKILL.md to the workflow and move \
reference material to `references/`, which agents read only when needed."),
    code!("SK010", "invalid-field", Error,
        "an optional field has the wrong type or length",
        "The optional fields have fixed shapes: `license` is a string, `compatibility` a string of \
at most 500 characters, `metadata` a mapping of string keys to string values, `allowed-tools` a \
string (space-separated) or a list of strings. Other shapes break strict loaders.\n\nFix: change \
the field to the shape above, or remove it."),
    code!("SK011", "file-outside-allowed-dirs", Error,
        "a support file lies outside references/, templates/, scripts/ and assets/",
        "Besides SKILL.md (and a LICENSE or NOTICE file), a skill's files belong in four folders: \
`references/` (documents the agent reads on demand), `templates/`, `scripts/` (code the agent runs) \
and `assets/`. Files elsewhere are invisible to the conventions agents follow and are where \
payloads hide.\n\nFix: move the file into one of the four folders and update the links in \
SKILL.md, or delete it."),
    code!("SK012", "file-too-large", Error,
        "a support file is larger than 1 MiB",
        "Each file of a skill may be at most 1 MiB (1,048,576 bytes). Large files slow every \
checkout and scan, and are rarely something an agent should read.\n\nFix: shrink or split the \
file, or keep large data outside the skill and fetch it deliberately."),
    code!("SK013", "too-many-files", Error,
        "the skill has more than 50 files, or nests them too deep",
        "A skill may hold at most 50 files, SKILL.md included (`.skillopt/` is git-skill's own \
store and is not counted), in at most 16 levels of directories: deeper files are not listed, so \
they could not be checked.\n\nFix: merge small references, flatten the tree, or split the skill \
in two."),
    code!("SK014", "skill-too-large", Error,
        "the skill's files add up to more than 1 MiB",
        "All files of a skill together may be at most 1 MiB (`.skillopt/` not counted).\n\nFix: \
remove or shrink large assets."),
    code!("SK015", "path-escapes-skill", Error,
        "a link in SKILL.md points outside the skill with `..`",
        "Links in SKILL.md are read relative to the skill directory. A target that climbs out with \
`..` (or starts at `/`) makes the agent read files that are not part of the skill: other skills, \
the repository, or secrets. It also breaks when the skill is installed elsewhere.\n\nFix: copy what \
is needed into `references/` and link to it there."),
    code!("SK016", "symlink-escapes-skill", Error,
        "a symlink points outside the skill",
        "A symlink inside a skill that leads out of it (an absolute target or `..` past the skill's \
top) lets the skill read or overwrite whatever it points at, and it means something else on every \
machine. git-skill never follows such links.\n\nFix: replace the link with a copy of the file."),
    code!("SK017", "not-utf8", Error,
        "SKILL.md is not valid UTF-8",
        "Loaders read SKILL.md as UTF-8 text; invalid bytes make some refuse the file and others \
show replacement characters to the model. The column points at the first bad byte's line.\n\nFix: \
re-save the file as UTF-8."),
    code!("SK018", "frontmatter-too-large", Error,
        "the frontmatter is larger than 64 KiB and is not parsed",
        "A frontmatter holds a name, a description of at most 1024 characters and a few optional \
fields. One of more than 65,536 bytes is either a mistake (a missing closing `---`) or an attempt \
to stall the tools that parse it, so git-skill does not parse it.\n\nFix: close the frontmatter \
after the last key and move text into the body."),
    code!("SK019", "skill-md-not-a-file", Error,
        "SKILL.md is not a regular file",
        "SKILL.md must be a regular file. A symlink stores only a path in git, which points \
somewhere else on every machine; a directory or device named SKILL.md is nothing a loader can \
read.\n\nFix: replace it with the file's contents."),
    code!("SK020", "name-mismatch", Warning,
        "`name` differs from the skill's directory name",
        "The agentskills specification says the name equals the directory name. Agents that key \
skills by directory and those that key by name then disagree, and two skills may collide.\n\nFix: \
rename the directory or the `name` so that they match."),
    code!("SK021", "client-specific-key", Warning,
        "a frontmatter key is specific to one client",
        "Keys such as Claude Code's `when_to_use`, `disable-model-invocation`, `argument-hint` or \
`model` work in one client and are ignored (or refused) by the others. A top-level `source` is \
git-skill's older provenance mark; the current place is `metadata.source`.\n\nFix: keep the key if \
the skill targets that client only; otherwise move the information into the description or \
`metadata`."),
    code!("SK022", "unknown-key", Warning,
        "a frontmatter key is not part of the skill format",
        "The format knows `name`, `description`, `license`, `compatibility`, `metadata` and \
`allowed-tools`, plus some client extensions. Any other key is ignored by agents, often a typo \
(`descripton`).\n\nFix: correct the spelling, or put custom data under `metadata`."),
    code!("SK023", "body-too-long", Warning,
        "SKILL.md is longer than 500 lines",
        "Agents load the whole file when they use a skill. The agentskills specification says \
\"keep your main SKILL.md under 500 lines\" (the whole file, frontmatter included) and moves \
detail into `references/` files that the body points to.\n\nFix: split reference material out \
of SKILL.md."),
    code!("SK024", "angle-brackets-in-description", Warning,
        "`description` contains `<` or `>`",
        "The description is inserted into the agent's system prompt, often inside XML-like tags. \
Angle brackets can close or open such tags and are refused by some validators.\n\nFix: write the \
words out (`less than`, `to`) or use quotes."),
    code!("SK025", "empty-body", Warning,
        "SKILL.md has no body after the frontmatter",
        "The body holds the instructions the agent follows once it picks the skill. With an empty \
body the skill does nothing but take a place in the list.\n\nFix: write the workflow: when to use \
it, the steps, the rules."),
    code!("SK026", "metadata-value-not-string", Warning,
        "a `metadata` key or value is not a string",
        "The specification makes `metadata` \"a map from string keys to string values\". An unquoted \
`version: 1.0` is a number to YAML, `true` a boolean, and an indented block a nested map or a \
list. The reference validator turns every key and value into a string, so they load there, but \
strict loaders refuse them and what the string becomes differs from one tool to the next.\n\n\
Fix: quote the value (`version: \"1.0\"`), or flatten a nested value into one string."),
    code!("SK027", "unusual-layout", Warning,
        "the skill sits deeper than `<root>/<category>/<name>` or its category name is invalid",
        "Agents look for `<root>/<name>/SKILL.md`, and git-skill also accepts one category level \
`<root>/<category>/<name>/SKILL.md`. A skill nested deeper is not loaded by most agents. A \
category follows the naming rule of names: lowercase letters, digits, `.`, `_` and `-`.\n\nFix: \
move the skill up, and rename the category if needed."),
    code!("SK028", "non-ascii-name", Warning,
        "`name` uses lowercase letters outside ASCII",
        "The specification's reference validator accepts lowercase letters of any script after \
NFKC normalisation (`навык`, `技能`), but Anthropic's validator and many loaders accept only \
`a-z`, `0-9` and `-`, so the skill does not load everywhere.\n\nFix: for a skill meant to be \
shared, use an ASCII name and keep the other script in the description."),
    code!("SK029", "allowed-tools-list", Warning,
        "`allowed-tools` is a YAML list rather than a space-separated string",
        "The specification defines `allowed-tools` as a space-separated string \
(`allowed-tools: Read Grep Bash(git:*)`). Claude Code also reads a YAML list, other clients do not, \
and then the restriction is silently lost.\n\nFix: write the tools on one line, separated by \
spaces."),
    code!("SK030", "byte-order-mark", Warning,
        "SKILL.md starts with a UTF-8 byte order mark",
        "A byte order mark (the bytes EF BB BF, which some Windows editors write) comes before the \
opening `---`. The reference validator and Anthropic's then find no frontmatter and reject the \
skill; git-skill and some loaders skip it.\n\nFix: save the file as UTF-8 without a byte order \
mark."),
    code!("SK031", "invalid-lint-allow", Error,
        "a `git-skill:allow-lint` comment names an unknown code or gives no reason",
        "`<!-- git-skill:allow-lint SK011, SK013 -- reason -->` anywhere in SKILL.md turns those \
codes off for the skill, with the reason shown in JSON output. A code that does not exist, or a \
comment without a reason after `--`, would silently do nothing, so it is an error. SK031 itself \
cannot be turned off.\n\nFix: name codes from `git skill lint --explain`, and say why after \
`--`."),
    code!("SK032", "invalid-evals", Error,
        "`evals/evals.json` is not a valid eval set",
        "`evals/evals.json` holds the skill's eval cases, in the Agent Skills authoring guide's \
format: `{\"skill_name\": \"...\", \"evals\": [{\"id\": 1, \"prompt\": \"...\", \
\"expected_output\": \"...\", \"files\": [\"evals/files/a.csv\"], \"assertions\": [\"...\"]}]}`. \
`git skill eval` runs them and `optimize` replays them before a change is approved; a file they \
cannot read would make both fail, so the message says which line or case is wrong: JSON that \
does not parse, a case without an `id` or `prompt`, two cases with one id, nothing to grade by \
(neither `expected_output` nor `assertions`), an input path outside the skill, more than 500 \
cases, or a file over 1 MiB, UTF-16 or not UTF-8.\n\nFix: correct the case named; each needs \
a unique `id`, a `prompt`, and `expected_output` or `assertions`."),
    code!("SK033", "eval-file-missing", Error,
        "an eval case names an input file the skill does not have",
        "A case's `files` are given to the agent with its prompt, from the skill's own directory \
(`evals/files/sales.csv`). A path that is not a regular file of the skill (missing, a link, a \
folder) would make the case run without its input and fail for the wrong reason.\n\nFix: add \
the file to the skill (under `evals/files/` by convention), or correct the path."),
    code!("SK034", "no-eval-cases", Warning,
        "`evals/evals.json` has no cases",
        "An eval set with an empty `evals` list checks nothing: `git skill eval` has nothing to \
run and `optimize`'s replay gate nothing to replay.\n\nFix: add cases (a prompt, and the \
expected output or assertions), or delete the file."),
];

/// Looks a code up by its id (`SK003`, any case) or its name (`invalid-yaml`).
pub fn find(query: &str) -> Option<&'static Code> {
    CODES
        .iter()
        .find(|c| c.code.eq_ignore_ascii_case(query) || c.name.eq_ignore_ascii_case(query))
}

pub(crate) fn get(code: &str) -> &'static Code {
    CODES
        .iter()
        .find(|c| c.code == code)
        .expect("lint code is registered")
}

/// Every code, described for a report's rule list (SARIF).
pub fn infos() -> Vec<crate::report::problem::RuleInfo> {
    use crate::report::problem::{Loudness, RuleInfo};
    CODES
        .iter()
        .map(|c| RuleInfo {
            id: c.code,
            summary: c.summary,
            explanation: c.explanation,
            labels: [c.name, c.level.as_str()],
            loudness: Loudness::of_level(c.level),
            security_severity: None,
            tags: vec!["skill-format"],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_consistent() {
        for (i, code) in CODES.iter().enumerate() {
            assert_eq!(
                code.code,
                format!("SK{:03}", i + 1),
                "codes are dense and ordered"
            );
            assert!(!code.summary.ends_with('.'));
            assert!(
                code.explanation.contains("Fix:"),
                "{} explains the fix",
                code.code
            );
            assert!(CODES.iter().filter(|c| c.name == code.name).count() == 1);
        }
        assert_eq!(find("sk003").unwrap().name, "invalid-yaml");
        assert_eq!(find("invalid-name").unwrap().code, "SK006");
        assert!(find("SK999").is_none());
    }
}
