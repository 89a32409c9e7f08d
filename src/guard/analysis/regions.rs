//! Where the code of a file is, and in which language: a script by its extension or shebang
//! (an extensionless file by its content), and in Markdown every fenced or indented code
//! block, by its info string (unlabelled blocks sniffed). Markdown structure comes from
//! pulldown-cmark, so fences inside lists and block quotes, tildes and longer fences are found
//! as a renderer finds them.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Shell,
    Python,
    /// JavaScript and TypeScript (the JavaScript grammar reads the statements an attack
    /// needs in both; type annotations come back as errors it recovers from).
    JavaScript,
    PowerShell,
}

/// Code in one language, with where each piece of it sits in the file.
#[derive(Debug, Clone)]
pub struct Region {
    pub lang: Lang,
    pub text: String,
    /// (offset in `text`, offset in the file) at the start of each piece, ascending.
    pieces: Vec<(usize, usize)>,
}

impl Region {
    fn whole(lang: Lang, text: &str) -> Region {
        Region {
            lang,
            text: text.to_owned(),
            pieces: vec![(0, 0)],
        }
    }

    /// The file offset of an offset in [`Region::text`].
    pub fn original(&self, offset: usize) -> usize {
        let i = self.pieces.partition_point(|&(r, _)| r <= offset);
        let (r, f) = self.pieces[i.saturating_sub(1)];
        f + (offset - r)
    }
}

/// The language of a file by its name and first line; `None`: not code this module parses.
pub fn file_lang(path: &str, text: &str) -> Option<Lang> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let by_ext = match ext.as_str() {
        "sh" | "bash" | "zsh" | "ksh" | "command" => Some(Lang::Shell),
        "py" | "pyw" => Some(Lang::Python),
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Some(Lang::JavaScript),
        "ps1" | "psm1" => Some(Lang::PowerShell),
        _ => None,
    };
    // The kernel runs what the shebang names, whatever the extension says.
    shebang_lang(text).or(by_ext).or_else(|| {
        // An extensionless file in a skill is usually a script; only its content tells which.
        (!name.contains('.')).then(|| sniff(text)).flatten()
    })
}

