//! Which of a skill's own modules a Python or JavaScript file is analysed with: those its
//! imports reach, and those that import it, transitively. An attack split across modules
//! (`collector.py` reads `~/.aws/credentials`, `reporter.py` posts its argument, `main.py`
//! passes one to the other) is harmless in each file alone; analysed together, the secret
//! reaches the network call in `reporter.py`, which reports it.
//!
//! Imports are read from the text (a line that starts with `import`/`from` in Python; a
//! relative `require`, `import ... from` or `import()` in JavaScript), not resolved the way an
//! interpreter would: a module an import could mean is linked. Linking too much only costs
//! time; the analysis of a file alone still runs, so a linked module that fails to parse
//! cannot hide what the file does by itself.

use super::regions::{file_lang, Lang};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Modules analysed with a file, beside it.
pub const MAX_LINKED: usize = 16;
/// Bytes of linked modules analysed with a file.
pub const MAX_LINKED_BYTES: usize = 512 << 10;

/// For each Python or JavaScript file of `texts` (paths relative to the skill) linked by
/// imports to others, those others, nearest first, within [`MAX_LINKED`] and
/// [`MAX_LINKED_BYTES`].
pub fn linked<'a>(texts: &HashMap<&'a str, String>) -> HashMap<&'a str, Vec<&'a str>> {
    let modules: BTreeMap<&'a str, Lang> = texts
        .iter()
        .filter_map(|(p, t)| match file_lang(p, t)? {
            l @ (Lang::Python | Lang::JavaScript) if !markdown(p) => Some((*p, l)),
            _ => None,
        })
        .collect();
    if modules.len() < 2 {
        return HashMap::new();
    }
    let mut edges: BTreeMap<&'a str, BTreeSet<&'a str>> = BTreeMap::new();
    for (&path, &lang) in &modules {
        let text = &texts[path];
        let wanted = match lang {
            Lang::Python => python_imports(path, text),
            _ => javascript_imports(path, text),
        };
        for candidate in wanted {
            let Some((&other, &other_lang)) = modules.get_key_value(candidate.as_str()) else {
                continue;
            };
            if other != path && other_lang == lang {
                edges.entry(path).or_default().insert(other);
                edges.entry(other).or_default().insert(path);
            }
        }
    }
    let mut out = HashMap::new();
    for &start in edges.keys() {
        let mut seen = BTreeSet::from([start]);
        let mut queue = VecDeque::from([start]);
        let mut found = Vec::new();
        let mut bytes = 0usize;
        'walk: while let Some(at) = queue.pop_front() {
            for &next in edges.get(at).into_iter().flatten() {
                if !seen.insert(next) {
                    continue;
                }
                let size = texts[next].len();
                if found.len() == MAX_LINKED || bytes + size > MAX_LINKED_BYTES {
                    break 'walk;
                }
                bytes += size;
                found.push(next);
                queue.push_back(next);
            }
        }
        if !found.is_empty() {
            out.insert(start, found);
        }
    }
    out
}

fn markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_owned()
    } else {
        format!("{dir}/{rest}")
    }
}

