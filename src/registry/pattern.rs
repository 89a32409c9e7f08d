//! The registry's path patterns: `/`-separated parts, each a name with `*` for any run of
//! characters within it and `{a,b}` for either spelling, and `**` for any number of folders. A pattern matches a path that
//! ends in it, at any depth (`.claude/commands/**/*.md` matches
//! `web/.claude/commands/ops/deploy.md`), without regard to ASCII case.

#[derive(Debug, Clone)]
pub struct Pattern {
    /// Lower case.
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// `**`
    Any,
    /// A name, `*` standing for any run of characters.
    Glob(String),
    /// Any of these names (`*.{js,ts}` is `*.js` or `*.ts`).
    Either(Vec<String>),
}

impl Pattern {
    pub fn new(text: &str) -> Pattern {
        Pattern {
            parts: text
                .split('/')
                .filter(|p| !p.is_empty())
                .map(|p| match p {
                    "**" => Part::Any,
                    p => match expand(&p.to_ascii_lowercase()) {
                        mut one if one.len() == 1 => Part::Glob(one.remove(0)),
                        many => Part::Either(many),
                    },
                })
                .fold(Vec::new(), |mut parts, part| {
                    // `**/**` is `**`: each one more would multiply the work of a match.
                    if !(part == Part::Any && parts.last() == Some(&Part::Any)) {
                        parts.push(part);
                    }
                    parts
                }),
        }
    }

    /// Whether `path` (its parts) ends in this pattern.
    pub fn matches_at_any_depth(&self, path: &[&str]) -> bool {
        (0..path.len()).any(|start| self.matches(&path[start..]))
    }

    /// Whether `path` (its parts) is this pattern, whole.
    pub fn matches(&self, path: &[&str]) -> bool {
        match_parts(&self.parts, path)
    }

    /// The names the last part stands for when it is plain (`settings.json`, or
    /// `opencode.{json,jsonc}`); empty when it has a `*`.
    pub fn last_literals(&self) -> Vec<String> {
        match self.parts.last() {
            Some(Part::Glob(g)) if !g.contains('*') => vec![g.clone()],
            Some(Part::Either(globs)) if globs.iter().all(|g| !g.contains('*')) => globs.clone(),
            _ => Vec::new(),
        }
    }

    /// The extensions every match ends in, when the last part is `*.ext` or `*.{a,b}`
    /// (`["md"]`); empty when it is not.
    pub fn last_extensions(&self) -> Vec<String> {
        let ext = |g: &str| -> Option<String> {
            let ext = g.strip_prefix('*')?.rsplit_once('.')?.1;
            (!ext.contains('*') && !ext.is_empty()).then(|| ext.to_owned())
        };
        match self.parts.last() {
            Some(Part::Glob(g)) => ext(g).into_iter().collect(),
            Some(Part::Either(globs)) => globs
                .iter()
                .map(|g| ext(g))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The names the first part stands for, when it is plain, starts with a dot and is a
    /// folder (`.claude`; `.clinerules` and `.cline` for `{.clinerules,.cline}/hooks/*`).
    pub fn first_dot_literals(&self) -> Vec<String> {
        if self.parts.len() < 2 {
            return Vec::new();
        }
        let names = match &self.parts[0] {
            Part::Glob(g) => vec![g.clone()],
            Part::Either(globs) => globs.clone(),
            Part::Any => Vec::new(),
        };
        names
            .into_iter()
            .filter(|g| g.starts_with('.') && !g.contains('*'))
            .collect()
    }

    /// Whether every match has a part that starts with a dot.
    pub fn needs_dot_part(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Glob(g) => g.starts_with('.'),
            Part::Either(globs) => globs.iter().all(|g| g.starts_with('.')),
            Part::Any => false,
        })
    }
}

/// `a{b,c}d` as `abd` and `acd` (one brace group).
fn expand(part: &str) -> Vec<String> {
    match (part.find('{'), part.find('}')) {
        (Some(open), Some(close)) if open < close => part[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{alt}{}", &part[..open], &part[close + 1..]))
            .collect(),
        _ => vec![part.to_owned()],
    }
}

fn match_parts(pattern: &[Part], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((Part::Any, rest)) => (0..=path.len()).any(|skip| match_parts(rest, &path[skip..])),
        Some((Part::Glob(g), rest)) => match path.split_first() {
            Some((first, more)) => glob(g, first) && match_parts(rest, more),
            None => false,
        },
        Some((Part::Either(globs), rest)) => match path.split_first() {
            Some((first, more)) => globs.iter().any(|g| glob(g, first)) && match_parts(rest, more),
            None => false,
        },
    }
}

