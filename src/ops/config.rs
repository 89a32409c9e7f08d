//! `git skill config`: every key, its value and where the value comes from, and the values
//! that are not valid.

use serde::Serialize;

use crate::config::{ConfigError, KEYS};
use crate::env::Env;

#[derive(Debug, Serialize)]
pub struct Effective {
    pub keys: Vec<Row>,
    /// The values that are not valid, each naming its key and source.
    #[serde(skip)]
    pub errors: Vec<ConfigError>,
}

/// One key.
#[derive(Debug, Serialize)]
pub struct Row {
    /// `skill.<key>`.
    pub key: String,
    /// The `GIT_SKILL_*` variable that sets it.
    pub env: String,
    /// Every value, in order; `roots` has several, the others one at most.
    pub values: Vec<String>,
    /// Where the last value comes from.
    pub source: Option<String>,
    pub description: &'static str,
}

pub fn effective(env: &Env) -> Effective {
    let keys = KEYS
        .iter()
        .map(|spec| {
            let values = if spec.key == "roots" {
                env.config.get_all("roots")
            } else {
                env.config.get(spec.key).into_iter().collect()
            };
            Row {
                key: format!("skill.{}", spec.key),
                env: spec.env_var(),
                source: values.last().map(|v| v.source.to_string()),
                values: values.into_iter().map(|v| v.text).collect(),
                description: spec.help,
            }
        })
        .collect();
    Effective {
        keys,
        errors: env.config.validate_all(),
    }
}
