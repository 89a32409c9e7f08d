//! A skill's eval suite as a run needs it: `evals/evals.json` read from the skill's folder
//! (never through a linked `evals/`), each case with its input files read and its request made.

use std::path::{Path, PathBuf};

use super::cases::{self, EvalsProblem, EVALS_JSON};
use super::run::Prepared;
use super::subject::{self, ReadError};

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("'{}' is not a valid eval set: {problem}", path.display())]
    Invalid {
        path: PathBuf,
        problem: EvalsProblem,
    },
    #[error("'{}' has no cases", path.display())]
    NoCases { path: PathBuf },
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// The cases of the skill at `dir`, ready to run; `None` when it has no evals.json. `shown`
/// turns a path into what messages say (relative to where the person is).
pub fn load(
    dir: &Path,
    shown: &dyn Fn(&Path) -> PathBuf,
) -> Result<Option<Vec<Prepared>>, SuiteError> {
    let path = dir.join(EVALS_JSON);
    let bytes =
        match subject::no_link_below(dir, EVALS_JSON).and_then(|()| crate::fsutil::read(&path)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ReadError { path, source }.into()),
        };
    let set = cases::parse(&bytes).map_err(|problem| SuiteError::Invalid {
        path: shown(&path),
        problem,
    })?;
    if set.cases.is_empty() {
        return Err(SuiteError::NoCases { path: shown(&path) });
    }
    let prepared = set
        .cases
        .iter()
        .map(|case| {
            let inputs = subject::inputs(dir, &case.files)?;
            Ok(Prepared {
                case: case.clone(),
                request: subject::request(&case.prompt, &inputs),
                inputs,
            })
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    Ok(Some(prepared))
}
