//! `tessera bench [--sizes WxH,...] [--modes none,merge,...] [--frames N] [--warmup N]
//! [--json OUT.json] [--html OUT.html] [frame flags]`: what each graph optimisation buys, on
//! the real frame, measured side by side in one run.
//!
//! For each size, one renderer per mode renders the frame headless (no read-back); the
//! modes take turns frame by frame (warm-up rounds first), so drift on a shared machine hits
//! every mode alike, and each frame runs alone on the device (the next mode's frame starts
//! once it is done), so no mode's frame waits behind another's on the shared queues. Each cell reports the GPU time per frame and per pass from timestamps
//! (median, p10, p90), each queue's busy time and the async work that overlapped graphics
//! work, the CPU split (declaration, cached and uncached compile, recording, submit, one full
//! re-plan after a resize), memory (transient bytes aliased vs unaliased, memoryless, the
//! executor's allocations per memory type), the plan's figures, and every figure's ratio
//! against mode `none` ([`report`]). The text table goes to standard output; `--json` and
//! `--html` write the report and a self-contained page ([`html`]).
//!
//! A mode is one optimisation alone over none (`merge`, `memoryless`, `alias`, `async`),
//! none, or all of them (`all`, with reordering and sync reduction too). With
//! `--lighting-paths raster,compute` every mode runs once per deferred lighting path, side by
//! side in the same turns (columns `MODE/PATH`, ratios against `none` of the same path).

mod html;
mod measure;
pub mod report;
mod table;
mod ui_frames;

use super::frame_args::{profile_parser, FrameArgs};
use report::{
    BenchReport, Cell, CpuFigures, GpuFigures, MemoryFigures, PassFigure, PlanFigures, Span,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use tessera_graph::{CompileOptions, QueueKind};
use tessera_render::{FrameStats, Renderer, Settings};
use tessera_vk::executor::{FrameTimes, TileRules};
use tessera_vk::{AsyncQueue, Gpu, GpuOptions};

/// The modes, in the order they take turns.
pub const MODES: [&str; 7] = [
    "none",
    "merge",
    "memoryless",
    "alias",
    "async",
    "overlap",
    "all",
];

/// Most frames of a throughput burst (the executor keeps the spans of this many).
const FRAME_TIMES_BURST: u32 = 60;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    frame: FrameArgs,
    /// Device profile: mali and adreno get the configuration's [mobile] preset.
    #[arg(long, default_value = "desktop", value_parser = profile_parser())]
    profile: String,
    /// Plan with this tiler profile's tile facts over the device's own.
    #[arg(long, value_name = "PROFILE", value_parser = clap::builder::PossibleValuesParser::new(TileRules::NAMES))]
    tile_rules: Option<String>,
    /// Output sizes [default: 1280x720,1920x1080,3840x2160; on a CPU device 640x360].
    #[arg(long, value_name = "WxH,...", value_delimiter = ',', value_parser = parse_size)]
    sizes: Vec<(u32, u32)>,
    /// Modes to compare (none, merge, memoryless, alias, async, overlap, all) [default: all seven].
    #[arg(long, value_name = "MODE,...", value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(MODES))]
    modes: Vec<String>,
    /// Run every mode once per deferred lighting path given (raster, compute), side by side:
    /// each cell's column is then MODE/PATH [default: the configuration's path only].
    #[arg(long, value_name = "PATH,...", value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(tessera_render::config::LIGHTING_VALUES))]
    lighting_paths: Vec<String>,
    /// Measured frames per cell [default: 60; on a CPU device 5].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: Option<u32>,
    /// Frames rendered before measuring, per cell [default: 10; on a CPU device 2].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    warmup: Option<u32>,
    /// Write the report as JSON.
    #[arg(long, value_name = "OUT.json")]
    json: Option<PathBuf>,
    /// Write the report as one self-contained HTML page.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Run the async-compute queue's work as separate submits on the graphics queue.
    #[arg(long)]
    emulate_async: bool,
    /// Paint the window's UI (its default panels, over each mode's own figures) in every
    /// frame, as `tessera run` does: the `ui` pass's GPU time joins the per-pass figures, and
    /// the UI's CPU time (build + tessellate) is printed.
    #[arg(long)]
    ui: bool,
    /// The async-compute queue: `auto` (a compute-only family where the device has one, else
    /// a second queue of the graphics family, as on Mali and Adreno) or `graphics` (a second
    /// queue of the graphics family even where a compute-only family exists: the tilers'
    /// layout on a desktop GPU).
    #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(AsyncQueue::NAMES))]
    async_queue: String,
    /// Run with the validation layers (slower: for checking, not for timing).
    #[arg(long)]
    validation: bool,
    /// Measure nothing: print (and write with --html) the report an earlier `--json` run
    /// saved, e.g. one made on another machine.
    #[arg(long, value_name = "REPORT.json", conflicts_with_all = ["sizes", "modes", "frames", "warmup", "emulate_async", "validation", "tile_rules", "lighting_paths", "async_queue"])]
    from: Option<PathBuf>,
}

