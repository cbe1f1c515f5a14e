//! `--script`: key actions (and window events) at given frames, for tests and scripted
//! demos. `FRAME:STEP[,FRAME:STEP...]`, where STEP is an action's name from the key table
//! (`merge`, `ssao`, `screenshot`, ...), optionally `=PATH` for the ones that write a file
//! (`screenshot=shot.png`, `plan=out/plan`, `capture=frame.rdc`), or one of
//! `resize=WxH` (ask the window for that size), `minimise=MS` (behave as a minimised
//! window for MS milliseconds, then restore) and `suspend=MS` (what Android's `Suspended`
//! does: drop the swapchain and the window surface, then resume with a new surface after
//! MS milliseconds), `ui=LABEL` (a mouse click on the UI's widget labelled `LABEL` as last
//! drawn, through egui's input: the checkbox `merge`, the panel title `Features`),
//! `tap=LABEL` (the same with a finger, as on a phone), `click=X,Y` (a mouse click at window
//! pixel X,Y), `drop=PATH` (the file dropped on the window, as winit reports a drop) and
//! `rotate=DEG` (0, 90, 180, 270: act as if the surface reported that `currentTransform`,
//! pre-rotating the frame into the window; docs/android.md, "Pre-rotation").
//! A click comes with the next frame's input, so what it changes shows in the frame after
//! that. A step runs after the frame of that number
//! has been presented (frames count from 1), so what it changes shows from the next frame
//! on: `59:screenshot=a.png` writes frame 60.

use super::actions::{self, Action};
use std::path::PathBuf;

/// What a step does.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A key's action, with a file path for the ones that write one.
    Action(Action, Option<PathBuf>),
    /// Ask the window for this inner size.
    Resize(u32, u32),
    /// Minimised for this many milliseconds.
    Minimise(u64),
    /// Suspended (swapchain and surface dropped, as on Android) for this many milliseconds.
    Suspend(u64),
    /// A finger's tap on the UI's widget with this label.
    Tap(String),
    /// A mouse click on the UI's widget with this label.
    Ui(String),
    /// A mouse click at this window pixel.
    Click(u32, u32),
    /// This file dropped on the window.
    Drop(PathBuf),
    /// Simulate a surface transform of this many degrees clockwise (0, 90, 180, 270).
    Rotate(u32),
}

/// The steps, in frame order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    steps: Vec<(u64, Step)>,
}

fn size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once('x')?;
    let (w, h) = (w.parse::<u32>().ok()?, h.parse::<u32>().ok()?);
    ((1..=16384).contains(&w) && (1..=16384).contains(&h)).then_some((w, h))
}

fn step(text: &str) -> Result<Step, String> {
    let (name, arg) = match text.split_once('=') {
        Some((n, a)) => (n, Some(a)),
        None => (text, None),
    };
    match (name, arg) {
        ("resize", Some(a)) => size(a)
            .map(|(w, h)| Step::Resize(w, h))
            .ok_or_else(|| format!("'{text}': expected resize=WIDTHxHEIGHT, each 1-16384")),
        ("minimise" | "suspend", Some(a)) => a
            .parse::<u64>()
            .ok()
            .filter(|ms| (1..=60_000).contains(ms))
            .map(if name == "suspend" {
                Step::Suspend
            } else {
                Step::Minimise
            })
            .ok_or_else(|| format!("'{text}': expected {name}=MILLISECONDS (1-60000)")),
        ("tap" | "ui", Some(a)) if !a.trim().is_empty() => Ok(if name == "tap" {
            Step::Tap(a.to_string())
        } else {
            Step::Ui(a.to_string())
        }),
        ("click", Some(a)) => a
            .split_once(',')
            .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)))
            .filter(|&(x, y): &(u32, u32)| x <= 16384 && y <= 16384)
            .map(|(x, y)| Step::Click(x, y))
            .ok_or_else(|| format!("'{text}': expected click=X,Y, window pixels 0-16384")),
        ("drop", Some(a)) if !a.is_empty() => Ok(Step::Drop(PathBuf::from(a))),
        ("rotate", Some(a)) => a
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|d| [0, 90, 180, 270].contains(d))
            .map(Step::Rotate)
            .ok_or_else(|| format!("'{text}': expected rotate=DEGREES (0, 90, 180 or 270)")),
        ("resize" | "minimise" | "suspend" | "tap" | "ui" | "click" | "drop" | "rotate", _) => {
            Err(format!("'{text}': {name} needs =VALUE"))
        }
        _ => {
            let action = actions::by_name(name).ok_or_else(|| {
                let names: Vec<&str> = actions::BINDINGS.iter().map(|b| b.name).collect();
                format!(
                    "'{text}': unknown step '{name}'; expected one of {}, resize=WxH, minimise=MS, suspend=MS, ui=LABEL, tap=LABEL, click=X,Y, drop=PATH, rotate=DEG",
                    names.join(", ")
                )
            })?;
            let takes_path = matches!(
                action,
                Action::Screenshot | Action::DumpPlan | Action::Capture
            );
            match arg {
                Some(_) if !takes_path => Err(format!("'{text}': {name} takes no value")),
                Some("") => Err(format!("'{text}': the path is empty")),
                a => Ok(Step::Action(action, a.map(PathBuf::from))),
            }
        }
    }
}

