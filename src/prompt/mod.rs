//! Prompt templates: the minijinja environment that renders the prompts git-skill sends to a
//! model, from the templates embedded in the binary (`templates/*.md.j2`) or from overrides.
//!
//! - Overrides, highest precedence first: `skill.templateDir` (`GIT_SKILL_TEMPLATE_DIR`), then
//!   `<repository top>/.skillopt/templates/`, then the embedded template ([`override_dirs`]).
//! - Variables are strict: using one the caller did not pass is an error naming the template,
//!   the line and the variable, never an empty string in a prompt.
//! - Untrusted values go through the `data` filter (`{{ skill_text | data("SKILL.md") }}`),
//!   which fences them so that they cannot close their fence and labels them as data; short
//!   values in running text through `inline` (JSON-quoted). See [`fence`].
//! - Each template states the JSON its answer must be; [`contracts`] holds the Rust types,
//!   [`vars`] the variables each template takes, [`long_skill`] the section selection of
//!   optimize step 5.

pub mod contracts;
pub mod fence;
pub mod long_skill;
mod name;
mod overrides;
pub mod schemas;
pub mod vars;

use std::fmt;
use std::path::PathBuf;

use minijinja::{Environment, UndefinedBehavior};

pub use name::{PromptName, UnknownPrompt};
pub use overrides::{override_dirs, OverrideDir, MAX_TEMPLATE_BYTES, REPO_TEMPLATE_DIR};

/// Instructions one render may run: a generous bound for prompts (a few thousand are used),
/// so that an override with a runaway loop fails instead of hanging a commit or a review.
const FUEL: u64 = 50_000_000;

/// Where a template came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateSource {
    Embedded,
    Override(PathBuf),
}

impl fmt::Display for TemplateSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateSource::Embedded => f.write_str("embedded"),
            TemplateSource::Override(path) => write!(f, "{}", path.display()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error(transparent)]
    Unknown(#[from] UnknownPrompt),
    #[error("template directory '{}' (from {origin}) does not exist", path.display())]
    MissingDirectory { path: PathBuf, origin: String },
    #[error("template directory '{}' (from {origin}) is not a directory", path.display())]
    NotADirectory { path: PathBuf, origin: String },
    #[error("'{}' leads outside its template directory (to '{}'); overrides are never read through such a link", path.display(), target.display())]
    Escapes { path: PathBuf, target: PathBuf },
    #[error("'{}' is a symlink that leads nowhere", path.display())]
    DanglingSymlink { path: PathBuf },
    #[error("template override '{}' is not a regular file", path.display())]
    NotAFile { path: PathBuf },
    #[error("template override '{}' is larger than {} KiB", path.display(), limit >> 10)]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("template override '{}' is not UTF-8 (byte {byte})", path.display())]
    NotUtf8 { path: PathBuf, byte: usize },
    #[error("could not read '{}'", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A template that does not parse: for an override, `source` names the file.
    #[error("template {template} ({source_}) does not parse{}: {message}", at_line(*line))]
    Parse {
        template: &'static str,
        source_: TemplateSource,
        line: Option<usize>,
        message: String,
    },
    /// A render that failed; `variable` is set when an undefined variable was used.
    #[error("could not render template {template} ({source_}){}: {message}", at_line(*line))]
    Render {
        template: &'static str,
        source_: TemplateSource,
        line: Option<usize>,
        variable: Option<String>,
        message: String,
    },
    #[error("the variables of template {template} must be a JSON object, not {found}")]
    VarsNotObject {
        template: &'static str,
        found: &'static str,
    },
    #[error("could not turn the variables of template {template} into JSON")]
    Vars {
        template: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(", line {l}")).unwrap_or_default()
}

/// The prompt templates, ready to render.
pub struct Prompts {
    env: Environment<'static>,
    sources: Vec<(PromptName, TemplateSource)>,
    ignored: Vec<PathBuf>,
}

impl fmt::Debug for Prompts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompts")
            .field("sources", &self.sources)
            .field("ignored", &self.ignored)
            .finish()
    }
}

impl Prompts {
    /// The embedded templates, each replaced by the first override found in `dirs` (in
    /// precedence order, as [`override_dirs`] returns them). An override that cannot be read
    /// or does not parse is an error naming the file; an absent one is no error.
    pub fn load(dirs: &[OverrideDir]) -> Result<Prompts, PromptError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // Error spans (the failing variable) need debug info, off by default in release.
        env.set_debug(true);
        env.set_fuel(Some(FUEL));
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_syntax(syntax());
        env.add_filter("data", fence::data_filter);
        env.add_filter("inline", fence::inline_filter);