/// `WxH`, each from 16 to 16384.
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("'{s}': expected WIDTHxHEIGHT (e.g. 1920x1080), each 16 to 16384");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let n = |t: &str| {
        t.parse::<u32>()
            .ok()
            .filter(|v| (16..=16384).contains(v))
            .ok_or_else(bad)
    };
    Ok((n(w)?, n(h)?))
}

/// The compile options of a mode.
pub fn mode_options(mode: &str) -> CompileOptions {
    let none = CompileOptions::NONE;
    match mode {
        "merge" => CompileOptions {
            merge: true,
            ..none
        },
        "memoryless" => CompileOptions {
            memoryless: true,
            ..none
        },
        "alias" => CompileOptions {
            alias: true,
            ..none
        },
        "async" => CompileOptions {
            async_compute: true,
            ..none
        },
        "overlap" => CompileOptions {
            async_compute: true,
            overlap_frames: true,
            ..none
        },
        "all" => CompileOptions::ALL,
        _ => none,
    }
}

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    if args.frame.size_given() {
        return Err(super::usage(anyhow::anyhow!(
            "--width/--height: tessera bench takes its sizes from --sizes WxH,..."
        )));
    }
    // The outputs are checked before anything is measured (or read): never a special
    // file, never the report read with --from, the configuration or the scene.
    let json_out = args
        .json
        .as_deref()
        .map(|p| super::out::output("--json", p))
        .transpose()?;
    let html_out = args
        .html
        .as_deref()
        .map(|p| super::out::output("--html", p))
        .transpose()?;
    let outs = Outs {
        json: json_out,
        html: html_out,
    };
    let mut inputs = args.frame.inputs();
    if let Some(from) = &args.from {
        inputs.push(("--from", from.as_path()));
    }
    super::out::distinct(&outs.all(), &inputs)?;
    if let Some(path) = &args.from {
        let report = read_report(path)?;
        write_outputs(&outs, &report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let chosen = args.frame.choose(&args.profile, false)?;
    if let Some(scene) = args.frame.config_scene(&chosen.config) {
        super::out::distinct(&outs.all(), &[scene])?;
    }
    let tile_rules = args.tile_rules.as_deref().and_then(TileRules::named);
    let modes: Vec<String> = if args.modes.is_empty() {
        MODES.iter().map(|m| m.to_string()).collect()
    } else {
        args.modes.clone()
    };
    let gpu = Arc::new(Gpu::new(&GpuOptions {
        validation: args.validation,
        surface: None,
        async_queue: AsyncQueue::parse(&args.async_queue).unwrap_or_default(),
    })?);
    let cpu_device = gpu.properties.device_type == ash::vk::PhysicalDeviceType::CPU;
    let sizes = if !args.sizes.is_empty() {
        args.sizes.clone()
    } else if cpu_device {
        vec![(640, 360)]
    } else {
        vec![(1280, 720), (1920, 1080), (3840, 2160)]
    };
    let frames = args.frames.unwrap_or(if cpu_device { 5 } else { 60 });
    let warmup = args.warmup.unwrap_or(if cpu_device { 2 } else { 10 });
    let messages_before = gpu.messages.count();
    let note = if cpu_device {
        format!(
            "{} is a CPU rasteriser: its GPU times are its own cost model (shaders run on the \
             host's cores), not what a GPU would take",
            gpu.device_name()
        )
    } else {
        String::new()
    };
    // Each renderer of a size: a mode, with its lighting path when comparing them.
    let mut lightings: Vec<Option<String>> =
        args.lighting_paths.iter().cloned().map(Some).collect();
    lightings.dedup();
    if lightings.is_empty() {
        lightings.push(None);
    }
    let variants: Vec<(String, Option<String>)> = lightings
        .iter()
        .flat_map(|l| modes.iter().map(move |m| (m.clone(), l.clone())))
        .collect();
    let mut cells = Vec::new();
    for &(width, height) in &sizes {
        let settings = Settings {
            width,
            height,
            emulate_async: args.emulate_async,
            read_back: false,
            features: chosen.features.clone(),
            profile: chosen.profile.clone(),
            camera: chosen.camera,
            tile_rules,
            ..Settings::default()
        };
        cells.extend(bench_size(
            &gpu,
            &chosen.scene,
            &settings,
            &variants,
            (frames, warmup),
            args.ui,
        )?);
    }
    report::fill_ratios(&mut cells);
    let report = BenchReport {
        date: utc_now(),
        device: gpu.device_name(),
        api_version: gpu.api_version(),
        note,
        scene: chosen.scene.name.clone(),
        frames,
        warmup,
        emulate_async: args.emulate_async,
        validation: args.validation,
        validation_messages: gpu.messages.count() - messages_before,
        modes,
        cells,
    };
    write_outputs(&outs, &report)?;
    if report.validation_messages > 0 {
        for m in gpu.messages.texts() {
            log::error!("validation: {m}");
        }
        anyhow::bail!("{} validation messages", report.validation_messages);
    }
    Ok(ExitCode::SUCCESS)
}

/// The files `--json` and `--html` write, checked before the run.
struct Outs {
    json: Option<tessera_fsio::Output>,
    html: Option<tessera_fsio::Output>,
}

impl Outs {
    fn all(&self) -> Vec<&tessera_fsio::Output> {
        self.json.iter().chain(&self.html).collect()
    }
}

/// The largest report `--from` reads (a run of every mode at many sizes is a few MiB).
const MAX_REPORT_BYTES: u64 = 64 << 20;

/// Reads a saved report: bounded while reading, and with every control character in its
/// strings escaped (`\u{1b}`), so that a report from elsewhere cannot drive the terminal
/// the table is printed on.
fn read_report(path: &std::path::Path) -> anyhow::Result<BenchReport> {
    let text = tessera_fsio::read_limited_to_string(path, MAX_REPORT_BYTES, "bench reports")?;
    let bad = |e: serde_json::Error| {
        anyhow::anyhow!(
            "{}:{}:{}: not a `tessera bench --json` report: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    };
    // Parsed as a report first for the place of an error, then as values to escape.
    serde_json::from_str::<BenchReport>(&text).map_err(bad)?;
    let mut value: serde_json::Value = serde_json::from_str(&text).map_err(bad)?;
    escape_controls(&mut value);
    serde_json::from_value(value).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a `tessera bench --json` report: {e}",
            path.display()
        )
    })
}

