//! `git skill prompt`: the prompt templates, listed with where each comes from, or one
//! rendered exactly as the model would get it.

use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::env::Env;
use crate::prompt::{self, PromptError, PromptName, Prompts, TemplateSource};

/// The largest `--vars` input read.
pub const MAX_VARS_BYTES: u64 = 16 << 20;

#[derive(Debug, thiserror::Error)]
pub enum PromptOpError {
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// Rendering failed: the variables given do not fit the template.
    #[error(transparent)]
    Render(PromptError),
    #[error("{shown} holds more than {} MiB of variables", MAX_VARS_BYTES >> 20)]
    VarsTooLarge { shown: String },
    #[error("{shown} is a directory")]
    VarsDirectory { shown: String },
    #[error("could not read {shown}")]
    VarsRead {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    // serde's message is the reason; it is not a cause of its own.
    #[error("{shown} is not valid JSON: {error}")]
    VarsJson {
        shown: String,
        error: serde_json::Error,
    },
    #[error("the variables in {shown} must be a JSON object, not {found}")]
    VarsNotObject { shown: String, found: &'static str },
}

/// The templates in effect.
#[derive(Debug, Serialize)]
pub struct Templates {
    pub templates: Vec<Row>,
}

/// One template.
#[derive(Debug, Serialize)]
pub struct Row {
    pub name: &'static str,
    pub file: &'static str,
    /// `embedded` or `override`.
    pub source: &'static str,
    /// The override's path, relative to the current directory when inside it.
    pub path: Option<String>,
    pub purpose: &'static str,
}

/// Where a render's variables come from.
pub enum Vars<'a> {
    None,
    File(&'a Path),
    /// Read to its end, bounded like a file (stdin).
    Stream(&'a mut dyn Read),
}

/// The templates, embedded and overridden, before any is listed or rendered.
pub struct Loaded {
    prompts: Prompts,
    /// Files in an override directory that are no template's name, as shown.
    pub ignored: Vec<String>,
}

pub fn load(env: &Env) -> Result<Loaded, PromptError> {
    let dirs = prompt::override_dirs(
        &env.config,
        env.repo.as_ref().map(|r| r.workdir()),
        &env.cwd,
        env.home.as_deref(),
    );
    let prompts = Prompts::load(&dirs)?;
    let ignored = prompts
        .ignored()
        .iter()
        .map(|p| env.display(p).display().to_string())
        .collect();
    Ok(Loaded { prompts, ignored })
}

pub fn list(env: &Env, loaded: &Loaded) -> Templates {
    let templates = loaded
        .prompts
        .list()
        .into_iter()
        .map(|(name, source)| {
            let (kind, path) = match source {
                TemplateSource::Embedded => ("embedded", None),
                TemplateSource::Override(path) => {
                    ("override", Some(env.display(&path).display().to_string()))
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
    Templates { templates }
}

/// The template `name` rendered with `vars`.
pub fn render(loaded: &Loaded, name: &str, vars: Vars) -> Result<String, PromptOpError> {
    let name: PromptName = name.parse().map_err(PromptError::from)?;
    let vars = match vars {
        Vars::None => serde_json::Value::Object(Default::default()),
        Vars::File(path) => read_file(path)?,
        Vars::Stream(reader) => parse("stdin".into(), bounded(reader, "stdin")?)?,
    };
    loaded
        .prompts
        .render(name, &vars)
        .map_err(PromptOpError::Render)
}

fn read_file(path: &Path) -> Result<serde_json::Value, PromptOpError> {
    let shown = format!("'{}'", path.display());
    // Pipes (`--vars <(...)`) are read as streams, bounded like stdin.
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() > MAX_VARS_BYTES => {
            return Err(PromptOpError::VarsTooLarge { shown })
        }
        Ok(meta) if meta.is_dir() => return Err(PromptOpError::VarsDirectory { shown }),
        _ => {}
    }
    let mut file = std::fs::File::open(path).map_err(|source| PromptOpError::VarsRead {
        shown: shown.clone(),
        source,
    })?;
    let bytes = bounded(&mut file, &shown)?;
    parse(shown, bytes)
}

fn bounded(reader: &mut dyn Read, shown: &str) -> Result<Vec<u8>, PromptOpError> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_VARS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| PromptOpError::VarsRead {
            shown: shown.to_owned(),
            source,
        })?;
    if bytes.len() as u64 > MAX_VARS_BYTES {
        return Err(PromptOpError::VarsTooLarge {
            shown: shown.to_owned(),
        });
    }
    Ok(bytes)
}

fn parse(shown: String, bytes: Vec<u8>) -> Result<serde_json::Value, PromptOpError> {
    let vars: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|error| PromptOpError::VarsJson {
            shown: shown.clone(),
            error,
        })?;
    let found = match &vars {
        serde_json::Value::Object(_) => return Ok(vars),
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Null => "null",
    };
    Err(PromptOpError::VarsNotObject { shown, found })
}