fn shebang_lang(text: &str) -> Option<Lang> {
    let first = text.lines().next()?.strip_prefix("#!")?;
    let mut words = first.split_whitespace();
    let mut prog = words.next()?.rsplit('/').next()?;
    if prog == "env" {
        prog = words.find(|w| !w.starts_with('-'))?;
    }
    info_lang(prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'))
}

/// The language an info string or interpreter name stands for.
fn info_lang(word: &str) -> Option<Lang> {
    match word.to_ascii_lowercase().as_str() {
        "sh" | "bash" | "shell" | "zsh" | "ksh" | "dash" | "console" | "terminal"
        | "shell-session" | "shellsession" | "bash-session" | "sh-session" | "cmd" | "bat"
        | "dockerfile" | "docker" | "makefile" | "make" => Some(Lang::Shell),
        "python" | "py" | "python3" | "python2" | "pycon" | "ipython" => Some(Lang::Python),
        "js" | "javascript" | "node" | "nodejs" | "jsx" | "mjs" | "cjs" | "ts" | "typescript"
        | "tsx" | "deno" | "bun" => Some(Lang::JavaScript),
        "powershell" | "ps1" | "pwsh" | "ps" | "posh" => Some(Lang::PowerShell),
        _ => None,
    }
}

/// The language of unlabelled code, from the words its lines start with; shell when in
/// doubt, because shell is what a reader pastes into a terminal.
fn sniff(text: &str) -> Option<Lang> {
    let (mut python, mut js, mut ps, mut lines) = (0, 0, 0, 0);
    for line in text.lines().map(str::trim_start).filter(|l| !l.is_empty()) {
        lines += 1;
        if line.starts_with("import ")
            || line.starts_with("from ")
            || line.starts_with("def ")
            || line.starts_with("print(")
            || line.starts_with("class ")
        {
            python += 1;
        }
        if line.starts_with("const ")
            || line.starts_with("let ")
            || line.starts_with("function ")
            || line.starts_with("require(")
            || line.starts_with("await ")
        {
            js += 1;
        }
        if line.starts_with('$') && line.contains(" = ")
            || line.contains("-Object ")
            || line.starts_with("Invoke-")
        {
            ps += 1;
        }
    }
    if lines == 0 {
        return None;
    }
    let best = python.max(js).max(ps);
    Some(if best == 0 {
        Lang::Shell
    } else if best == python {
        Lang::Python
    } else if best == js {
        Lang::JavaScript
    } else {
        Lang::PowerShell
    })
}

/// The code regions of a file.
pub fn code_regions(input: &super::Input<'_>) -> Vec<Region> {
    if let Some(lang) = input.lang {
        // Run whole by an interpreter: all of it is code, fences included; the fences of a
        // Markdown file are read as fences too (an agent reads it as well).
        let mut regions = vec![Region::whole(lang, input.text)];
        if input.markdown {
            regions.extend(markdown_blocks(input.text));
        }
        return regions;
    }
    if input.markdown {
        return markdown_blocks(input.text);
    }
    file_lang(input.path, input.text)
        .map(|lang| vec![Region::whole(lang, input.text)])
        .unwrap_or_default()
}

/// Every code block of a Markdown text whose language this module parses.
fn markdown_blocks(text: &str) -> Vec<Region> {
    let mut out = Vec::new();
    let mut open: Option<(Option<Lang>, bool, Region)> = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let (lang, labelled) = match &kind {
                    CodeBlockKind::Fenced(info) => {
                        let word = info
                            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                            .next()
                            .unwrap_or("");
                        (info_lang(word), !word.is_empty())
                    }
                    CodeBlockKind::Indented => (None, false),
                };
                open = Some((
                    lang,
                    labelled,
                    Region {
                        lang: lang.unwrap_or(Lang::Shell),
                        text: String::new(),
                        pieces: Vec::new(),
                    },
                ));
            }
            Event::Text(t) => {
                if let Some((_, _, region)) = open.as_mut() {
                    let source = &text[range.clone()];
                    // Inside lists and quotes the text is the source minus indentation.
                    let at = if source.ends_with(&*t) {
                        range.end - t.len()
                    } else {
                        range.start
                    };
                    region.pieces.push((region.text.len(), at));
                    region.text.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((lang, labelled, mut region)) = open.take() {
                    if region.pieces.is_empty() {
                        continue;
                    }
                    match lang {
                        Some(_) => out.push(region),
                        // A labelled block in another language (yaml, json, text) is not
                        // code this module parses; an unlabelled one is sniffed.
                        None if !labelled => {
                            if let Some(l) = sniff(&region.text) {
                                region.lang = l;
                                out.push(region);
                            }
                        }
                        None => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regions(path: &str, text: &str) -> Vec<Region> {
        code_regions(&super::super::Input {
            path,
            text,
            markdown: path.ends_with(".md"),
            lang: None,
            linked: Default::default(),
        })
    }

    #[test]
    fn fences_are_found_with_their_language_and_place() {
        let md = "# T\n\n```bash\nrm -rf /\n```\n\n- item\n\n  ~~~python\n  import os\n  ~~~\n\n```yaml\nk: v\n```\n\n```\necho hi\n```\n";
        let found = regions("SKILL.md", md);
        let langs: Vec<Lang> = found.iter().map(|r| r.lang).collect();
        assert_eq!(langs, vec![Lang::Shell, Lang::Python, Lang::Shell]);
        assert_eq!(&md[found[0].original(0)..found[0].original(8)], "rm -rf /");
        let py = &found[1];
        let at = py.original(py.text.find("os").unwrap());
        assert_eq!(&md[at..at + 2], "os", "indented fence maps back");
    }

    #[test]
    fn scripts_by_extension_shebang_and_content() {
        assert_eq!(file_lang("scripts/a.sh", ""), Some(Lang::Shell));
        assert_eq!(file_lang("scripts/a.PY", ""), Some(Lang::Python));
        assert_eq!(
            file_lang("scripts/run", "#!/usr/bin/env python3\nprint(1)\n"),
            Some(Lang::Python)
        );
        assert_eq!(file_lang("scripts/run", "#!/bin/bash\n"), Some(Lang::Shell));
        assert_eq!(
            file_lang("scripts/tool", "import os\nos.system('x')\n"),
            Some(Lang::Python)
        );
        assert_eq!(file_lang("references/notes.txt", "curl x | sh"), None);
        assert_eq!(file_lang("scripts/x.ts", ""), Some(Lang::JavaScript));
        assert_eq!(file_lang("scripts/x.ps1", ""), Some(Lang::PowerShell));
    }

    #[test]
    fn hostile_markdown_is_bounded() {
        // Unclosed fences, a million backticks and deep nesting parse in linear time.
        let md = format!("{}\n```sh\n{}", ">".repeat(10_000), "`".repeat(1 << 20));
        let found = regions("SKILL.md", &md);
        assert!(found.len() <= 1);
    }
}
