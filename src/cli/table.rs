//! Plain aligned tables for listings: a bold header, columns padded to their widest cell, the
//! last column left ragged, and rows that need attention highlighted on a terminal.

use std::io::{self, Write};

use git_skill::report::style::Style;

pub struct Table {
    header: Vec<&'static str>,
    rows: Vec<(Vec<String>, bool)>,
}

impl Table {
    pub fn new(header: &[&'static str]) -> Table {
        Table {
            header: header.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; control characters in cells are escaped, so a hostile text cannot move the
    /// cursor or fake a line.
    pub fn row(&mut self, cells: Vec<String>, highlight: bool) {
        let cells = cells
            .into_iter()
            .map(|c| git_skill::report::escape(&c).into_owned())
            .collect();
        self.rows.push((cells, highlight));
    }

    pub fn write(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for (cells, _) in &self.rows {
            for (w, cell) in widths.iter_mut().zip(cells) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
            let mut s = String::new();
            let cells: Vec<&str> = cells.collect();
            for (i, cell) in cells.iter().enumerate() {
                if i + 1 == cells.len() {
                    s.push_str(cell);
                } else {
                    let pad = widths[i].saturating_sub(cell.chars().count());
                    s.push_str(cell);
                    s.push_str(&" ".repeat(pad + 2));
                }
            }
            s.trim_end().to_owned()
        };
        writeln!(
            out,
            "{}",
            style.bold(&line(&mut self.header.iter().copied()))
        )?;
        for (cells, highlight) in &self.rows {
            let text = line(&mut cells.iter().map(String::as_str));
            if *highlight {
                writeln!(out, "{}", style.yellow(&text))?;
            } else {
                writeln!(out, "{text}")?;
            }
        }
        Ok(())
    }
}
