//! The glTF values the schema lets through but a renderer cannot use: a camera with a zero
//! field of view, a spot light whose inner cone exceeds its outer one, a negative intensity.
//! Scene files refuse the same values; here they are refused naming the file, the object and
//! the field as glTF spells it, instead of drawing nonsense.

use std::f32::consts::{FRAC_PI_2, PI};
use std::path::Path;

use gltf::json::camera::Type as CameraType;
use gltf::json::extensions::scene::khr_lights_punctual::Type as LightType;
use gltf::json::validation::Checked;

use crate::SceneError;

/// Checks every camera and every `KHR_lights_punctual` light of the document, used or not.
pub(crate) fn check(json: &gltf::json::Root, path: &Path) -> Result<(), SceneError> {
    for (i, camera) in json.cameras.iter().enumerate() {
        check_camera(camera).map_err(|m| invalid(path, format!("camera {i}"), m))?;
    }
    let lights = json
        .extensions
        .as_ref()
        .and_then(|e| e.khr_lights_punctual.as_ref())
        .map_or(&[][..], |k| k.lights.as_slice());
    for (i, light) in lights.iter().enumerate() {
        check_light(light)
            .map_err(|m| invalid(path, format!("KHR_lights_punctual light {i}"), m))?;
    }
    Ok(())
}

fn invalid(path: &Path, object: String, message: String) -> SceneError {
    SceneError::Invalid {
        path: path.to_path_buf(),
        object,
        message,
    }
}

fn check_camera(camera: &gltf::json::Camera) -> Result<(), String> {
    if !matches!(camera.type_, Checked::Valid(CameraType::Perspective)) {
        // Orthographic cameras are ignored (with a warning where a node uses one).
        return Ok(());
    }
    let Some(p) = &camera.perspective else {
        return Err("is perspective but has no `perspective` object".into());
    };
    if !(p.yfov > 0.0 && p.yfov < PI) {
        return Err(format!(
            "perspective.yfov {} is not between 0 and π radians",
            p.yfov
        ));
    }
    if !(p.znear > 0.0 && p.znear.is_finite()) {
        return Err(format!("perspective.znear {} must be positive", p.znear));
    }
    if let Some(f) = p.zfar {
        if !(f > p.znear && f.is_finite()) {
            return Err(format!(
                "perspective.zfar {f} must be larger than znear {}",
                p.znear
            ));
        }
    }
    if let Some(a) = p.aspect_ratio {
        if !(a > 0.0 && a.is_finite()) {
            return Err(format!("perspective.aspectRatio {a} must be positive"));
        }
    }
    Ok(())
}

fn check_light(
    light: &gltf::json::extensions::scene::khr_lights_punctual::Light,
) -> Result<(), String> {
    if !light.color.iter().all(|c| c.is_finite() && *c >= 0.0) {
        return Err(format!(
            "color {:?} must be finite and not negative",
            light.color
        ));
    }
    if !(light.intensity >= 0.0 && light.intensity.is_finite()) {
        return Err(format!(
            "intensity {} must be a non-negative number",
            light.intensity
        ));
    }
    if let Some(r) = light.range {
        if !(r > 0.0 && r.is_finite()) {
            return Err(format!("range {r} must be positive"));
        }
    }
    if matches!(light.type_, Checked::Valid(LightType::Spot)) {
        let Some(spot) = &light.spot else {
            return Err("is a spot light but has no `spot` object".into());
        };
        let (inner, outer) = (spot.inner_cone_angle, spot.outer_cone_angle);
        if !(outer > 0.0 && outer <= FRAC_PI_2) {
            return Err(format!(
                "spot.outerConeAngle {outer} is not in (0, π/2] radians"
            ));
        }
        if !(inner >= 0.0 && inner < outer) {
            return Err(format!(
                "spot.innerConeAngle {inner} is not in [0, outerConeAngle {outer}) radians"
            ));
        }
    }
    Ok(())
}
