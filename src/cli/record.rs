use std::io::{Read as _, Write as _};

use anyhow::Context as _;

use git_skill::ops::record as op;
use git_skill::signal::input;
use git_skill::signal::SignalType;
use serde_json::{Map, Value};

use super::output::Format;
use super::{CommandError, Outcome, ResultExt, Ui, Workspace};
use git_skill::env::Allow;

/// The recorder skill, for agents: when and how to call `git skill record`.
use git_skill::ops::init::RECORDER_SKILL;

/// The most `--stdin` reads.
const MAX_STDIN_BYTES: u64 = 16 << 20;

/// Record a feedback signal about a skill: the user corrected the agent, or the agent hit
/// friction.
///
/// The signal is appended to `<skill>/.skillopt/pending/signal.json` (one JSON object a line,
/// under a lock) with its id, the sha256 of the skill's SKILL.md and the time filled in, and its
/// id is printed. Credentials in the text are masked before anything is written. `git skill
/// optimize` later turns pending signals into a change to SKILL.md.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill record pdf --type corrected --scenario 'fill a tax form' \\
      --correction 'use the form field names, not the printed labels'
  git skill record .claude/skills/pdf --type friction --scenario 'merge two PDFs' \\
      --friction-detail 'had to guess which script merges; tried three'
  echo '{\"type\":\"friction\",\"scenario\":\"...\",\"friction_detail\":\"...\"}' | git skill record pdf --stdin
  mkdir -p .claude/skills/skill-recorder &&
    git skill record --print-skill > .claude/skills/skill-recorder/SKILL.md")]
pub struct RecordArgs {
    /// The skill: its name (looked up in the repository's skill roots, then in the user-level
    /// ones such as ~/.claude/skills) or its directory.
    #[arg(required_unless_present = "print_skill")]
    pub skill: Option<String>,

    /// `corrected`: the user corrected the agent. `friction`: the agent repeated an operation,
    /// guessed a step, or was too slow.
    #[arg(long = "type", value_name = "TYPE", value_parser = signal_type(), required_unless_present_any = ["stdin", "print_skill"])]
    pub kind: Option<SignalType>,

    /// The task, in one sentence.
    #[arg(long, required_unless_present_any = ["stdin", "print_skill"])]
    pub scenario: Option<String>,

    /// What the agent should do instead (required for `corrected`).
    #[arg(long)]
    pub correction: Option<String>,

    /// What was unclear and how the agent got around it (required for `friction`).
    #[arg(long)]
    pub friction_detail: Option<String>,

    /// What the user wanted in the first place.
    #[arg(long)]
    pub user_intent: Option<String>,

    /// A summary of the agent's answer that went wrong.
    #[arg(long)]
    pub problem_turn: Option<String>,

    /// The user's correction, in their words.
    #[arg(long)]
    pub user_correction: Option<String>,

    /// Read the signal(s) from stdin instead: one JSON object, JSON lines, or an array, with
    /// the fields of the signal schema (id, hash, time and skill are filled in when absent).
    #[arg(long, conflicts_with_all = ["kind", "scenario", "correction", "friction_detail", "user_intent", "problem_turn", "user_correction"])]
    pub stdin: bool,

    /// Print the recorder skill (instructions for agents on when and how to record) and exit.
    #[arg(long, conflicts_with_all = ["skill", "stdin", "kind", "scenario"])]
    pub print_skill: bool,

    /// Output format: the ids one per line, or JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Skill root to look the name up in instead of the configured ones (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<String>,
}

/// `--type corrected|friction`, parsed into the library's own type (the help lists both).
pub fn signal_type() -> impl clap::builder::TypedValueParser<Value = SignalType> {
    use clap::builder::TypedValueParser as _;
    let names = SignalType::ALL.map(SignalType::as_str);
    clap::builder::PossibleValuesParser::new(names)
        .map(|name: String| SignalType::from_name(&name).expect("one of the possible values"))
}

