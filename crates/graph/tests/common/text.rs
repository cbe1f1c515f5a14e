//! Frame-file text: valid frames written as JSON or TOML, and mangled text (random edits of
//! valid text, and arbitrary strings) for the parser's never-panic property.

use super::devices::capabilities;
use super::graphs::valid_graph;
use proptest::prelude::*;
use tessera_graph::frame_file::{FrameFile, Syntax};
use tessera_graph::graph::Graph;
use tessera_graph::Capabilities;

/// The frame file that describes `graph` on `caps` (every device field spelled out).
pub fn frame_file_of(graph: &Graph, caps: &Capabilities) -> FrameFile {
    FrameFile::describe(graph, caps)
}

/// `file` as text in `syntax`.
pub fn write(file: &FrameFile, syntax: Syntax) -> String {
    match syntax {
        Syntax::Json => serde_json::to_string_pretty(file).expect("frame files serialize to JSON"),
        Syntax::Toml => toml::to_string(file).expect("frame files serialize to TOML"),
    }
}

fn syntax() -> impl Strategy<Value = Syntax> {
    prop_oneof![Just(Syntax::Json), Just(Syntax::Toml)]
}

/// A valid graph, its device, and the frame text describing them.
pub fn frame_text() -> impl Strategy<Value = (Graph, Capabilities, String, Syntax)> {
    (valid_graph(), capabilities(), syntax()).prop_map(|(g, c, s)| {
        let text = write(&frame_file_of(&g, &c), s);
        (g, c, text, s)
    })
}

/// Characters that matter to the two syntaxes, and a few that do not belong anywhere.
const NOISE: &[char] = &[
    '{',
    '}',
    '[',
    ']',
    '"',
    '\'',
    ',',
    ':',
    '=',
    '\n',
    ' ',
    '.',
    '-',
    '0',
    '9',
    'e',
    '#',
    '\\',
    't',
    '\u{0}',
    'é',
    '\u{10FFFF}',
];

/// One edit of a text: where, what, and which noise character.
#[derive(Clone, Debug)]
struct Edit {
    at: u32,
    op: u8,
    noise: u8,
    len: u8,
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let at = e.at as usize % (chars.len() + 1);
        let c = NOISE[e.noise as usize % NOISE.len()];
        match e.op % 5 {
            0 => chars.insert(at, c),
            1 if at < chars.len() => {
                let end = (at + 1 + e.len as usize % 8).min(chars.len());
                chars.drain(at..end);
            }
            2 if at < chars.len() => chars[at] = c,
            3 => chars.truncate(at),
            _ => {
                // Duplicate a slice (repeats keys, entries and brackets).
                let end = (at + 1 + e.len as usize).min(chars.len());
                let slice: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, slice);
            }
        }
    }
    chars.into_iter().collect()
}

/// Valid frame text with 1–6 random edits, or an arbitrary string; with its syntax.
pub fn mangled_frame_text() -> impl Strategy<Value = (String, Syntax)> {
    let edit = (any::<u32>(), any::<u8>(), any::<u8>(), any::<u8>())
        .prop_map(|(at, op, noise, len)| Edit { at, op, noise, len });
    let edited = (frame_text(), prop::collection::vec(edit, 1..=6))
        .prop_map(|((_, _, text, s), edits)| (apply(&text, &edits), s));
    let arbitrary = (".{0,200}", syntax());
    prop_oneof![4 => edited, 1 => arbitrary]
}
