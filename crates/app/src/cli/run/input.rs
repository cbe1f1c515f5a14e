//! Held keys, mouse and fingers: the user's input between two frames.

use super::touch::Touches;
use tessera_render::camera::CameraInput;
use winit::keyboard::KeyCode;

/// Held movement keys and mouse state, turned into a [`CameraInput`] each frame.
#[derive(Debug, Default)]
pub struct Input {
    pub keys: std::collections::HashSet<KeyCode>,
    pub look_button: bool,
    pub orbit_button: bool,
    pub cursor: Option<(f64, f64)>,
    pub look: (f32, f32),
    pub wheel: f32,
    /// The fingers on a touch screen (Android): orbit, pinch zoom, pan and taps.
    pub touches: Touches,
}

impl Input {
    fn axis(&self, plus: KeyCode, minus: KeyCode) -> f32 {
        f32::from(u8::from(self.keys.contains(&plus)))
            - f32::from(u8::from(self.keys.contains(&minus)))
    }

    /// This frame's input; the mouse motion and wheel are consumed.
    pub fn take(&mut self) -> CameraInput {
        CameraInput {
            forward: self.axis(KeyCode::KeyW, KeyCode::KeyS),
            right: self.axis(KeyCode::KeyD, KeyCode::KeyA),
            up: self.axis(KeyCode::KeyE, KeyCode::KeyQ),
            look: std::mem::take(&mut self.look),
            wheel: std::mem::take(&mut self.wheel),
            fast: self.keys.contains(&KeyCode::ShiftLeft)
                || self.keys.contains(&KeyCode::ShiftRight),
            ..CameraInput::default()
        }
    }

    /// Forgets held keys and fingers: their releases will never arrive (the window lost
    /// focus, or the app was suspended).
    pub fn release_all(&mut self) {
        self.keys.clear();
        self.touches.clear();
    }
}