/// Replaces each control character in every string of `v` by its escape (`\u{7}`).
fn escape_controls(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) if s.chars().any(char::is_control) => {
            *s = s
                .chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_unicode().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect();
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(escape_controls),
        serde_json::Value::Object(map) => map.values_mut().for_each(escape_controls),
        _ => {}
    }
}

/// Writes `--json` and `--html` and prints the table.
fn write_outputs(outs: &Outs, report: &BenchReport) -> anyhow::Result<()> {
    if let Some(out) = &outs.json {
        super::out::write(
            out,
            (serde_json::to_string_pretty(report)? + "\n").as_bytes(),
        )?;
    }
    if let Some(out) = &outs.html {
        super::out::write(out, html::page(report).as_bytes())?;
    }
    let text = table::render(report);
    super::out::print(|o| o.write_all(text.as_bytes()))
}

/// What one mode collected over its measured frames.
#[derive(Default)]
struct Samples {
    cpu: Vec<FrameStats>,
    times: Vec<FrameTimes>,
    /// Frames submitted back to back, for the frame period.
    burst: Vec<FrameTimes>,
}

/// Every mode at one size: renderers side by side, taking turns.
fn bench_size(
    gpu: &Arc<Gpu>,
    scene: &tessera_scene::Scene,
    settings: &Settings,
    modes: &[(String, Option<String>)],
    (frames, warmup): (u32, u32),
    ui: bool,
) -> anyhow::Result<Vec<Cell>> {
    let (width, height) = (settings.width, settings.height);
    let mut renderers = Vec::new();
    for (mode, lighting) in modes {
        let mut s = Settings {
            options: mode_options(mode),
            ..settings.clone()
        };
        if let Some(l) = lighting {
            s.features.lighting = tessera_render::config::parse_lighting(l);
        }
        renderers.push(Renderer::new(gpu.clone(), scene.clone(), s)?);
    }
    let mut samples: Vec<Samples> = modes.iter().map(|_| Samples::default()).collect();
    let mut uis: Vec<Option<ui_frames::BenchUi>> = renderers
        .iter()
        .map(|r| ui.then(|| ui_frames::BenchUi::new(r)))
        .collect();
    let rounds = warmup + frames;
    let mut progress = super::progress::Progress::new(
        format!("bench {width}x{height}, {} renderers", modes.len()),
        "round",
        rounds as u64,
    );
    for round in 0..rounds {
        // The lights move as in `tessera render`; every mode draws the same frame.
        let time = round as f32 / 60.0;
        for ((r, s), ui) in renderers.iter_mut().zip(&mut samples).zip(&mut uis) {
            if let Some(ui) = ui {
                ui.paint(r)?;
            }
            let stats = r.render(time)?;
            // Each mode's frame runs on an idle device: the renderers share the device's
            // queues, and a frame queued behind another mode's would count that frame's time
            // as its own (its async work may start at once while its graphics work waits).
            r.wait()?;
            let times = r.take_frame_times();
            if round >= warmup {
                s.cpu.push(stats);
                s.times.extend(times);
            }
        }
        progress.set(round as u64 + 1);
    }
    // Throughput: each mode alone, its frames submitted back to back (two in flight, as
    // a window renders), so that consecutive frames may overlap on the GPU.
    let burst = frames.clamp(2, FRAME_TIMES_BURST);
    for (r, s) in renderers.iter_mut().zip(&mut samples) {
        r.take_frame_times();
        for k in 0..burst {
            r.render((rounds + k) as f32 / 60.0)?;
        }
        r.wait()?;
        s.burst = r.take_frame_times();
    }
    for ((mode, _), ui) in modes.iter().zip(&uis) {
        if let Some(ui) = ui {
            println!("{width}x{height} {mode}: {}", ui.cost());
        }
    }
    let mut cells = Vec::new();
    for (((mode, lighting), mut r), s) in modes.iter().zip(renderers).zip(samples) {
        let mut c = cell(mode, &mut r, &s)?;
        c.lighting = lighting.clone();
        cells.push(c);
        r.destroy();
    }
    Ok(cells)
}

