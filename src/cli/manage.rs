use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use git_skill::manage::{self, Action, Outcome, Request};

use super::output::Format;
use anyhow::Context as _;

use super::{CommandError, Outcome as Exit, ResultExt as _, Ui, Workspace};

/// The most read from a `--content`/`--file-content` file, or stdin: the request's own limits
/// are far below it, and the text is refused with its size rather than read without end.
const MAX_INPUT_BYTES: u64 = 4 << 20;

/// Create, edit or patch a skill, or write a support file, checked before anything is written
/// (the `skill_manage` tool of an agent, for people and scripts).
///
/// The request is validated (a name of lowercase letters, digits, '.', '_' and '-', at most 64
/// characters; one category level; SKILL.md of at most 100,000 characters with `name` and
/// `description`; support files under references/, templates/, scripts/ or assets/, at most 1
/// MiB each; at most 50 files and 1 MiB a skill; no '..', no absolute path, no symbolic link
/// on the way). The skill as it would be is then assembled in memory and checked whole by
/// SkillGuard and lint: a `dangerous` verdict or a lint error the change brings refuses it
/// (exit 1) and nothing changes. Otherwise each file is written by a temporary file, fsync and
/// rename, under one lock per skill: concurrent writers take turns, and a patch applies to the
/// latest content (a patch whose --old no longer matches fails). `create` never overwrites.
/// With --auto-skill (what the review agent writes), `create` stamps `metadata.source:
/// auto-skill` and `metadata.extracted_at`, edits keep the mark, `git-skill:allow` comments
/// are not honoured and lint holds the skill to the limits of what git-skill writes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill manage create notes --content notes.md
  git skill manage patch notes --old 'run the tests' --new 'run the tests with --locked'
  git skill manage write-file notes --file references/setup.md --file-content setup.md
  git skill manage remove-file notes --file references/old.md
  echo '{\"action\":\"patch\",\"name\":\"notes\",\"old_string\":\"a\",\"new_string\":\"b\"}' | git skill manage --json")]
pub struct ManageArgs {
    /// What to do (not with --json).
    #[arg(required_unless_present = "json", value_parser = action_parser())]
    pub action: Option<Action>,

    /// The skill's name: its directory under the root (or the root's category).
    #[arg(required_unless_present = "json")]
    pub name: Option<String>,

    /// SKILL.md (create, edit): a file, or - for stdin.
    #[arg(long, value_name = "FILE|-")]
    pub content: Option<String>,

    /// The text to replace (patch): it must occur once, unless --replace-all.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub old: Option<String>,

    /// The text it becomes (patch).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub new: Option<String>,

    /// Replace every occurrence (patch).
    #[arg(long)]
    pub replace_all: bool,

    /// One directory level between the root and the new skill (create).
    #[arg(long, value_name = "CAT")]
    pub category: Option<String>,

    /// A support file, relative to the skill (write-file, remove-file; patch: instead of
    /// SKILL.md).
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,

    /// The support file's content (write-file): a file, or - for stdin.
    #[arg(long, value_name = "FILE|-")]
    pub file_content: Option<String>,

    /// The skill root [default: skill.autoSkill.root, else the first default root that
    /// exists in the repository].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Read the whole request from stdin as JSON: {action, name, content, old_string,
    /// new_string, replace_all, category, file_path, file_content}.
    #[arg(long, conflicts_with_all = ["action", "name", "content", "old", "new", "replace_all", "category", "file", "file_content"])]
    pub json: bool,

    /// Write as an agent: stamp the auto-skill provenance on create, keep it on edits, honour
    /// no allow comment, hold lint to the writer limits.
    #[arg(long)]
    pub auto_skill: bool,

