//! Rules that need structure rather than lines: the code a file holds (scripts by extension,
//! shebang or content; every fenced block of Markdown) parsed into syntax trees, and the prose
//! of Markdown read as sentences. Each analysis returns hits naming an [`Matcher::Analysis`]
//! rule of the registry and a byte range of the original file, so findings point at the right
//! file, line and column wherever the code sat.
//!
//! [`Matcher::Analysis`]: super::rule::Matcher::Analysis

mod depconf;
pub mod imports;
mod javascript;
pub(crate) mod parse;
mod powershell;
pub mod prose;
mod python;
pub mod regions;
pub mod secrets;
pub mod shell;
pub mod taint;
pub mod typosquat;

use super::rule::Rule;
use super::rules::supply_chain::SUP021;
use regions::{Lang, Region};

/// One match of an analysis rule.
#[derive(Debug, Clone)]
pub struct Hit {
    pub rule: &'static Rule,
    /// Byte range in the original file.
    pub start: usize,
    pub end: usize,
}

/// What the scan knows of the file being analysed.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// Relative to the skill, `/`-separated.
    pub path: &'a str,
    pub text: &'a str,
    /// A Markdown document (by extension).
    pub markdown: bool,
    /// The language an interpreter runs the whole file in, when a run instruction or a link
    /// says so (`bash references/notes.md`): the file is parsed whole in it, whatever its name.
    pub lang: Option<regions::Lang>,
    /// The skill's modules this file imports or is imported by, itself among them
    /// ([`imports::linked`]): a Python or JavaScript file is also analysed as one program with
    /// them.
    pub linked: imports::Linked<'a>,
}

/// Bytes of code parsed per file, whatever it holds: past it the rest of the file is left to
/// the line rules, so a parser's error recovery (slow on text that is not code) cannot stall a
/// hook. Parsing runs at 1-5 MB/s.
pub const MAX_PARSED_BYTES: usize = 1 << 20;

/// Runs every analysis that applies to the file.
pub fn analyze(input: &Input<'_>) -> Vec<Hit> {
    parse::with_file_deadline(|| analyze_file(input))
}

fn analyze_file(input: &Input<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    let mut budget = MAX_PARSED_BYTES;
    // A file's shell code runs in one shell: its blocks share variables and files.
    let mut shell = shell::Session::default();
    for region in regions::code_regions(input) {
        if region.text.len() > budget {
            break;
        }
        budget -= region.text.len();
        analyze_region(&region, &mut shell, &mut hits);
        // Not Markdown: the one region is the whole file.
        let group = input.linked.modules;
        if !input.markdown && group.len() > 1 {
            let others: usize = group.iter().map(|t| t.len()).sum::<usize>()
                - group.get(input.linked.own).map_or(0, |t| t.len());
            if others <= budget {
                budget -= others;
                let analyze: Option<fn(&str, &mut Vec<Hit>)> = match region.lang {
                    Lang::Python => Some(python::analyze),
                    Lang::JavaScript => Some(javascript::analyze),
                    _ => None,
                };
                if let Some(analyze) = analyze {
                    with_linked(input.linked, region.lang, &region.text, analyze, &mut hits);
                }
            }
        }
    }
    if input.markdown {
        prose::analyze(input.text, &mut hits);
        depconf::analyze(input.text, &mut hits);
    }
    if input.path == "SKILL.md" {
        if let Some((at, name)) = typosquat::front_matter_name(input.text) {
            if let Some(m) = typosquat::misspelling(name) {
                hits.push(Hit {
                    rule: &SUP021,
                    start: at + m.start,
                    end: at + m.end,
                });
            }
        }
    }
    hits
}

/// The hits `analyze` finds in `own` when it is analysed in one program with the modules it is
/// linked with: their functions, classes and what they return or send are then known where
/// `own` calls them, and `own`'s calls reach their parameters. Every module of a group gets
/// the same program, analysed once per run ([`imports::program_hits`]); each keeps the hits
/// in its own part (the others report theirs).
fn with_linked(
    linked: imports::Linked<'_>,
    lang: Lang,
    own: &str,
    analyze: fn(&str, &mut Vec<Hit>),
    hits: &mut Vec<Hit>,
) {
    // Python needs a module's statements to start a line; JavaScript, a statement left open
    // closed.
    let separator = if lang == Lang::Python {
        "\n\n"
    } else {
        "\n;\n"
    };
    let mut program = String::new();
    let mut at = 0;
    for (i, module) in linked.modules.iter().enumerate() {
        if i == linked.own {
            at = program.len();
            program.push_str(own);
        } else {
            program.push_str(module);
        }
        program.push_str(separator);
    }
    let found = imports::program_hits(&program, analyze);
    let end = at + own.len();
    for h in found.iter() {
        if h.start >= at
            && h.end <= end
            && !hits
                .iter()
                .any(|k| k.start == h.start - at && k.rule.id == h.rule.id)
        {
            hits.push(Hit {
                start: h.start - at,
                end: h.end - at,
                ..h.clone()
            });
        }
    }
}

fn analyze_region(region: &Region, shell: &mut shell::Session, hits: &mut Vec<Hit>) {
    let mut local = Vec::new();
    match region.lang {
        Lang::Shell => shell.analyze(&region.text, &mut local),
        Lang::Python => python::analyze(&region.text, &mut local),
        Lang::JavaScript => javascript::analyze(&region.text, &mut local),
        Lang::PowerShell => powershell::analyze(&region.text, &mut local),
    }
    hits.extend(local.drain(..).map(|h: Hit| Hit {
        start: region.original(h.start),
        end: region.original(h.end.max(h.start)),
        ..h
    }));
}
