//! What the user can do in the window, and which key does it: one table ([`BINDINGS`])
//! that the key handler, `--help`, the UI and `--script` all read, so they cannot
//! disagree.

use winit::keyboard::{Key, NamedKey};

/// A graph optimisation the user can switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimisation {
    /// Subpass merging.
    Merge,
    /// Memoryless attachments.
    Memoryless,
    /// Transient memory aliasing.
    Alias,
    /// The async-compute queue.
    Async,
    /// Pass reordering.
    Reorder,
    /// Frames overlapping across queues.
    Overlap,
}

/// A frame feature the user can switch (or step through).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Sun shadows on/off.
    Shadows,
    /// SSAO: off -> gbuffer -> prepass.
    Ssao,
    /// Bloom: off -> hdr -> tonemap.
    Bloom,
    /// Exposure: auto <-> fixed.
    Exposure,
    /// Anti-aliasing: off -> fxaa -> taa.
    Aa,
    /// Light clustering on/off.
    Clustering,
    /// The next debug view (none -> albedo -> ... -> exposure -> none).
    DebugView,
}

/// One thing a key (or a `--script` step) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Flip an optimisation (the frame re-plans).
    Optimisation(Optimisation),
    /// Flip or step a feature (the frame re-plans).
    Feature(Feature),
    /// Every optimisation on, or off when all are on.
    AllOptimisations,
    /// Fly <-> orbit camera.
    CameraMode,
    /// Pause or resume the lights' animation.
    Pause,
    /// Show or hide the UI.
    Overlay,
    /// Write the next presented frame to a PNG.
    Screenshot,
    /// Capture the next frame with RenderDoc (`--renderdoc`).
    Capture,
    /// Recompile the shaders from `shaders/render/`.
    ReloadShaders,
    /// Write the current plan as JSON and as the viewer page.
    DumpPlan,
    /// Quit.
    Quit,
}

/// A key of the table: a character (as typed, lower case) or a named key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyName {
    /// A character key.
    Char(char),
    /// A named key.
    Named(NamedKey),
}

impl KeyName {
    /// How the key is written in the help and the UI.
    pub fn label(self) -> String {
        match self {
            KeyName::Char(c) => c.to_ascii_uppercase().to_string(),
            KeyName::Named(NamedKey::F5) => "F5".into(),
            KeyName::Named(NamedKey::F9) => "F9".into(),
            KeyName::Named(NamedKey::F12) => "F12".into(),
            KeyName::Named(NamedKey::Tab) => "Tab".into(),
            KeyName::Named(NamedKey::Space) => "Space".into(),
            KeyName::Named(NamedKey::Escape) => "Esc".into(),
            KeyName::Named(k) => format!("{k:?}"),
        }
    }

    fn matches(self, key: &Key) -> bool {
        match (self, key) {
            (KeyName::Char(c), Key::Character(s)) => {
                let mut chars = s.chars();
                chars.next().is_some_and(|k| k.eq_ignore_ascii_case(&c)) && chars.next().is_none()
            }
            (KeyName::Named(n), Key::Named(k)) => n == *k,
            // winit reports Space as a named key on most platforms, a " " on some.
            (KeyName::Named(NamedKey::Space), Key::Character(s)) => s.as_str() == " ",
            _ => false,
        }
    }
}

/// One row of the key table.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// The key.
    pub key: KeyName,
    /// What it does.
    pub action: Action,
    /// The action's name in `--script` (and the log).
    pub name: &'static str,
    /// What it does, in words.
    pub help: &'static str,
}

const fn bind(key: KeyName, action: Action, name: &'static str, help: &'static str) -> Binding {
    Binding {
        key,
        action,
        name,
        help,
    }
}

use Action as A;
use KeyName::{Char as C, Named as N};