/// The figures of one mode's renderer after its measured frames.
fn cell(mode: &str, r: &mut Renderer, s: &Samples) -> anyhow::Result<Cell> {
    let (width, height) = (r.settings().width, r.settings().height);
    let plan = r
        .executor()
        .plan()
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("{mode}: no plan ran"))?;
    let frames: Vec<measure::FrameFigures> = s.times.iter().map(measure::figures).collect();
    let pick = |f: fn(&measure::FrameFigures) -> f64| {
        report::spread(&frames.iter().map(f).collect::<Vec<_>>())
    };
    let gpu = GpuFigures {
        frame_us: pick(|f| f.frame_us),
        graphics_busy_us: pick(|f| f.graphics_busy_us),
        async_busy_us: pick(|f| f.async_busy_us),
        overlap_us: pick(|f| f.overlap_us),
        frame_period_us: report::spread(&measure::periods(&s.burst)),
    };
    let median_cpu = |f: fn(&FrameStats) -> f64| {
        report::percentile(&s.cpu.iter().map(f).collect::<Vec<_>>(), 50.0)
    };
    let uncached = uncached_compile_us(r)?;
    let mut cpu = CpuFigures {
        declare_us: median_cpu(|c| c.declare_us),
        compile_cached_us: median_cpu(|c| c.prepare_us),
        compile_uncached_us: uncached,
        record_us: median_cpu(|c| c.record_us - c.submit_us),
        submit_us: median_cpu(|c| c.submit_us),
        replan_us: 0.0,
    };
    let passes = per_pass(&s.times);
    let timeline = median_frame(&s.times, &frames);
    let timeline_two_frames = two_frames(&s.burst);
    let (allocations, by_type) = r
        .executor()
        .resources()
        .map(|res| res.allocation_summary())
        .unwrap_or_default();
    let m = &plan.memory;
    let memory = MemoryFigures {
        aliased_bytes: m.aliased_bytes,
        unaliased_bytes: m.unaliased_bytes,
        memoryless_bytes: m.memoryless_bytes,
        allocations,
        bytes_by_type: by_type.into_iter().collect(),
    };
    let b = &plan.bandwidth;
    let plan_figures = PlanFigures {
        passes: plan.order.len() as u64,
        render_passes: plan.render_passes.len() as u64,
        subpasses: plan
            .render_passes
            .iter()
            .map(|p| p.subpasses.len() as u64)
            .sum(),
        barriers: plan.barriers.len() as u64,
        semaphores: plan.syncs.len() as u64,
        semaphore_candidates: u64::from(plan.sync_stats.candidate_waits),
        tile_bytes: b.load_bytes + b.store_bytes,
        tile_bytes_naive: b.naive_load_bytes + b.naive_store_bytes,
    };
    cpu.replan_us = replan_us(r)?;
    Ok(Cell {
        width,
        height,
        mode: mode.to_string(),
        lighting: None,
        gpu,
        cpu,
        memory,
        plan: plan_figures,
        passes,
        timeline,
        timeline_two_frames,
        ratios: Default::default(),
    })
}

