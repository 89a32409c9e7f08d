use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use git_skill::prompt::{self, PromptError, PromptName, Prompts, TemplateSource};

use super::output::Format;
use super::table::Table;
use super::{CommandError, Outcome, ResultExt as _, Ui, Workspace};

/// The largest `--vars` input read.
const MAX_VARS_BYTES: u64 = 16 << 20;

/// List the prompt templates, or render one exactly as it would be sent to the model.
///
/// The templates are embedded in git-skill. A file of the same name (`triage.md.j2`, ...) in
/// the directory of `skill.templateDir` (GIT_SKILL_TEMPLATE_DIR), or else in
/// `<repository top>/.skillopt/templates/`, replaces the embedded one. Variables are strict:
/// one that the template uses and `--vars` lacks is an error naming the template, the line
/// and the variable.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill prompt list\n  git skill prompt render triage --vars triage.json\n  git skill prompt render review_system\n  echo '{\"skill_name\": \"pdf\"}' | git skill prompt render triage --vars -"
)]
pub struct PromptArgs {
    #[command(subcommand)]
    pub action: PromptAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum PromptAction {
    /// List the templates: name, where each comes from (embedded or an override), purpose.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print one template rendered with the variables of a JSON file, as it would be sent.
    Render {
        /// The template: triage, reflect, gate_text_edit, gate_rewrite, review_system or
        /// review (or its file name, triage.md.j2).
        name: String,

        /// A JSON object of the template's variables; `-` reads stdin. Without it the
        /// template gets no variables (enough for review_system).
        #[arg(long, value_name = "FILE.json")]
        vars: Option<PathBuf>,
    },
}

/// One row of `git skill prompt list --format json`.
#[derive(serde::Serialize)]
struct Row {
    name: &'static str,
    file: &'static str,
    /// `embedded` or `override`.
    source: &'static str,
    /// The override's path, relative to the current directory when inside it.
    path: Option<String>,
    purpose: &'static str,
}

pub fn cmd_prompt(ui: &mut Ui, args: PromptArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let dirs = prompt::override_dirs(
        &ws.config,
        ws.repo.as_ref().map(|r| r.workdir()),
        &ws.cwd,
        ws.home.as_deref(),
    );
    let prompts = Prompts::load(&dirs)?;
    for path in prompts.ignored() {
        ui.warn(&format!(
            "'{}' is not the name of a prompt template and is ignored (templates: {})",
            ws.display(path).display(),
            PromptName::ALL.map(|n| n.file_name()).join(", ")
        ))?;
    }
    match args.action {
        PromptAction::List { format } => list(ui, &ws, &prompts, format),
        PromptAction::Render { name, vars } => render(ui, &prompts, &name, vars.as_deref()),
    }
}

fn list(
    ui: &mut Ui,
    ws: &Workspace,
    prompts: &Prompts,
    format: Format,
) -> Result<Outcome, CommandError> {
    let rows: Vec<Row> = prompts
        .list()
        .into_iter()
        .map(|(name, source)| {
            let (kind, path) = match source {
                TemplateSource::Embedded => ("embedded", None),
                TemplateSource::Override(path) => {
                    ("override", Some(ws.display(&path).display().to_string()))
                }
            };
            Row {
                name: name.as_str(),
                file: name.file_name(),
                source: kind,
                path,
                purpose: name.purpose(),
            }
        })
        .collect();
    match format {
        Format::Json => {
            super::output::json_rows(ui, "templates", &rows)?;
        }
        Format::Text => {
            let mut table = Table::new(&["NAME", "SOURCE", "PURPOSE"]);
            for r in &rows {
                let source = r.path.clone().unwrap_or_else(|| r.source.to_owned());
                table.row(vec![r.name.to_owned(), source, r.purpose.to_owned()], false);
            }
            table.write(&mut ui.out, ui.out_style)?;
        }
    }
    Ok(Outcome::Clean)
}

fn render(
    ui: &mut Ui,
    prompts: &Prompts,
    name: &str,
    vars: Option<&Path>,
) -> Result<Outcome, CommandError> {
    let name: PromptName = name
        .parse()
        .map_err(|e| CommandError::from(PromptError::from(e)))?;
    let vars = match vars {
        Some(path) => read_vars(path)?,
        None => serde_json::Value::Object(Default::default()),
    };
    let text = prompts.render(name, &vars).map_err(|e| {
        let hint = match &e {
            PromptError::Render {
                variable: Some(v), ..
            } => format!(
                "give `{}` in the --vars file; the template's first lines list its variables",
                v.split('.').next().unwrap_or(v)
            ),
            PromptError::Render {
                source_: TemplateSource::Override(path),
                ..
            } => format!(
                "check the override '{}', or remove it to use the embedded template",
                path.display()
            ),
            _ => "check the --vars file against the template's variables".to_owned(),
        };
        CommandError::from(e).hint(hint)
    })?;
    ui.out.write_all(text.as_bytes())?;
    Ok(Outcome::Clean)
}

/// The `--vars` object, from a file or stdin (`-`), at most 16 MiB.
fn read_vars(path: &Path) -> Result<serde_json::Value, CommandError> {
    let stdin = path == Path::new("-");
    let shown = if stdin {
        "stdin".to_owned()
    } else {
        format!("'{}'", path.display())
    };
    let too_large = || {
        CommandError::new(format!(
            "{shown} holds more than {} MiB of variables",
            MAX_VARS_BYTES >> 20
        ))
        .hint("prompts are rendered from small JSON objects; check that this is the right file")
    };
    let mut bytes = Vec::new();
    let read = if stdin {
        std::io::stdin()
            .lock()
            .take(MAX_VARS_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        // Pipes (`--vars <(...)`) are read as streams, bounded like stdin.
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() && meta.len() > MAX_VARS_BYTES => return Err(too_large()),
            Ok(meta) if meta.is_dir() => {
                return Err(CommandError::new(format!("{shown} is a directory"))
                    .hint("give a JSON file, or - for stdin"))
            }
            _ => {}
        }
        std::fs::File::open(path).and_then(|f| f.take(MAX_VARS_BYTES + 1).read_to_end(&mut bytes))
    };
    read.with_context(|| format!("could not read {shown}"))
        .hint("give a JSON file of the template's variables, or - for stdin")?;
    if bytes.len() as u64 > MAX_VARS_BYTES {
        return Err(too_large());
    }
    let vars: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        CommandError::new(format!("{shown} is not valid JSON: {e}"))
            .hint("the variables are one JSON object, such as {\"skill_name\": \"pdf\", ...}")
    })?;
    if !vars.is_object() {
        let found = match &vars {
            serde_json::Value::Array(_) => "an array",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::Bool(_) => "a boolean",
            _ => "null",
        };
        return Err(CommandError::new(format!(
            "the variables in {shown} must be a JSON object, not {found}"
        ))
        .hint("wrap them in an object: {\"name\": value, ...}"));
    }
    Ok(vars)
}
