use std::io::Write as _;
use std::path::{Path, PathBuf};

use git_skill::ops::prompt::{self as op, Vars};
use git_skill::prompt::PromptName;

use super::output::Format;
use super::table::Table;
use super::{CommandError, Outcome, Ui, Workspace};

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

pub fn cmd_prompt(ui: &mut Ui, args: PromptArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let loaded = op::load(&ws)?;
    for path in &loaded.ignored {
        ui.warn(&format!(
            "'{path}' is not the name of a prompt template and is ignored (templates: {})",
            PromptName::ALL.map(|n| n.file_name()).join(", ")
        ))?;
    }
    match args.action {
        PromptAction::List { format } => {
            let templates = op::list(&ws, &loaded);
            match format {
                Format::Json => super::output::json(ui, &templates)?,
                Format::Text => {
                    let mut table = Table::new(&["NAME", "SOURCE", "PURPOSE"]);
                    for r in &templates.templates {
                        let source = r.path.clone().unwrap_or_else(|| r.source.to_owned());
                        table.row(vec![r.name.to_owned(), source, r.purpose.to_owned()], false);
                    }
                    table.write(&mut ui.out, ui.out_style)?;
                }
            }
        }
        PromptAction::Render { name, vars } => {
            let mut stdin = std::io::stdin().lock();
            let vars = match vars.as_deref() {
                None => Vars::None,
                Some(path) if path == Path::new("-") => Vars::Stream(&mut stdin),
                Some(path) => Vars::File(path),
            };
            let text = op::render(&loaded, &name, vars)?;
            ui.out.write_all(text.as_bytes())?;
        }
    }
    Ok(Outcome::Clean)
}