/// Median of 20 compiles of the running plan's graph from scratch (no cache).
fn uncached_compile_us(r: &Renderer) -> anyhow::Result<f64> {
    let exec = r.executor();
    let (Some(graph), Some(plan)) = (exec.graph(), exec.plan()) else {
        anyhow::bail!("no plan ran");
    };
    let caps = plan.device.clone().unwrap_or_default();
    let options = plan.options.unwrap_or(CompileOptions::ALL);
    let mut times = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let p = tessera_graph::compile(graph, &caps, &options)?;
        times.push(t.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(p);
    }
    Ok(report::percentile(&times, 50.0))
}

/// The prepare time of the frame after a resize (8 px narrower, or wider where that would
/// go under 16 px): a full re-plan, compile and resources included.
fn replan_us(r: &mut Renderer) -> anyhow::Result<f64> {
    let (w, h) = (r.settings().width, r.settings().height);
    let options = r.settings().options;
    let resized = if w >= 24 { w - 8 } else { w + 8 };
    r.reconfigure(resized, h, options)?;
    let stats = r.render(0.0)?;
    r.wait()?;
    Ok(stats.prepare_us)
}

fn queue_name(q: QueueKind) -> &'static str {
    match q {
        QueueKind::Graphics => "graphics",
        QueueKind::AsyncCompute => "async_compute",
    }
}

