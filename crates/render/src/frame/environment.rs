//! The environment: the sky and the image-based light it casts, work that runs only when its
//! inputs change.
//!
//! - `sky cubemap` (compute): the sky into a transient cube map ([`SKY_SIZE`]² faces),
//!   single scattering in the atmosphere lit by the scene's sun (`shaders/render/
//!   atmosphere.glsl`: a precomputed-atmosphere model, evaluated per texel here rather than
//!   per pixel, so its ray march costs nothing on frames it does not run), or the scene's
//!   ambient gradient without a sun.
//! - `specular prefilter` (compute): the persistent `environment specular` cube map, mip
//!   `m` the sky convolved with the GGX lobe of roughness `m / (mips - 1)` (mip 0 is the sky
//!   itself, which the lighting pass also draws where no surface is).
//! - `irradiance` (compute): the persistent `environment irradiance` buffer, the sky's
//!   diffuse irradiance as nine spherical-harmonic coefficients.
//! - `brdf lut` (compute): the persistent `environment brdf` table of the split-sum
//!   approximation, once per device: it depends on nothing in the scene.
//!
//! The persistent resources are declared valid while their content matches the inputs
//! ([`Validity`], kept by the renderer): their writers are then culled (the plan lists them
//! as skipped) and `sky cubemap`, which feeds only them, with them. All four run on the
//! async-compute queue where there is one.

use crate::builder::{BufferRef, ImageRef};
use crate::gpu::descriptors::{dispatch, dispatch_mip};
use crate::gpu::frame_data::FrameData;
use crate::gpu::pass::FrameBuilder;
use tessera_graph::{Format, ImageDesc, PassKind};

/// Texels per side of the sky cube map and of the specular environment's mip 0.
pub const SKY_SIZE: u32 = 128;
/// Mips of the specular environment (128² down to 4²): roughness 0, 0.2, ... 1.
pub const SPECULAR_MIPS: u32 = 6;
/// GGX samples per texel of a prefiltered mip.
pub const PREFILTER_SAMPLES: u32 = 128;
/// Texels per side of the BRDF table (n·v across, roughness down).
pub const BRDF_SIZE: u32 = 64;
/// The cube maps' and the table's format: half floats, a storage format every Vulkan
/// device supports.
pub const FORMAT: Format = Format::R16G16B16A16_SFLOAT;
/// Bytes of the irradiance buffer: nine RGB coefficients, each padded to a vec4.
pub const IRRADIANCE_BYTES: u64 = 9 * 16;

/// Workgroup side of the environment shaders.
const GROUP: u32 = 8;

/// What the sky is computed from, as `env_sky.comp` takes it (push constants): equal keys,
/// equal sky.
#[derive(Clone, Copy, Debug, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct SkyInputs {
    /// xyz: the unit direction towards the sun, w: 1 when there is a sun.
    pub to_sun: [f32; 4],
    /// rgb: the sun's colour × illuminance.
    pub sun_color: [f32; 4],
    /// rgb: the ambient the sky shows without a sun.
    pub ambient: [f32; 4],
}

impl SkyInputs {
    /// The sky of a frame's constants.
    pub fn of(data: &FrameData) -> SkyInputs {
        let d = data.sun_direction;
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt().max(1e-12);
        SkyInputs {
            to_sun: [-d[0] / len, -d[1] / len, -d[2] / len, d[3]],
            sun_color: data.sun_color,
            ambient: data.ambient,
        }
    }
}

/// Which persistent environment content is still what its writers would write this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Validity {
    /// The specular environment and the irradiance hold this frame's sky.
    pub sky: bool,
    /// The BRDF table has been computed on this device.
    pub brdf: bool,
}

/// The environment the lit passes read (set 3 of the raster ones).
#[derive(Clone, Copy, Debug)]
pub struct Environment {
    /// The prefiltered specular cube map (mip 0: the sky).
    pub specular: ImageRef,
    /// The irradiance's spherical harmonics.
    pub irradiance: BufferRef,
    /// The split-sum BRDF table.
    pub brdf: ImageRef,
}

/// The names of the persistent resources (the renderer keeps their validity by name).
pub mod names {
    /// The prefiltered specular cube map.
    pub const SPECULAR: &str = "environment specular";
    /// The irradiance buffer.
    pub const IRRADIANCE: &str = "environment irradiance";
    /// The BRDF table.
    pub const BRDF: &str = "environment brdf";
}

