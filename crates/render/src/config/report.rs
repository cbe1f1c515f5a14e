//! Errors as the configuration's messages write them: `FILE:LINE:COLUMN: ...`, naming the
//! section, the key and what is allowed.

use super::*;
use std::ops::Range;
use toml::de::{DeTable, DeValue};

/// The file being read: its text and name.
pub(super) struct Cx<'a> {
    pub text: &'a str,
    pub file: &'a str,
}

impl Cx<'_> {
    /// An error at byte `offset`.
    pub fn err(&self, offset: usize, message: String) -> ConfigError {
        ConfigError {
            file: self.file.into(),
            at: Some(tessera_fsio::line_column(self.text, offset)),
            message,
        }
    }

    /// The source text of a value, on one line and cut short.
    pub fn source(&self, span: Range<usize>) -> String {
        let raw = self.text.get(span).unwrap_or("?");
        let one: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > 40 {
            one.chars().take(37).collect::<String>() + "..."
        } else {
            one
        }
    }

    /// `[section] key = value: expected ...`, at the value.
    pub fn bad(&self, section: &str, key: &str, span: Range<usize>, expected: &str) -> ConfigError {
        self.err(
            span.start,
            format!(
                "[{section}] {key} = {}: expected {expected}",
                self.source(span)
            ),
        )
    }

    /// A TOML syntax error.
    pub fn syntax(&self, e: &toml::de::Error) -> ConfigError {
        let at = e.span().map_or(0, |s| s.start);
        let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
        self.err(at, format!("invalid TOML: {message}"))
    }
}

/// The keys of a section, `None` for a name that is not one.
pub(super) fn section_keys(section: &str) -> Option<&'static [&'static str]> {
    Some(match section {
        "render" => RENDER_KEYS,
        "window" => WINDOW_KEYS,
        "camera" => CAMERA_KEYS,
        "features" | "mobile" => FEATURE_KEYS,
        "graph" => GRAPH_KEYS,
        _ => return None,
    })
}

/// A key as shown in a message: itself when plain, else quoted and cut short.
pub(super) fn shown(key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        key.to_string()
    } else {
        let short: String = key.chars().take(40).collect();
        format!("{short:?}")
    }
}

pub(super) type Entry<'a, 'i> = (
    &'a Spanned<toml::de::DeString<'i>>,
    &'a Spanned<DeValue<'i>>,
);

/// A table's entries in file order.
pub(super) fn sorted<'a, 'i>(table: &'a DeTable<'i>) -> Vec<Entry<'a, 'i>> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}
