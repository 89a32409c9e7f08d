//! Feedback signals: the store, recording, listing.

use super::{Advice, Advise, Kind};
use crate::ops::record::RecordError;
use crate::ops::signals::SignalsError;
use crate::signal::input::InputError;
use crate::signal::store::StoreError;
use crate::signal::HashError;

impl Advise for StoreError {
    fn advice(&self) -> Advice {
        match self {
            StoreError::Link { .. } => {
                Advice::user("replace the link with a real directory or file")
            }
            StoreError::Invalid { .. } => Advice::user("nothing was recorded"),
            StoreError::Special { .. } => Advice::user(
                "replace it with a regular file (copy its content, not a link): git skill reads and writes nothing else",
            ),
            StoreError::Read { .. } | StoreError::Write { .. } => Advice::new(
                Kind::Internal,
                "check the file's permissions and the free space",
            ),
        }
    }
}

impl Advise for HashError {
    fn advice(&self) -> Advice {
        Advice::user(match self {
            HashError::NotAFile { .. } => "replace the link with the file itself",
            HashError::Read { .. } => "check the file's permissions",
        })
    }
}

impl Advise for InputError {
    fn advice(&self) -> Advice {
        Advice::user(
            "give one JSON object, JSON lines, or an array of objects; see git skill record --help",
        )
    }
}

impl Advise for SignalsError {
    fn advice(&self) -> Advice {
        match self {
            SignalsError::Store(e) => e.advice(),
            SignalsError::Hash(e) => e.advice(),
            SignalsError::Deleted { .. } => Advice::user("list its signals without --selected"),
        }
    }
}

impl Advise for RecordError {
    fn advice(&self) -> Advice {
        match self {
            RecordError::Hash(e) => e.advice(),
            RecordError::Store(e) => e.advice(),
            // The schema's own hint is for one object; a refused signal records nothing at all.
            RecordError::Invalid { .. } => Advice::user("nothing was recorded"),
        }
    }
}