/// Paths a Python file's imports may name: each module as `a/b.py` or `a/b/__init__.py`
/// under the importer's folder and each folder above it (where `python scripts/x.py` and
/// `python -m` from the skill's root look), relative imports under the folder the dots say.
fn python_imports(path: &str, text: &str) -> Vec<String> {
    let mut modules: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("from ") {
            let Some((module, names)) = rest.split_once(" import ") else {
                continue;
            };
            let module = module.trim();
            let dots = module.len() - module.trim_start_matches('.').len();
            let module = &module[dots..];
            // `from pkg import mod` may import a module as well as a name.
            for name in names
                .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace())
                .split(',')
            {
                let name = name.split_whitespace().next().unwrap_or("");
                if is_dotted_name(name) {
                    let full = if module.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{module}.{name}")
                    };
                    modules.push((dots, full));
                }
            }
            if is_dotted_name(module) {
                modules.push((dots, module.to_owned()));
            }
        } else if let Some(rest) = line.strip_prefix("import ") {
            for part in rest.split(',') {
                let name = part.split_whitespace().next().unwrap_or("");
                if is_dotted_name(name) {
                    modules.push((0, name.to_owned()));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (dots, module) in modules {
        let rel = module.replace('.', "/");
        let mut dir = parent(path);
        let bases: Vec<&str> = if dots > 0 {
            for _ in 1..dots {
                dir = parent(dir);
            }
            vec![dir]
        } else {
            let mut all = vec![dir];
            while !dir.is_empty() {
                dir = parent(dir);
                all.push(dir);
            }
            all
        };
        for base in bases {
            out.push(join(base, &format!("{rel}.py")));
            out.push(join(base, &format!("{rel}/__init__.py")));
        }
    }
    out
}

fn is_dotted_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// Paths a JavaScript file's relative imports may name (`./lib`, `../util.js`): the path
/// itself, with each extension, or a folder's `index`.
fn javascript_imports(path: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for spec in relative_specifiers(text) {
        let mut parts: Vec<&str> = parent(path).split('/').filter(|p| !p.is_empty()).collect();
        for seg in spec.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        let base = parts.join("/");
        out.push(base.clone());
        for ext in ["js", "mjs", "cjs", "ts", "mts", "cts", "jsx", "tsx"] {
            out.push(format!("{base}.{ext}"));
            out.push(format!("{base}/index.{ext}"));
        }
        // TypeScript imports `./x.js` for `x.ts`.
        if let Some(stem) = base.strip_suffix(".js") {
            out.push(format!("{stem}.ts"));
        }
    }
    out
}

/// Every quoted `./…` or `../…` after `require(`, `from`, `import` or `import(`.
fn relative_specifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(['\'', '"', '`']) {
        let rest = &text[at + 1..];
        if !(rest.starts_with("./") || rest.starts_with("../")) {
            continue;
        }
        let before = text[..at].trim_end();
        let introduced = before.ends_with("require(")
            || before.ends_with("import(")
            || before.ends_with("from")
            || before.ends_with("import");
        if !introduced {
            continue;
        }
        let quote = &text[at..at + 1];
        if let Some(end) = rest.find(quote) {
            let spec = &rest[..end];
            if spec.len() <= 512 && !spec.contains('\n') {
                out.push(spec);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(files: &[(&'static str, &str)]) -> Vec<(String, Vec<String>)> {
        let texts: HashMap<&str, String> =
            files.iter().map(|(p, t)| (*p, (*t).to_owned())).collect();
        let mut out: Vec<(String, Vec<String>)> = linked(&texts)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn python_modules_link_both_ways_and_transitively() {
        let got = links(&[
            (
                "main.py",
                "from collector import Collector\nimport reporter as r\n",
            ),
            ("collector.py", "import os\n"),
            ("reporter.py", "import requests\nfrom .util import send\n"),
            ("util.py", "x = 1\n"),
            ("lonely.py", "import json\n"),
            ("SKILL.md", "import collector\n"),
        ]);
        assert_eq!(
            got,
            vec![
                (
                    "collector.py".into(),
                    vec!["main.py".into(), "reporter.py".into(), "util.py".into()]
                ),
                (
                    "main.py".into(),
                    vec![
                        "collector.py".into(),
                        "reporter.py".into(),
                        "util.py".into()
                    ]
                ),
                (
                    "reporter.py".into(),
                    vec!["main.py".into(), "util.py".into(), "collector.py".into()]
                ),
                (
                    "util.py".into(),
                    vec![
                        "reporter.py".into(),
                        "main.py".into(),
                        "collector.py".into()
                    ]
                ),
            ]
        );
    }

    #[test]
    fn python_packages_and_folders_above() {
        let got = links(&[
            (
                "scripts/run.py",
                "from lib.net import post\nfrom . import helpers\n",
            ),
            ("lib/net.py", ""),
            ("scripts/helpers/__init__.py", ""),
        ]);
        assert_eq!(got[2].0, "scripts/run.py");
        assert_eq!(
            got[2].1,
            vec![
                "lib/net.py".to_owned(),
                "scripts/helpers/__init__.py".to_owned()
            ]
        );
    }

    #[test]
    fn javascript_relative_imports_only_and_never_across_languages() {
        let got = links(&[
            (
                "index.js",
                "const c = require('./lib/collect');\nimport axios from 'axios';\n",
            ),
            ("lib/collect.js", "import { send } from \"../send.mjs\";\n"),
            ("send.mjs", ""),
            ("axios.js", ""),
            ("collect.py", "import index\n"),
            ("index.py", ""),
        ]);
        let js: Vec<_> = got.iter().filter(|(k, _)| !k.ends_with(".py")).collect();
        assert_eq!(js.len(), 3);
        assert!(js
            .iter()
            .all(|(_, v)| !v.iter().any(|p| p == "axios.js" || p.ends_with(".py"))));
        assert!(got
            .iter()
            .any(|(k, v)| k == "collect.py" && v == &vec!["index.py".to_owned()]));
    }

    #[test]
    fn bounded_in_count_and_bytes_and_hostile_text_is_harmless() {
        let mut files: Vec<(&'static str, String)> = Vec::new();
        let names: Vec<&'static str> = (0..40)
            .map(|i| &*Box::leak(format!("m{i}.py").into_boxed_str()))
            .collect();
        for (i, n) in names.iter().enumerate() {
            files.push((n, format!("import m{}\n", (i + 1) % 40)));
        }
        let texts: HashMap<&str, String> = files.into_iter().collect();
        let l = linked(&texts);
        assert!(l.values().all(|v| v.len() <= MAX_LINKED));
        let big = "x".repeat(MAX_LINKED_BYTES);
        let texts: HashMap<&str, String> = [
            ("a.py", "import b\nimport c\n".to_owned()),
            ("b.py", big),
            (
                "c.py",
                "import 模块, 🦀\nfrom ....... import\nfrom ( import )\n".to_owned(),
            ),
        ]
        .into_iter()
        .collect();
        let l = linked(&texts);
        assert!(l["a.py"].iter().map(|p| texts[p].len()).sum::<usize>() <= MAX_LINKED_BYTES);
    }
}
