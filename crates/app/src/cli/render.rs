//! `tessera render [--config FILE] [--profile desktop|mali|adreno] [--scene FILE] [--width W]
//! [--height H] [--frames N] [--animate | --no-animate] [--out FRAME.png] [--capture OUT.rdc] [--tile-rules mali|adreno]
//! [graph and feature flags] [--json]`: renders N frames of a scene offscreen through the
//! graph into an imported output image, writes the last as PNG and prints the features, the
//! plan summary, the GPU time per pass and the validation message count (exit 1 on any
//! validation message).
//!
//! `--capture OUT.rdc` loads RenderDoc before the device, captures the last frame with its
//! in-app API and writes beside the capture what `tessera verify-capture` holds it against
//! (`OUT.plan.json`, `OUT.frame.json`, `OUT.device.json`; see `capture`). `--tile-rules`
//! plans with a tiler's lazily allocated memory and tile budget over this device's facts,
//! so a desktop GPU runs (and RenderDoc shows) the render passes a phone would get.
//!
//! What to render and how comes from the configuration file (`--config`, else the embedded
//! `config/default.toml`): `[render]` for the size, scene and frame count, `[features]` (with
//! the `[mobile]` preset on `--profile mali`/`adreno`) for the frame's features, `[graph]` for
//! the optimisations. Each flag given overrides the file. `--scene` takes a scene file
//! (`.toml`) or a glTF model (`.gltf`, `.glb`); `builtin` is the courtyard. The view is the
//! scene's, moved by `[camera]` and `--camera-position` / `--camera-target`. The configuration
//! and the scene are loaded, and the flags checked, before a device is opened.

use super::frame_args::{device_profile_parser, resolve_profile, Chosen, FrameArgs};
use std::path::PathBuf;
use std::sync::Arc;
use tessera_graph::{CompileOptions, Plan};
use tessera_render::config;
use tessera_render::features::Features;
use tessera_render::{Renderer, Rotation, Settings};
use tessera_verify::SideFiles;
use tessera_vk::capture::Capture;
use tessera_vk::executor::TileRules;
use tessera_vk::{Gpu, GpuOptions, VkError};

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub frame: FrameArgs,
    /// Device profile: mali and adreno get the configuration's [mobile] preset; auto takes
    /// the device's (its vendor, Mali architecture and lazily allocated memory).
    #[arg(long, default_value = "desktop", value_parser = device_profile_parser())]
    profile: String,
    /// Every graph optimisation off (whatever [graph] says).
    #[arg(long)]
    no_optimize: bool,
    /// Frames to render (the lights move 1/60 s per frame) [default: the config's].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    frames: Option<u64>,
    /// Where the last frame goes.
    #[arg(long, value_name = "FRAME.png", default_value = "frame.png")]
    out: PathBuf,
    /// Run the async-compute queue's work as separate submits on the graphics queue.
    #[arg(long)]
    emulate_async: bool,
    /// Run without the validation layers.
    #[arg(long)]
    no_validation: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Capture the last frame with RenderDoc into OUT.rdc, with the plan, frame and device
    /// facts beside it (OUT.plan.json, OUT.frame.json, OUT.device.json) for
    /// `tessera verify-capture`.
    #[arg(long, value_name = "OUT.rdc")]
    capture: Option<PathBuf>,
    /// Plan with this tiler profile's tile facts (lazily allocated memory, tile budget) over
    /// the device's own.
    #[arg(long, value_name = "PROFILE", value_parser = clap::builder::PossibleValuesParser::new(TileRules::NAMES))]
    tile_rules: Option<String>,
    /// Pre-rotate the output for a surface transform of DEG clockwise: FRAME.png is the
    /// physical image (sides swapped at 90 and 270), the frame drawn upright at
    /// --width × --height and rotated the other way (docs/android.md, "Pre-rotation").
    #[arg(long, value_name = "DEG", default_value = "0", value_parser = ["0", "90", "180", "270"])]
    rotate: String,
    /// Run the environment's passes (sky cube map, prefiltering, irradiance, BRDF table)
    /// every frame, not only when the sun changes: their GPU cost shows in the pass times.
    #[arg(long)]
    recompute_environment: bool,
}