/// Whether `name` matches `glob` (lower case, `*` for any run), ASCII case ignored.
fn glob(glob: &str, name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let mut pieces = glob.split('*');
    let first = pieces.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        // No `*`: the whole name.
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_any_depth(pattern: &str, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        Pattern::new(pattern).matches_at_any_depth(&parts)
    }

    #[test]
    fn names_globs_and_folders_at_any_depth() {
        assert!(at_any_depth("CLAUDE.md", "CLAUDE.md"));
        assert!(at_any_depth("CLAUDE.md", "pkg/web/claude.MD"));
        assert!(!at_any_depth("CLAUDE.md", "CLAUDE.md.bak"));
        assert!(at_any_depth(
            ".claude/commands/**/*.md",
            ".claude/commands/x.md"
        ));
        assert!(at_any_depth(
            ".claude/commands/**/*.md",
            "a/.Claude/commands/ops/deep/x.md"
        ));
        assert!(!at_any_depth(
            ".claude/commands/**/*.md",
            ".claude/commands/x.txt"
        ));
        assert!(!at_any_depth(".claude/commands/**/*.md", ".claude/x.md"));
        assert!(at_any_depth(".github/hooks/*.json", ".github/hooks/a.json"));
        assert!(!at_any_depth(
            ".github/hooks/*.json",
            ".github/hooks/n/a.json"
        ));
        assert!(at_any_depth(
            ".github/instructions/**/*.instructions.md",
            ".github/instructions/rust.instructions.md"
        ));
        assert!(!at_any_depth(
            ".github/instructions/**/*.instructions.md",
            ".github/instructions/.md"
        ));
        assert!(at_any_depth(".roorules-*", ".roorules-code"));
        assert!(!at_any_depth(".roorules-*", ".roorules"));
        assert!(at_any_depth(".roo/rules-*/**/*", ".roo/rules-code/a/b.md"));
        assert!(at_any_depth(
            ".opencode/tool/**/*.{js,ts}",
            ".opencode/tool/x.ts"
        ));
        assert!(at_any_depth(
            ".opencode/tool/**/*.{js,ts}",
            ".opencode/tool/a/x.JS"
        ));
        assert!(!at_any_depth(
            ".opencode/tool/**/*.{js,ts}",
            ".opencode/tool/x.md"
        ));
    }

    #[test]
    fn what_the_index_is_built_from() {
        let p = Pattern::new(".claude/commands/**/*.md");
        assert!(p.last_literals().is_empty());
        assert_eq!(p.last_extensions(), ["md"]);
        assert_eq!(p.first_dot_literals(), [".claude"]);
        assert_eq!(
            Pattern::new("{.clinerules,.cline}/hooks/*").first_dot_literals(),
            [".clinerules", ".cline"]
        );
        assert!(p.needs_dot_part());
        let p = Pattern::new("CLAUDE.md");
        assert_eq!(p.last_literals(), ["claude.md"]);
        assert_eq!(
            Pattern::new("opencode.{json,jsonc}").last_literals(),
            ["opencode.json", "opencode.jsonc"]
        );
        assert!(!p.needs_dot_part());
        assert!(p.first_dot_literals().is_empty());
        assert!(Pattern::new(".roorules-*").last_extensions().is_empty());
        assert_eq!(
            Pattern::new(".kiro/hooks/*.kiro.hook").last_extensions(),
            ["hook"]
        );
        assert_eq!(Pattern::new("x/*.{js,ts}").last_extensions(), ["js", "ts"]);
        assert!(Pattern::new("x/*.{js,*}").last_extensions().is_empty());
    }

    #[test]
    fn globs() {
        assert!(glob("*.md", "a.md"));
        assert!(glob("*.md", ".md"));
        assert!(!glob("*.md", "a.mdx"));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
        assert!(glob("*", "anything"));
        assert!(!glob("ab*ba", "aba"));
    }
}