/// Median GPU time of each pass over the frames, in the order of the last frame.
fn per_pass(times: &[FrameTimes]) -> Vec<PassFigure> {
    let Some(last) = times.last() else {
        return Vec::new();
    };
    last.passes
        .iter()
        .map(|p| {
            let samples: Vec<f64> = times
                .iter()
                .flat_map(|f| f.passes.iter().filter(|q| q.pass == p.pass))
                .map(|q| (q.end_ns - q.start_ns) / 1000.0)
                .collect();
            PassFigure {
                pass: p.pass.clone(),
                queue: queue_name(p.queue).into(),
                median_us: report::percentile(&samples, 50.0),
            }
        })
        .collect()
}

/// The spans of the frame whose length is the median, from its first timestamp.
fn median_frame(times: &[FrameTimes], figures: &[measure::FrameFigures]) -> Vec<Span> {
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|&a, &b| figures[a].frame_us.total_cmp(&figures[b].frame_us));
    let Some(&i) = order.get(order.len() / 2) else {
        return Vec::new();
    };
    let frame = &times[i];
    let start = frame
        .passes
        .iter()
        .map(|p| p.start_ns)
        .fold(f64::MAX, f64::min);
    frame
        .passes
        .iter()
        .map(|p| Span {
            pass: p.pass.clone(),
            frame: None,
            queue: queue_name(p.queue).into(),
            start_us: (p.start_ns - start) / 1000.0,
            end_us: (p.end_ns - start) / 1000.0,
        })
        .collect()
}

/// The middle two frames of a burst of frames submitted back to back, from the first one's
/// start (empty with fewer than two frames with spans).
fn two_frames(burst: &[FrameTimes]) -> Vec<Span> {
    let frames: Vec<&FrameTimes> = burst.iter().filter(|f| !f.passes.is_empty()).collect();
    if frames.len() < 2 {
        return Vec::new();
    }
    let i = (frames.len() - 2) / 2;
    let pair = [frames[i], frames[i + 1]];
    let start = pair[0]
        .passes
        .iter()
        .map(|p| p.start_ns)
        .fold(f64::MAX, f64::min);
    pair.iter()
        .enumerate()
        .flat_map(|(k, f)| {
            f.passes.iter().map(move |p| Span {
                pass: p.pass.clone(),
                frame: Some(k as u32),
                queue: queue_name(p.queue).into(),
                start_us: (p.start_ns - start) / 1000.0,
                end_us: (p.end_ns - start) / 1000.0,
            })
        })
        .collect()
}

/// Now, UTC, as `YYYY-MM-DDTHH:MM:SSZ` (civil date from the Unix day count).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm, era of 400 years).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_modes_parse() {
        assert_eq!(parse_size("1920x1080"), Ok((1920, 1080)));
        assert!(parse_size("1920").is_err());
        assert!(parse_size("0x10").is_err());
        assert_eq!(mode_options("none"), CompileOptions::NONE);
        assert_eq!(mode_options("all"), CompileOptions::ALL);
        let merge = mode_options("merge");
        assert!(merge.merge && !merge.alias && !merge.async_compute && !merge.memoryless);
    }

    #[test]
    fn dates_are_civil() {
        let d = utc_now();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'), "{d}");
    }
}