    /// Check everything, write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Output format: JSON is {ok, action, skill, path, verdict, findings, errors, changed}.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The actions as typed on the command line: the request's own names, with `-`.
fn action_parser() -> impl clap::builder::TypedValueParser<Value = Action> {
    const NAMES: [&str; 6] = [
        "create",
        "edit",
        "patch",
        "delete",
        "write-file",
        "remove-file",
    ];
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(NAMES).map(|typed| {
        Action::ALL
            .into_iter()
            .find(|a| a.as_str().replace('_', "-") == typed)
            .expect("every name is an action's")
    })
}

pub fn cmd_manage(ui: &mut Ui, args: ManageArgs) -> Result<Exit, CommandError> {
    let ws = Workspace::load(ui)?;
    let request = if args.json {
        let bytes = read_input("-", &ws.cwd)?;
        Request::from_json(&bytes)
            .map_err(CommandError::new)
            .hint("give one JSON object, as the skill_manage tool takes it")?
    } else {
        let text = |source: &Option<String>| -> Result<Option<String>, CommandError> {
            match source {
                Some(s) => {
                    let bytes = read_input(s, &ws.cwd)?;
                    Ok(Some(String::from_utf8(bytes).map_err(|e| {
                        CommandError::new(format!(
                            "'{s}' is not UTF-8 text (byte {})",
                            e.utf8_error().valid_up_to()
                        ))
                    })?))
                }
                None => Ok(None),
            }
        };
        Request {
            action: args.action.expect("clap requires it"),
            name: args.name.clone().expect("clap requires it"),
            content: text(&args.content)?,
            old_string: args.old.clone(),
            new_string: args.new.clone(),
            replace_all: args.replace_all,
            category: args.category.clone(),
            file_path: args.file.clone(),
            file_content: text(&args.file_content)?,
        }
    };
    let target = git_skill::ops::manage::target(&ws, args.root.as_deref())?;
    let options = manage::Options {
        auto_skill: args.auto_skill,
        stamp: args.auto_skill,
        now: git_skill::clock::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        dry_run: args.dry_run,
    };
    let outcome = manage::manage(&target, &request, &options)?;
    match args.format {
        Format::Json => super::output::json(ui, serde_json::to_value(&outcome)?)?,
        Format::Text => render(ui, &outcome, args.dry_run)?,
    }
    Ok(if outcome.ok {
        Exit::Clean
    } else {
        Exit::Problems
    })
}

/// A file's bytes, or stdin's for `-`, at most [`MAX_INPUT_BYTES`].
fn read_input(source: &str, cwd: &Path) -> Result<Vec<u8>, CommandError> {
    let mut bytes = Vec::new();
    if source == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .context("could not read stdin")?;
    } else {
        let path = cwd.join(source);
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes))
            .with_context(|| format!("could not read '{}'", path.display()))?;
    }
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(CommandError::new(format!(
            "'{source}' holds more than {} MiB",
            MAX_INPUT_BYTES >> 20
        ))
        .hint("a skill is at most 1 MiB; nothing was written"));
    }
    Ok(bytes)
}

fn render(ui: &mut Ui, o: &Outcome, dry_run: bool) -> std::io::Result<()> {
    let safe = super::ui::safe;
    let verb = match o.action {
        Action::Create => "created",
        Action::Edit => "edited",
        Action::Patch => "patched",
        Action::Delete => "deleted",
        Action::WriteFile => "wrote",
        Action::RemoveFile => "removed",
    };
    if o.ok {
        let files = if o.changed.is_empty() || o.changed == [""] {
            String::new()
        } else {
            format!(" ({})", o.changed.join(", "))
        };
        let verdict = o.verdict.map(|v| format!(": {v}")).unwrap_or_default();
        if dry_run {
            writeln!(
                ui.out,
                "would be {verb}: {}{verdict} (dry run: nothing written)",
                safe(&o.path)
            )?;
        } else {
            writeln!(ui.out, "{verb} {}{files}{verdict}", safe(&o.path))?;
        }
    } else {
        // The action as the command line spells it (`write-file`; the JSON request and the
        // review's tool spell it `write_file`).
        let name = o.action.as_str();
        let typed = name.replace('_', "-");
        writeln!(
            ui.out,
            "refused: {typed} {} (nothing written)",
            safe(&o.path)
        )?;
        for e in &o.errors {
            writeln!(ui.out, "  - {}", safe(&e.replace(name, &typed)))?;
        }
    }
    for f in &o.findings {
        writeln!(
            ui.out,
            "  {} {} {}:{} {}",
            f.severity,
            f.rule,
            safe(&f.file),
            f.line,
            safe(&f.message)
        )?;
    }
    Ok(())
}