impl RenderArgs {
    /// `tessera render` of `frame` to `out` (the window's headless fallback).
    pub fn headless(
        frame: FrameArgs,
        profile: String,
        no_optimize: bool,
        frames: Option<u64>,
        out: PathBuf,
        emulate_async: bool,
        no_validation: bool,
    ) -> RenderArgs {
        RenderArgs {
            frame,
            profile,
            no_optimize,
            frames,
            out,
            emulate_async,
            no_validation,
            json: false,
            capture: None,
            tile_rules: None,
            rotate: "0".into(),
            recompute_environment: false,
        }
    }
}

impl RenderArgs {
    /// These arguments with `--tile-rules` (`tessera run --tile-rules` without a display).
    pub fn with_tile_rules(mut self, tile_rules: Option<String>) -> RenderArgs {
        self.tile_rules = tile_rules;
        self
    }
}

/// What a run measured.
struct Report {
    device: String,
    scene: String,
    frames: u64,
    /// The configuration file, as given.
    config: String,
    profile: String,
    /// Why `--profile auto` chose `profile` (`None`: the profile was given).
    profile_reason: Option<String>,
    features: Features,
    options: CompileOptions,
    plan: Plan,
    cpu: Vec<tessera_render::FrameStats>,
    timings: Vec<tessera_vk::executor::PassTiming>,
    /// Most `vkAllocateMemory` allocations alive at once over the run (sampled after the
    /// renderer opened and after every frame).
    allocations: u64,
    pipelines: u64,
    validation: bool,
    messages: u64,
    message_texts: Vec<String>,
    out: PathBuf,
    /// The capture and its side files, when `--capture` was given.
    capture: Option<(PathBuf, SideFiles)>,
    /// Memoryless attachments bound to ordinary memory.
    memoryless_fallbacks: Vec<String>,
}