impl Script {
    /// Parses `FRAME:STEP,...` (the `--script` flag's value parser). A piece without a
    /// `:` continues the step before it (`3:click=10,20`).
    pub fn parse(text: &str) -> Result<Script, String> {
        let mut items: Vec<String> = Vec::new();
        for piece in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match items.last_mut() {
                Some(last) if !piece.contains(':') => {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => items.push(piece.to_string()),
            }
        }
        let mut steps = Vec::new();
        for item in &items {
            let (frame, rest) = item
                .split_once(':')
                .ok_or_else(|| format!("'{item}': expected FRAME:STEP"))?;
            let frame = frame
                .parse::<u64>()
                .ok()
                .filter(|&f| f >= 1)
                .ok_or_else(|| format!("'{item}': the frame must be a number from 1"))?;
            steps.push((frame, step(rest)?));
        }
        if steps.is_empty() {
            return Err("expected FRAME:STEP[,FRAME:STEP...]".into());
        }
        steps.sort_by_key(|(f, _)| *f);
        Ok(Script { steps })
    }

    /// The steps due after `frame` was presented (removed from the script).
    pub fn due(&mut self, frame: u64) -> Vec<Step> {
        let n = self.steps.iter().take_while(|(f, _)| *f <= frame).count();
        self.steps.drain(..n).map(|(_, s)| s).collect()
    }

    /// Whether a step captures with RenderDoc (which needs `--renderdoc`).
    pub fn captures(&self) -> bool {
        self.steps
            .iter()
            .any(|(_, s)| matches!(s, Step::Action(Action::Capture, _)))
    }

    /// Whether steps remain.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::actions::{Feature, Optimisation};

    #[test]
    fn steps_parse_sort_and_come_due() {
        let mut s = Script::parse(
            "10:screenshot=a.png, 3:merge,3:resize=200x120,5:minimise=300,4:ssao,7:suspend=250",
        )
        .unwrap();
        assert_eq!(
            s.due(3),
            vec![
                Step::Action(Action::Optimisation(Optimisation::Merge), None),
                Step::Resize(200, 120)
            ]
        );
        assert_eq!(s.due(3), vec![]);
        assert_eq!(
            s.due(5),
            vec![
                Step::Action(Action::Feature(Feature::Ssao), None),
                Step::Minimise(300)
            ]
        );
        assert_eq!(s.due(7), vec![Step::Suspend(250)]);
        let mut t = Script::parse("2:tap=merge,3:ui=Features,3:click=10,20,4:drop=a.glb").unwrap();
        assert_eq!(t.due(2), vec![Step::Tap("merge".into())]);
        assert_eq!(
            t.due(3),
            vec![Step::Ui("Features".into()), Step::Click(10, 20)]
        );
        assert_eq!(t.due(4), vec![Step::Drop("a.glb".into())]);
        let mut r = Script::parse("2:rotate=90,3:rotate=270,4:rotate=0,5:rotate=180").unwrap();
        assert_eq!(r.due(5), [90, 270, 0, 180].map(Step::Rotate).to_vec());
        assert_eq!(
            s.due(100),
            vec![Step::Action(Action::Screenshot, Some("a.png".into()))]
        );
        assert!(s.is_empty());
    }

    #[test]
    fn bad_steps_say_what_was_expected() {
        for (text, needle) in [
            ("merge", "expected FRAME:STEP"),
            ("0:merge", "from 1"),
            ("3:merg", "unknown step 'merg'"),
            ("3:resize=0x5", "resize=WIDTHxHEIGHT"),
            ("3:minimise=x", "minimise=MILLISECONDS"),
            ("3:suspend=0", "suspend=MILLISECONDS"),
            ("3:suspend", "suspend needs =VALUE"),
            ("3:tap", "tap needs =VALUE"),
            ("3:ui=", "ui needs =VALUE"),
            ("3:click=10", "click=X,Y"),
            ("3:click=a,b", "click=X,Y"),
            ("3:drop", "drop needs =VALUE"),
            ("3:rotate", "rotate needs =VALUE"),
            ("3:rotate=45", "rotate=DEGREES"),
            ("3:rotate=360", "rotate=DEGREES"),
            ("3:rotate=-90", "rotate=DEGREES"),
            ("3:rotate=x", "rotate=DEGREES"),
            ("3:merge=x", "takes no value"),
            ("3:screenshot=", "empty"),
            ("", "expected FRAME:STEP"),
        ] {
            let e = Script::parse(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
