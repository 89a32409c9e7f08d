//! A `skill_manage` request: the action, the skill, and the parameters the action takes, as
//! `skill-evolution-guard.md` §4.1 has them (the JSON object an agent's tool call produces,
//! or the flags of `git skill manage`).

use serde::{Deserialize, Serialize};

/// What a request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A new skill: `content` is its SKILL.md.
    Create,
    /// SKILL.md rewritten whole: `content`.
    Edit,
    /// `old_string` replaced by `new_string` in SKILL.md (or `file_path`): once, and it must
    /// occur once, unless `replace_all`.
    Patch,
    /// The whole skill removed.
    Delete,
    /// A support file written: `file_path`, `file_content`.
    WriteFile,
    /// A support file removed: `file_path`.
    RemoveFile,
}

impl Action {
    pub const ALL: [Action; 6] = [
        Action::Create,
        Action::Edit,
        Action::Patch,
        Action::Delete,
        Action::WriteFile,
        Action::RemoveFile,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Edit => "edit",
            Action::Patch => "patch",
            Action::Delete => "delete",
            Action::WriteFile => "write_file",
            Action::RemoveFile => "remove_file",
        }
    }
}

/// The whole request. Unknown fields are refused: a misspelt `old_sting` must not turn a patch
/// into something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub action: Action,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_string: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_string: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replace_all: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_content: Option<String>,
}

/// The largest request read as JSON: a SKILL.md of 100,000 characters (up to 4 bytes each)
/// and its escapes fit.
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

impl Request {
    /// The request in `bytes` (the seed's JSON object).
    pub fn from_json(bytes: &[u8]) -> Result<Request, String> {
        if bytes.len() > MAX_REQUEST_BYTES {
            return Err(format!(
                "the request has {} bytes; at most {MAX_REQUEST_BYTES} are read",
                bytes.len()
            ));
        }
        serde_json::from_slice(bytes)
            .map_err(|e| format!("the request is not a skill_manage object: {e}"))
    }

    /// Which parameters the action takes, and which it needs: a missing one or one it does
    /// not take is an error (a `content` given to `patch` is a mistake worth saying).
    pub fn check_parameters(&self) -> Result<(), String> {
        let params: [(bool, &str); 6] = [
            (self.content.is_some(), "content"),
            (self.old_string.is_some(), "old_string"),
            (self.new_string.is_some(), "new_string"),
            (self.replace_all, "replace_all"),
            (self.file_path.is_some(), "file_path"),
            (self.file_content.is_some(), "file_content"),
        ];
        let (needs, takes): (&[&str], &[&str]) = match self.action {
            Action::Create | Action::Edit => (&["content"], &["content"]),
            Action::Patch => (
                &["old_string", "new_string"],
                &["old_string", "new_string", "replace_all", "file_path"],
            ),
            Action::Delete => (&[], &[]),
            Action::WriteFile => (
                &["file_path", "file_content"],
                &["file_path", "file_content"],
            ),
            Action::RemoveFile => (&["file_path"], &["file_path"]),
        };
        for (present, name) in params {
            if present && !takes.contains(&name) {
                return Err(format!("{} takes no `{name}`", self.action.as_str()));
            }
        }
        for name in needs {
            if !params.iter().any(|(p, n)| *p && n == name) {
                return Err(format!("{} needs `{name}`", self.action.as_str()));
            }
        }
        if self.action == Action::Patch && self.old_string.as_deref() == Some("") {
            return Err("patch needs a non-empty `old_string`".into());
        }
        if self.category.is_some() && self.action != Action::Create {
            // The category of an existing skill is where it is; only create chooses one.
            return Err(format!(
                "{} takes no `category`: the skill is found by its name",
                self.action.as_str()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_json_is_read_and_its_mistakes_refused() {
        let r = Request::from_json(
            br#"{"action":"patch","name":"pdf","old_string":"a","new_string":"b","replace_all":true}"#,
        )
        .unwrap();
        assert_eq!(r.action, Action::Patch);
        assert!(r.replace_all);
        r.check_parameters().unwrap();
        for (json, why) in [
            (
                r#"{"action":"patch","name":"pdf","old_sting":"a"}"#,
                "unknown field",
            ),
            (r#"{"action":"rename","name":"pdf"}"#, "unknown variant"),
            (r#"{"name":"pdf"}"#, "missing field `action`"),
            (r#"[1]"#, "expected"),
            ("not json", "expected"),
        ] {
            let e = Request::from_json(json.as_bytes()).unwrap_err();
            assert!(e.contains(why), "{json}: {e}");
        }
        let huge = vec![b' '; MAX_REQUEST_BYTES + 1];
        assert!(Request::from_json(&huge).unwrap_err().contains("at most"));
    }

    #[test]
    fn each_action_takes_its_parameters_only() {
        let base = |action| Request {
            action,
            name: "x".into(),
            content: None,
            old_string: None,
            new_string: None,
            replace_all: false,
            category: None,
            file_path: None,
            file_content: None,
        };
        assert!(base(Action::Create)
            .check_parameters()
            .unwrap_err()
            .contains("needs `content`"));
        assert!(base(Action::Delete).check_parameters().is_ok());
        let mut r = base(Action::Patch);
        r.old_string = Some(String::new());
        r.new_string = Some("b".into());
        assert!(r.check_parameters().unwrap_err().contains("non-empty"));
        let mut r = base(Action::RemoveFile);
        r.file_path = Some("references/a.md".into());
        r.content = Some("x".into());
        assert!(r
            .check_parameters()
            .unwrap_err()
            .contains("takes no `content`"));
        let mut r = base(Action::Edit);
        r.content = Some("x".into());
        r.category = Some("ops".into());
        assert!(r
            .check_parameters()
            .unwrap_err()
            .contains("takes no `category`"));
        let mut r = base(Action::WriteFile);
        r.file_path = Some("references/a.md".into());
        assert!(r
            .check_parameters()
            .unwrap_err()
            .contains("needs `file_content`"));
    }
}