        let mut chosen: Vec<(PromptName, TemplateSource, Option<String>)> = PromptName::ALL
            .iter()
            .map(|&n| (n, TemplateSource::Embedded, None))
            .collect();
        let mut ignored = Vec::new();
        for dir in dirs {
            let wanted: Vec<PromptName> = chosen
                .iter()
                .filter(|(_, s, _)| *s == TemplateSource::Embedded)
                .map(|(n, _, _)| *n)
                .collect();
            let found = overrides::read_dir(dir, &wanted)?;
            ignored.extend(found.ignored);
            for (name, path, text) in found.templates {
                if let Some(slot) = chosen.iter_mut().find(|(n, _, _)| *n == name) {
                    slot.1 = TemplateSource::Override(path);
                    slot.2 = Some(text);
                }
            }
        }
        let mut sources = Vec::new();
        for (name, source, text) in chosen {
            let added = match text {
                Some(text) => env.add_template_owned(name.file_name(), text),
                None => env.add_template(name.file_name(), name.embedded()),
            };
            added.map_err(|e| PromptError::Parse {
                template: name.file_name(),
                source_: source.clone(),
                line: e.line(),
                message: describe(&e),
            })?;
            sources.push((name, source));
        }
        Ok(Prompts {
            env,
            sources,
            ignored,
        })
    }

    /// The prompt `name` with `vars` (a JSON object), exactly as it is sent.
    pub fn render(
        &self,
        name: PromptName,
        vars: &serde_json::Value,
    ) -> Result<String, PromptError> {
        if !vars.is_object() {
            return Err(PromptError::VarsNotObject {
                template: name.file_name(),
                found: json_kind(vars),
            });
        }
        let source = self.source(name);
        let render_error = |e: minijinja::Error| {
            let variable = undefined_variable(&e);
            let message = match &variable {
                // Said the same way whether minijinja or a filter noticed it.
                Some(v) => format!("{}: `{v}` is undefined", e.kind()),
                None => describe(&e),
            };
            PromptError::Render {
                template: name.file_name(),
                source_: source.clone(),
                line: e.line(),
                variable,
                message,
            }
        };
        let template = self
            .env
            .get_template(name.file_name())
            .map_err(render_error)?;
        template
            .render(minijinja::Value::from(minijinja::value::Serde(vars)))
            .map_err(render_error)
    }

    /// [`Prompts::render`] with typed variables, such as [`vars::TriageVars`].
    pub fn render_with<T: serde::Serialize>(
        &self,
        name: PromptName,
        vars: &T,
    ) -> Result<String, PromptError> {
        let vars = serde_json::to_value(vars).map_err(|source| PromptError::Vars {
            template: name.file_name(),
            source,
        })?;
        self.render(name, &vars)
    }

    /// sha256 of the text of `names` as loaded (embedded or overridden): what changes when a
    /// template that shapes a run does.
    pub fn fingerprint(&self, names: &[PromptName]) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for &name in names {
            let text = self
                .env
                .get_template(name.file_name())
                .map(|t| t.source().to_owned())
                .unwrap_or_default();
            hash.update(name.file_name().as_bytes());
            hash.update([0]);
            hash.update((text.len() as u64).to_le_bytes());
            hash.update(text.as_bytes());
        }
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Every template and where it comes from, in [`PromptName::ALL`] order.
    pub fn list(&self) -> Vec<(PromptName, TemplateSource)> {
        self.sources.clone()
    }

    /// Where `name` comes from.
    pub fn source(&self, name: PromptName) -> TemplateSource {
        self.sources
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s.clone())
            .unwrap_or(TemplateSource::Embedded)
    }

    /// `*.j2` files in override directories that match no template name: probably misnamed,
    /// worth a warning.
    pub fn ignored(&self) -> &[PathBuf] {
        &self.ignored
    }
}

/// Block tags on lines of their own leave no blank lines; a final newline is kept, so a
/// rendered prompt ends like the file.
fn syntax() -> minijinja::syntax::SyntaxConfig {
    minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .unwrap_or_default()
}

/// `undefined value: `signals` is undefined`, without minijinja's `(in file:line)` suffix,
/// which the error variants say their own way.
fn describe(e: &minijinja::Error) -> String {
    match e.detail() {
        Some(detail) => format!("{}: {detail}", e.kind()),
        None => e.kind().to_string(),
    }
}

/// The variable that was undefined: minijinja's detail names it (`` `signals` is undefined``);
/// failing that, the error's span in the template when it is a plain name or path (the span
/// of `{{ x | data }}` is the filter call, not the variable).
fn undefined_variable(e: &minijinja::Error) -> Option<String> {
    if e.kind() != minijinja::ErrorKind::UndefinedError {
        return None;
    }
    let is_path = |s: &str| {
        !s.is_empty()
            && s.split('.').all(|part| {
                part.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
    };
    let from_detail = e
        .detail()
        .and_then(|d| d.strip_prefix('`'))
        .and_then(|d| d.split_once("` is undefined"))
        .map(|(name, _)| name.to_owned())
        .filter(|name| is_path(name));
    from_detail.or_else(|| {
        let source = e.template_source()?;
        let range = e.range()?;
        // `{{ signals | data(...) }}`: the span is the filter call; the variable is what
        // the filter was applied to, between the tag's opening and the `|`.
        let before = source.get(..range.start)?;
        let open = before.rfind("{{").or_else(|| before.rfind("{%"))?;
        let applied = before[open + 2..]
            .trim_start_matches(['-', '+'])
            .trim()
            .strip_suffix('|')
            .map(str::trim);
        let expr = match applied {
            Some(expr) => expr,
            None => source.get(range)?.trim(),
        };
        is_path(expr).then(|| expr.to_owned())
    })
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
