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
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

/// A file's group of linked modules (see [`linked`]) as the analysis gets it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Linked<'a> {
    /// The texts of the group's modules, in path order; empty when the file is linked to none.
    pub modules: &'a [&'a str],
    /// Which of them is the file analysed.
    pub own: usize,
}

/// Modules analysed together, the file among them.
pub const MAX_LINKED: usize = 16;
/// Bytes of linked modules analysed with a file.
pub const MAX_LINKED_BYTES: usize = 512 << 10;

/// For each Python or JavaScript file of `texts` (paths relative to the skill) linked by
/// imports to others, its group: the modules its imports reach or that reach it, transitively,
/// itself included, in path order. Every file of a group within [`MAX_LINKED`] modules and
/// [`MAX_LINKED_BYTES`] gets the same group, so the group is analysed once; past the bounds a
/// file gets the modules nearest it (a module too large to fit is left out).
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
        let mut group = vec![start];
        let mut bytes = texts[start].len();
        'walk: while let Some(at) = queue.pop_front() {
            for &next in edges.get(at).into_iter().flatten() {
                if !seen.insert(next) {
                    continue;
                }
                if group.len() == MAX_LINKED {
                    break 'walk;
                }
                let size = texts[next].len();
                if bytes + size > MAX_LINKED_BYTES {
                    continue;
                }
                bytes += size;
                group.push(next);
                queue.push_back(next);
            }
        }
        if group.len() > 1 {
            group.sort_unstable();
            out.insert(start, group);
        }
    }
    out
}

/// Programs analysed in this run, by digest: each module of a group asks for the same one.
const MAX_PROGRAMS: usize = 64;

type Programs = Mutex<HashMap<[u8; 32], Arc<[super::Hit]>>>;

/// The hits `analyze` finds in `program`, analysed once per run however many modules ask.
pub fn program_hits(program: &str, analyze: fn(&str, &mut Vec<super::Hit>)) -> Arc<[super::Hit]> {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    let programs = PROGRAMS.get_or_init(Default::default);
    let key: [u8; 32] = Sha256::digest(program.as_bytes()).into();
    if let Some(found) = programs.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return found.clone();
    }
    let mut found = Vec::new();
    analyze(program, &mut found);
    let found: Arc<[super::Hit]> = found.into();
    // Two threads may analyse one program at once: both get the same hits.
    let mut table = programs.lock().unwrap_or_else(|e| e.into_inner());
    if table.len() >= MAX_PROGRAMS {
        table.clear();
    }
    table.insert(key, found.clone());
    found
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
        let group: Vec<String> = ["collector.py", "main.py", "reporter.py", "util.py"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            got,
            group
                .iter()
                .map(|p| (p.clone(), group.clone()))
                .collect::<Vec<_>>()
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
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[2].1,
            [
                "lib/net.py",
                "scripts/helpers/__init__.py",
                "scripts/run.py"
            ]
            .map(String::from)
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
            .all(|(_, v)| v == &["index.js", "lib/collect.js", "send.mjs"].map(String::from)));
        assert!(got
            .iter()
            .any(|(k, v)| k == "collect.py" && v == &["collect.py", "index.py"].map(String::from)));
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
        assert_eq!(l.len(), 40);
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
        assert_eq!(l["a.py"], ["a.py", "c.py"]);
    }
}
