//! The Frame panel: FPS and the CPU and GPU ms of a frame, a graph of both over the last
//! frames, each queue's busy time and the GPU ms of every pass as bars, all from the
//! newest completed frame ([`super::timing`]; marked stale while it ran under the plan
//! before the last change).

use super::panels::{small, View, Widgets, CPU, GPU};
use super::timing::HISTORY;
use egui::{pos2, vec2, CollapsingHeader, Color32, Rect, RichText, Sense, Stroke, Ui};
use std::collections::VecDeque;
use tessera_graph::QueueKind;

/// The graph's and the bars' width (points).
const WIDTH: f32 = 250.0;
/// The graph's height.
const GRAPH_HEIGHT: f32 = 56.0;
/// Passes shown as bars with the panel closed to the longest.
const TOP_PASSES: usize = 6;
/// A pass bar's height.
const BAR_HEIGHT: f32 = 11.0;

pub fn show(ui: &mut Ui, view: &View, w: &mut Widgets) {
    let t = view.timing;
    ui.set_width(WIDTH);
    let gpu = t.newest.as_ref();
    ui.label(format!(
        "{:.1} FPS   CPU {:.2} ms   GPU {}",
        t.fps(),
        t.cpu.back().copied().unwrap_or(0.0),
        gpu.map_or("-".into(), |g| format!("{:.2} ms", g.total()))
    ));
    let [declare, prepare, record, submit] = t.parts;
    small(
        ui,
        format!(
            "declare {declare:.0} us, prepare {prepare:.0} us, record {record:.0} us; \
             {:.1} ms blocked in submit",
            submit / 1000.0
        ),
    );
    graph(ui, &t.cpu, &t.gpu);
    if let Some(g) = gpu {
        small(
            ui,
            format!(
                "graphics queue busy {:.2} ms, async {:.2} ms; frame span {:.2} ms",
                g.busy[0], g.busy[1], g.span
            ),
        );
    }
    let Some(g) = gpu else {
        small(ui, "no frame timed yet".into());
        small(ui, view.notes.camera.clone());
        return;
    };
    let stale = t.stale();
    if stale {
        ui.label(
            RichText::new("stale: the plan changed, new times are on their way")
                .small()
                .color(Color32::GRAY),
        );
    }
    let longest = g.passes.iter().map(|p| p.2).fold(1e-6, f64::max);
    // The longest passes always; every pass, in execution order, on demand.
    let mut top: Vec<&(String, QueueKind, f64)> = g.passes.iter().collect();
    top.sort_by(|a, b| b.2.total_cmp(&a.2));
    top.truncate(TOP_PASSES);
    small(ui, format!("GPU ms, the {} longest passes:", top.len()));
    for (pass, queue, ms) in top {
        bar(ui, pass, *queue, *ms / longest, *ms, stale);
    }
    let all = format!("all {} passes", g.passes.len());
    let r = CollapsingHeader::new(RichText::new(&all).small())
        .id_salt("all passes")
        .default_open(false)
        .show(ui, |ui| {
            for (pass, queue, ms) in &g.passes {
                bar(ui, pass, *queue, *ms / longest, *ms, stale);
            }
        });
    w.insert("all passes".into(), r.header_response.rect);
    small(ui, view.notes.camera.clone());
}

/// The CPU (orange) and GPU (blue) ms of the last [`HISTORY`] frames, newest on the right,
/// each line scaled to its own largest value (named in its colour): on a software
/// rasteriser the GPU's second would flatten the CPU's milliseconds on a shared scale.
fn graph(ui: &mut Ui, cpu: &VecDeque<f64>, gpu: &VecDeque<f64>) {
    let (rect, _) = ui.allocate_exact_size(vec2(WIDTH, GRAPH_HEIGHT), Sense::hover());
    let p = ui.painter_at(rect);
    p.rect_filled(rect, 2.0, Color32::from_gray(28));
    let font = egui::FontId::proportional(10.0);
    let mut label_at = rect.left_top() + vec2(3.0, 1.0);
    for (values, colour, name) in [(cpu, CPU, "CPU"), (gpu, GPU, "GPU")] {
        let top = values.iter().copied().fold(1e-3, f64::max) * 1.1;
        let n = values.len();
        let points: Vec<_> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let x = rect.right() - (n - 1 - i) as f32 * rect.width() / (HISTORY - 1) as f32;
                let y = rect.bottom() - (v / top) as f32 * rect.height();
                pos2(x, y)
            })
            .collect();
        p.add(egui::Shape::line(points, Stroke::new(1.2, colour)));
        let label = p.text(
            label_at,
            egui::Align2::LEFT_TOP,
            format!("{name} to {top:.2} ms"),
            font.clone(),
            colour,
        );
        label_at.x = label.right() + 8.0;
    }
}

/// One pass: its name, a bar of `fraction` of the width (async passes in another colour)
/// and its ms.
fn bar(ui: &mut Ui, pass: &str, queue: QueueKind, fraction: f64, ms: f64, stale: bool) {
    let (rect, _) = ui.allocate_exact_size(vec2(WIDTH, BAR_HEIGHT), Sense::hover());
    let p = ui.painter_at(rect);
    let name_w = 110.0;
    let bar_w = (rect.width() - name_w - 48.0) * fraction.clamp(0.0, 1.0) as f32;
    let mut colour = match queue {
        QueueKind::Graphics => GPU,
        _ => Color32::from_rgb(150, 230, 120),
    };
    if stale {
        colour = colour.gamma_multiply(0.45);
    }
    let bar = Rect::from_min_size(
        pos2(rect.left() + name_w, rect.top() + 1.0),
        vec2(bar_w.max(1.0), BAR_HEIGHT - 2.0),
    );
    p.rect_filled(bar, 1.0, colour);
    let font = egui::FontId::proportional(10.0);
    let name: String = pass.chars().take(20).collect();
    p.text(
        rect.left_center(),
        egui::Align2::LEFT_CENTER,
        name,
        font.clone(),
        Color32::LIGHT_GRAY,
    );
    p.text(
        rect.right_center(),
        egui::Align2::RIGHT_CENTER,
        format!("{ms:.3}"),
        font,
        Color32::LIGHT_GRAY,
    );
}