/// Every key of the window. Movement (W/A/S/D, Q/E, mouse, wheel, Shift) is read as held
/// state, not as actions; it is listed in [`MOVEMENT_HELP`].
pub const BINDINGS: &[Binding] = &[
    bind(
        C('1'),
        A::Optimisation(Optimisation::Merge),
        "merge",
        "subpass merging on/off",
    ),
    bind(
        C('2'),
        A::Optimisation(Optimisation::Memoryless),
        "memoryless",
        "memoryless attachments on/off",
    ),
    bind(
        C('3'),
        A::Optimisation(Optimisation::Alias),
        "alias",
        "transient memory aliasing on/off",
    ),
    bind(
        C('4'),
        A::Optimisation(Optimisation::Async),
        "async",
        "async-compute queue on/off",
    ),
    bind(
        C('5'),
        A::Optimisation(Optimisation::Reorder),
        "reorder",
        "pass reordering on/off",
    ),
    bind(
        C('o'),
        A::Optimisation(Optimisation::Overlap),
        "overlap",
        "frames overlapping across queues on/off",
    ),
    bind(
        C('0'),
        A::AllOptimisations,
        "optimisations",
        "every optimisation on (or off when all are on)",
    ),
    bind(
        C('6'),
        A::Feature(Feature::Shadows),
        "shadows",
        "sun shadows on/off",
    ),
    bind(
        C('7'),
        A::Feature(Feature::Ssao),
        "ssao",
        "SSAO: off, gbuffer, prepass",
    ),
    bind(
        C('8'),
        A::Feature(Feature::Bloom),
        "bloom",
        "bloom: off, hdr, tonemap",
    ),
    bind(
        C('9'),
        A::Feature(Feature::Exposure),
        "exposure",
        "exposure: auto or fixed",
    ),
    bind(C('f'), A::Feature(Feature::Aa), "aa", "AA: off, fxaa, taa"),
    bind(
        C('l'),
        A::Feature(Feature::Clustering),
        "clustering",
        "light clustering on/off",
    ),
    bind(
        C('v'),
        A::Feature(Feature::DebugView),
        "debug-view",
        "next debug view",
    ),
    bind(C('c'), A::CameraMode, "camera", "fly / orbit camera"),
    bind(
        N(NamedKey::Space),
        A::Pause,
        "pause",
        "pause / resume the lights",
    ),
    bind(N(NamedKey::Tab), A::Overlay, "overlay", "the UI on/off"),
    bind(
        N(NamedKey::F12),
        A::Screenshot,
        "screenshot",
        "screenshot of the window to PNG",
    ),
    bind(
        N(NamedKey::F9),
        A::Capture,
        "capture",
        "RenderDoc capture of the next frame (--renderdoc)",
    ),
    bind(
        N(NamedKey::F5),
        A::ReloadShaders,
        "reload",
        "reload shaders from shaders/render/",
    ),
    bind(
        C('p'),
        A::DumpPlan,
        "plan",
        "write the plan as JSON and the viewer page",
    ),
    bind(N(NamedKey::Escape), A::Quit, "quit", "quit"),
];

/// The camera keys, for the help and the UI.
pub const MOVEMENT_HELP: &str = "fly: W/S forward/back, A/D left/right, Q/E down/up, right mouse \
button + move to look, wheel speed, Shift faster; orbit: left or right button + move to turn, \
wheel distance";

/// What fingers do on a touch screen (`touch`), for `--help`.
pub const TOUCH_HELP: &str = "touch: one finger orbits, two fingers pinch to zoom and drag to \
pan; the UI takes taps and drags that start on it (any tap shows a hidden UI)";

/// The action bound to `key`, if any.
pub fn action_for(key: &Key) -> Option<Action> {
    BINDINGS
        .iter()
        .find(|b| b.key.matches(key))
        .map(|b| b.action)
}

/// The binding of `action`.
pub fn binding(action: Action) -> &'static Binding {
    BINDINGS
        .iter()
        .find(|b| b.action == action)
        .expect("every action has a binding")
}

/// The action called `name` in `--script`.
pub fn by_name(name: &str) -> Option<Action> {
    BINDINGS.iter().find(|b| b.name == name).map(|b| b.action)
}

/// The key table for `--help`.
pub fn help() -> String {
    let mut s = String::from("Keys in the window:\n");
    for b in BINDINGS {
        s.push_str(&format!("  {:<6} {} ({})\n", b.key.label(), b.help, b.name));
    }
    s.push_str(&format!("  {MOVEMENT_HELP}\n"));
    s.push_str(&format!("  {TOUCH_HELP}\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_and_name_is_bound_once() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                assert_ne!(a.key, b.key, "{} and {}", a.name, b.name);
                assert_ne!(a.name, b.name);
                assert_ne!(a.action, b.action);
            }
        }
    }

    #[test]
    fn keys_find_their_actions_whatever_the_case() {
        assert_eq!(
            action_for(&Key::Character("1".into())),
            Some(Action::Optimisation(Optimisation::Merge))
        );
        assert_eq!(
            action_for(&Key::Character("V".into())),
            Some(Action::Feature(Feature::DebugView))
        );
        assert_eq!(
            action_for(&Key::Named(NamedKey::F12)),
            Some(Action::Screenshot)
        );
        assert_eq!(action_for(&Key::Character(" ".into())), Some(Action::Pause));
        // Movement keys are not actions.
        assert_eq!(action_for(&Key::Character("w".into())), None);
        assert_eq!(action_for(&Key::Character("12".into())), None);
    }

    #[test]
    fn the_help_lists_every_binding() {
        let h = help();
        for b in BINDINGS {
            assert!(h.contains(b.help), "{}", b.name);
            assert!(h.contains(&format!("({})", b.name)), "{}", b.name);
        }
        assert!(h.contains("W/S"));
        assert_eq!(by_name("ssao"), Some(Action::Feature(Feature::Ssao)));
        assert_eq!(by_name("nope"), None);
    }
}