pub fn cmd_record(ui: &mut Ui, args: RecordArgs) -> Result<Outcome, CommandError> {
    if args.print_skill {
        ui.out.write_all(RECORDER_SKILL.as_bytes())?;
        return Ok(Outcome::Clean);
    }
    let mut ws = Workspace::load(ui)?;
    ws.config.set_flag("roots", "--root", &args.roots);
    let name = args.skill.as_deref().unwrap_or_default();
    let (skill, _) = ws.resolve_skill(name, Allow::Live)?;
    let given: Vec<(usize, Map<String, Value>)> = if args.stdin {
        let text = read_stdin()?;
        input::parse(&text)
            .context("could not read the signals on stdin")
            .hint("give one JSON object, JSON lines, or an array of objects; see git skill record --help")?
            .into_iter()
            .map(|g| (g.line, g.fields))
            .collect()
    } else {
        check_flags(&args)?;
        vec![(1, from_flags(&args))]
    };
    let recorded = match op::record(&skill, given, git_skill::clock::now()) {
        Err(op::RecordError::Invalid {
            error: source,
            line,
        }) => {
            // The field's error is precise; where it came from and what happened are what
            // this command adds.
            let mut error = CommandError::with(super::error::ErrorKind::User, source);
            if args.stdin {
                error = error.hint(format!("the signal starts on line {line} of stdin"));
            }
            return Err(error.hint("nothing was recorded"));
        }
        other => other?,
    };
    for l in &recorded.dropped {
        ui.warn(&format!(
            "removed '{}' ({}): a record that was interrupted before its signals reached the store",
            ws.display(&l.path).display(),
            git_skill::report::plural(l.bytes as usize, "byte")
        ))?;
    }
    for (id, n) in &recorded.masked {
        let what = if *n == 1 { "field" } else { "fields" };
        ui.warn(&format!(
            "masked credentials in {n} {what} of signal {id} before recording it"
        ))?;
    }
    let (path, signals) = (recorded.path, recorded.signals);
    let shown = ws.display(&path);
    match args.format {
        Format::Json => {
            #[derive(serde::Serialize)]
            struct Recorded<'a> {
                skill: &'a str,
                path: &'a std::path::Path,
                signal_ids: Vec<&'a str>,
            }
            let recorded = Recorded {
                skill: &skill.dir_name,
                path: &shown,
                signal_ids: signals.iter().map(|s| s.signal_id.as_str()).collect(),
            };
            super::output::json(ui, &recorded)?;
        }
        Format::Text => {
            for signal in &signals {
                writeln!(ui.out, "{}", signal.signal_id)?;
            }
        }
    }
    let count = signals.len();
    ui.status(&format!(
        "recorded {} for {} in {}",
        git_skill::report::plural(count, "signal"),
        skill.dir_name,
        shown.display()
    ))?;
    Ok(Outcome::Clean)
}

/// What the schema requires, said in terms of flags.
fn check_flags(args: &RecordArgs) -> Result<(), CommandError> {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if blank(&args.scenario) {
        return Err(CommandError::new("the scenario is empty")
            .hint("say what the task was, in one sentence: --scenario '...'"));
    }
    match args.kind {
        Some(SignalType::Corrected) if blank(&args.correction) => {
            Err(CommandError::new("a corrected signal needs a correction")
                .hint("say what the agent should do instead: --correction '...'"))
        }
        Some(SignalType::Friction) if blank(&args.friction_detail) => Err(CommandError::new(
            "a friction signal needs a friction detail",
        )
        .hint("say what was unclear and how the agent got around it: --friction-detail '...'")),
        _ => Ok(()),
    }
}

fn from_flags(args: &RecordArgs) -> Map<String, Value> {
    let mut fields = Map::new();
    let kind = args.kind.unwrap_or(SignalType::Friction);
    fields.insert("type".into(), kind.as_str().into());
    let text = |v: &Option<String>| Value::String(v.clone().unwrap_or_default());
    fields.insert("scenario".into(), text(&args.scenario));
    fields.insert("correction".into(), text(&args.correction));
    fields.insert("friction_detail".into(), text(&args.friction_detail));
    let mut context = Map::new();
    context.insert("user_intent".into(), text(&args.user_intent));
    context.insert("problem_turn".into(), text(&args.problem_turn));
    context.insert("user_correction".into(), text(&args.user_correction));
    fields.insert("context".into(), Value::Object(context));
    fields
}

fn read_stdin() -> Result<String, CommandError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("could not read stdin")?;
    if bytes.len() as u64 > MAX_STDIN_BYTES {
        return Err(CommandError::new(format!(
            "stdin holds more than {} MiB of signals",
            MAX_STDIN_BYTES >> 20
        ))
        .hint("record them in smaller batches; nothing was recorded"));
    }
    String::from_utf8(bytes).map_err(|e| {
        CommandError::new(format!(
            "stdin is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}