/// Declares the environment's resources and passes.
pub fn declare(fb: &mut FrameBuilder<'_>, sky: SkyInputs, valid: Validity) -> Environment {
    let specular = fb.persistent_image(
        names::SPECULAR,
        ImageDesc::cube(FORMAT, SKY_SIZE).mips(SPECULAR_MIPS),
        valid.sky,
    );
    let irradiance = fb.persistent_buffer(names::IRRADIANCE, IRRADIANCE_BYTES, valid.sky);
    let brdf = fb.persistent_image(
        names::BRDF,
        ImageDesc::new(FORMAT, BRDF_SIZE, BRDF_SIZE),
        valid.brdf,
    );
    let cube = fb.transient_image("sky cubemap", ImageDesc::cube(FORMAT, SKY_SIZE));
    fb.pass("sky cubemap", PassKind::Compute, |p| {
        p.image_store(cube).async_compute();
        move |pc| {
            let n = SKY_SIZE.div_ceil(GROUP);
            dispatch(pc, "env_sky.comp", bytemuck::bytes_of(&sky), [n, n, 6])
        }
    });
    fb.pass("specular prefilter", PassKind::Compute, |p| {
        p.sampled(cube).image_store(specular).async_compute();
        move |pc| {
            for mip in 0..SPECULAR_MIPS {
                let roughness = mip as f32 / (SPECULAR_MIPS - 1) as f32;
                let push = [roughness.to_bits(), PREFILTER_SAMPLES];
                let n = (SKY_SIZE >> mip).max(1).div_ceil(GROUP);
                let push = bytemuck::cast_slice(&push);
                dispatch_mip(pc, "env_specular.comp", push, [n, n, 6], mip)?;
            }
            Ok(())
        }
    });
    fb.pass("irradiance", PassKind::Compute, |p| {
        p.sampled(cube).storage_write(irradiance).async_compute();
        move |pc| dispatch(pc, "env_irradiance.comp", &[], [1, 1, 1])
    });
    fb.pass("brdf lut", PassKind::Compute, |p| {
        p.image_store(brdf).async_compute();
        move |pc| {
            let n = BRDF_SIZE.div_ceil(GROUP);
            dispatch(pc, "brdf_lut.comp", &[], [n, n, 1])
        }
    });
    Environment {
        specular,
        irradiance,
        brdf,
    }
}

/// The executor's epochs of the persistent environment resources now
/// (`tessera_vk::executor::Executor::persistent_epoch`: `None` until made, a new number
/// whenever remade, its content lost).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Epochs {
    /// Of [`names::SPECULAR`].
    pub specular: Option<u64>,
    /// Of [`names::IRRADIANCE`].
    pub irradiance: Option<u64>,
    /// Of [`names::BRDF`].
    pub brdf: Option<u64>,
}

/// What the renderer knows the persistent environment holds: the sky its content was
/// written for and the epochs of the resources it was written into. Content is valid while
/// both still hold: the same sky (bit for bit), the same objects.
#[derive(Clone, Copy, Debug, Default)]
pub struct Content {
    sky: Option<(SkyInputs, [u64; 2])>,
    brdf: Option<u64>,
}

impl Content {
    /// Which content a frame of `sky` may keep, the resources' epochs being `now`.
    pub fn validity(&self, sky: &SkyInputs, now: Epochs) -> Validity {
        let same_sky = |k: &SkyInputs| bytemuck::bytes_of(k) == bytemuck::bytes_of(sky);
        Validity {
            sky: matches!(
                (self.sky, now.specular, now.irradiance),
                (Some((k, [s, i])), Some(s2), Some(i2)) if same_sky(&k) && s == s2 && i == i2
            ),
            brdf: self.brdf.is_some() && self.brdf == now.brdf,
        }
    }

    /// Records a submitted frame of `sky` declared with `valid`: what it wrote is now held,
    /// in the resources of epochs `now` (read after the frame).
    pub fn submitted(&mut self, sky: SkyInputs, valid: Validity, now: Epochs) {
        if !valid.sky {
            self.sky = now.specular.zip(now.irradiance).map(|(s, i)| (sky, [s, i]));
        }
        if !valid.brdf {
            self.brdf = now.brdf;
        }
    }

    /// Forgets everything (the next frame runs every environment pass).
    pub fn forget(&mut self) {
        *self = Content::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sky(y: f32) -> SkyInputs {
        SkyInputs {
            to_sun: [0.0, y, 0.0, 1.0],
            sun_color: [3.0; 4],
            ambient: [0.1; 4],
        }
    }

    fn epochs(n: u64) -> Epochs {
        Epochs {
            specular: Some(n),
            irradiance: Some(n + 1),
            brdf: Some(n + 2),
        }
    }

    #[test]
    fn content_is_valid_for_the_same_sky_in_the_same_objects_only() {
        let mut c = Content::default();
        assert_eq!(
            c.validity(&sky(1.0), Epochs::default()),
            Validity::default()
        );
        c.submitted(sky(1.0), Validity::default(), epochs(7));
        let all = Validity {
            sky: true,
            brdf: true,
        };
        assert_eq!(c.validity(&sky(1.0), epochs(7)), all);
        // The sun moved: the sky is stale, the BRDF table is not.
        let moved = c.validity(&sky(0.5), epochs(7));
        assert_eq!(
            moved,
            Validity {
                sky: false,
                brdf: true
            }
        );
        // The executor remade the objects: nothing is valid.
        assert_eq!(c.validity(&sky(1.0), epochs(8)), Validity::default());
        // A frame that kept the BRDF table and rewrote the sky records the new sky only.
        c.submitted(sky(0.5), moved, epochs(7));
        assert_eq!(c.validity(&sky(0.5), epochs(7)), all);
        assert!(!c.validity(&sky(1.0), epochs(7)).sky);
        c.forget();
        assert_eq!(c.validity(&sky(0.5), epochs(7)), Validity::default());
    }
}