pub fn run(args: &RenderArgs) -> anyhow::Result<std::process::ExitCode> {
    // Every output is checked before any work: a special file, a link or a missing folder
    // is refused now, and no output may be an input or another output.
    let out = super::out::output("--out", &args.out)?;
    let capture_out = args
        .capture
        .as_deref()
        .map(|rdc| super::out::output("--capture", rdc))
        .transpose()?;
    let side_outs = args
        .capture
        .as_deref()
        .map(super::capture::side_outputs)
        .transpose()?;
    let outputs: Vec<&tessera_fsio::Output> = std::iter::once(&out)
        .chain(&capture_out)
        .chain(side_outs.iter().flatten())
        .collect();
    super::out::distinct(&outputs, &args.frame.inputs())?;
    let Chosen {
        config,
        profile,
        features,
        options,
        width,
        height,
        scene,
        camera,
        animate,
    } = args.frame.choose(&args.profile, args.no_optimize)?;
    if let Some(scene) = args.frame.config_scene(&config) {
        super::out::distinct(&outputs, &[scene])?;
    }
    let frames = args.frames.unwrap_or(config.render.frames);
    let tile_rules = args
        .tile_rules
        .as_deref()
        .map(|p| {
            TileRules::named(p)
                .ok_or_else(|| anyhow::anyhow!("--tile-rules: unknown profile '{p}'"))
        })
        .transpose()?;
    // Before the instance: RenderDoc hooks Vulkan as it loads.
    let mut capture = args
        .capture
        .as_deref()
        .map(|out| Capture::load(out).map_err(|e| anyhow::anyhow!("--capture: {e}")))
        .transpose()?;
    let gpu = Arc::new(
        Gpu::new(&GpuOptions {
            validation: !args.no_validation,
            surface: None,
            ..Default::default()
        })
        .map_err(|e| match e {
            VkError::NoDevice(_) => anyhow::anyhow!("{e}"),
            e => anyhow::anyhow!("opening the device: {e}"),
        })?,
    );
    let before = gpu.messages.count();
    let (profile, features, profile_reason) =
        resolve_profile(&args.frame, &config, &profile, features, &gpu)?;
    let settings = Settings {
        width,
        height,
        options,
        emulate_async: args.emulate_async,
        features: features.clone(),
        profile: profile.clone(),
        camera,
        tile_rules,
        output_rotation: args
            .rotate
            .parse()
            .ok()
            .and_then(Rotation::from_degrees)
            .unwrap_or_default(),
        recompute_environment: args.recompute_environment,
        ..Settings::default()
    };
    let scene_name = scene.name.clone();
    let settings_size = (settings.width, settings.height);
    let mut renderer = Renderer::new(gpu.clone(), scene, settings)?;
    // What the renderer runs: MSAA lowered to the device's counts.
    let features = renderer.settings().features.clone();
    let mut cpu = Vec::new();
    let mut peak_allocations = gpu.allocation_count();
    let mut progress = super::progress::Progress::new(
        format!("render {}x{}", settings_size.0, settings_size.1),
        "frame",
        frames,
    );
    let mut captured = None;
    for f in 0..frames {
        let time = f as f32 / 60.0;
        // The animations advance with the lights (a static scene ignores it).
        renderer.set_animation_time(animate.then_some(time));
        match &mut capture {
            // The last frame is captured: every resource and cache is warm by then.
            Some(c) if f + 1 == frames => {
                c.start();
                let frame = renderer.render(time);
                // A started capture always ends, even when the frame failed.
                let end = c.end();
                cpu.push(frame?);
                let rdc = end.map_err(|e| anyhow::anyhow!("--capture: {e}"))?;
                let files = super::capture::write_beside(&rdc, &renderer)?;
                captured = Some((rdc, files));
            }
            _ => cpu.push(renderer.render(time)?),
        }
        peak_allocations = peak_allocations.max(gpu.allocation_count());
        progress.set(f + 1);
    }
    let picture = renderer
        .picture()?
        .ok_or_else(|| anyhow::anyhow!("no picture read back"))?;
    picture.write_png_to(&out)?;
    let plan = renderer
        .executor()
        .plan()
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("no plan ran"))?;
    let timings = renderer.timings();
    let allocations = peak_allocations.max(gpu.allocation_count());
    let pipelines = renderer.pipelines_created();
    let memoryless_fallbacks = renderer
        .executor()
        .resources()
        .map(|r| r.memoryless_fallbacks.clone())
        .unwrap_or_default();
    // Freed before the messages are counted: destruction is validated too.
    renderer.destroy();
    let report = Report {
        device: gpu.device_name(),
        scene: scene_name,
        frames,
        config: config.source.clone(),
        profile,
        profile_reason,
        features,
        options,
        plan,
        cpu,
        timings,
        allocations,
        pipelines,
        validation: !args.no_validation,
        messages: gpu.messages.count() - before,
        message_texts: gpu.messages.texts(),
        out: args.out.clone(),
        capture: captured,
        memoryless_fallbacks,
    };
    let text = if args.json {
        serde_json::to_string_pretty(&to_json(&report))? + "\n"
    } else {
        summary(&report)
    };
    super::out::print(|out| out.write_all(text.as_bytes()))?;
    if report.messages > 0 {
        anyhow::bail!("{} validation messages", report.messages);
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Median of the frames after the first (which compiles and builds everything).
fn steady(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    if v.len() > 1 {
        v.remove(0);
    }
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn summary(r: &Report) -> String {
    use std::fmt::Write as _;
    let p = &r.plan;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scene '{}' on {}: {} frames, picture {}",
        r.scene,
        r.device,
        r.frames,
        r.out.display()
    );
    let _ = writeln!(
        s,
        "features ({} profile, {}): {}",
        r.profile,
        r.config,
        config::feature_names(&r.features)
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if let Some(why) = &r.profile_reason {
        let _ = writeln!(s, "profile {} chosen by the device: {why}", r.profile);
    }
    let subpasses: usize = p.render_passes.iter().map(|rp| rp.subpasses.len()).sum();
    let _ = writeln!(
        s,
        "plan: {} passes, {} render passes ({} subpasses), {} barriers, {} syncs",
        p.order.len(),
        p.render_passes.len(),
        subpasses,
        p.barriers.len(),
        p.syncs.len()
    );
    for rp in &p.render_passes {
        let _ = writeln!(
            s,
            "  render pass: {}",
            rp.subpasses
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(" -> ")
        );
    }
    let m = &p.memory;
    let _ = writeln!(
        s,
        "transient memory: {} KiB bound (aliased), {} KiB unaliased, {} KiB memoryless",
        m.aliased_bytes / 1024,
        m.unaliased_bytes / 1024,
        m.memoryless_bytes / 1024
    );
    let b = &p.bandwidth;
    let _ = writeln!(
        s,
        "tile bandwidth model: {} KiB per frame planned, {} KiB naive",
        (b.load_bytes + b.store_bytes) / 1024,
        (b.naive_load_bytes + b.naive_store_bytes) / 1024
    );
    let _ = writeln!(
        s,
        "CPU per frame (median after the first): declare {:.1} us, prepare (cached compile) {:.1} us, record+submit {:.1} us (waiting for the GPU {:.1} us)",
        steady(r.cpu.iter().map(|c| c.declare_us)),
        steady(r.cpu.iter().map(|c| c.prepare_us)),
        steady(r.cpu.iter().map(|c| c.record_us)),
        steady(r.cpu.iter().map(|c| c.wait_us))
    );
    let _ = writeln!(
        s,
        "vkAllocateMemory allocations: {} at most alive over the run, pipelines created: {}",
        r.allocations, r.pipelines
    );
    let _ = writeln!(
        s,
        "GPU time per pass (mean over {} frames):",
        r.timings.first().map_or(0, |t| t.frames)
    );
    for t in &r.timings {
        let _ = writeln!(s, "  {:<24} {:>10.1} us", t.pass, t.mean_us);
    }
    if !r.memoryless_fallbacks.is_empty() {
        let _ = writeln!(
            s,
            "memoryless attachments in ordinary memory (no lazily allocated type allows them): {}",
            r.memoryless_fallbacks.join(", ")
        );
    }
    if let Some((rdc, files)) = &r.capture {
        let _ = writeln!(
            s,
            "RenderDoc capture of the last frame: {} (beside it {}, {}, {}); check it with \
             `tessera verify-capture {}`",
            rdc.display(),
            files.plan.display(),
            files.frame.display(),
            files.device.display(),
            rdc.display()
        );
    }
    for m in &r.message_texts {
        let _ = writeln!(s, "  validation: {m}");
    }
    if r.validation {
        let _ = writeln!(s, "validation messages: {}", r.messages);
    } else {
        let _ = writeln!(s, "validation: off");
    }
    s
}

fn to_json(r: &Report) -> serde_json::Value {
    let p = &r.plan;
    serde_json::json!({
        "scene": r.scene,
        "device": r.device,
        "frames": r.frames,
        "config": r.config,
        "profile": r.profile,
        "profile_reason": r.profile_reason,
        "features": config::feature_names(&r.features)
            .into_iter()
            .map(|(k, v)| {
                let value = serde_json::from_str(&v).unwrap_or(serde_json::Value::String(v));
                (k.to_string(), value)
            })
            .collect::<serde_json::Map<_, _>>(),
        "options": r.options,
        "out": r.out.display().to_string(),
        "passes": p.order.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        "render_passes": p.render_passes.iter().map(|rp| serde_json::json!({
            "subpasses": rp.subpasses.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            "attachments": rp.attachments.iter().map(|a| serde_json::json!({
                "resource": a.resource.to_string(),
                "load_op": a.load_op,
                "store_op": a.store_op,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "barriers": p.barriers.len(),
        "syncs": p.syncs.len(),
        "memory": {
            "aliased_bytes": p.memory.aliased_bytes,
            "unaliased_bytes": p.memory.unaliased_bytes,
            "memoryless_bytes": p.memory.memoryless_bytes,
        },
        "bandwidth": p.bandwidth,
        "cpu_us": {
            "declare": steady(r.cpu.iter().map(|c| c.declare_us)),
            "prepare": steady(r.cpu.iter().map(|c| c.prepare_us)),
            "record": steady(r.cpu.iter().map(|c| c.record_us)),
            "wait_for_gpu": steady(r.cpu.iter().map(|c| c.wait_us)),
            "first_frame_prepare": r.cpu.first().map_or(0.0, |c| c.prepare_us),
        },
        "allocations": r.allocations,
        "pipelines": r.pipelines,
        "timings_us": r.timings.iter().map(|t| serde_json::json!({"pass": t.pass, "mean_us": t.mean_us, "frames": t.frames})).collect::<Vec<_>>(),
        "memoryless_in_ordinary_memory": r.memoryless_fallbacks,
        "capture": r.capture.as_ref().map(|(rdc, files)| serde_json::json!({
            "rdc": rdc.display().to_string(),
            "plan": files.plan.display().to_string(),
            "frame": files.frame.display().to_string(),
            "device": files.device.display().to_string(),
        })),
        "validation": r.validation,
        "validation_messages": r.validation.then_some(r.messages),
        "messages": r.message_texts,
    })
}
