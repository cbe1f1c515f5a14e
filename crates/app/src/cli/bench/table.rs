//! The report as text: per size, one row per figure, one column per mode with its value and
//! its ratio against `none`.

use super::report::BenchReport;
use std::fmt::Write as _;

/// A figure's value in its unit: bytes as KiB/MiB/GiB, microseconds as µs or ms.
pub fn value(name: &str, v: f64) -> String {
    if name.ends_with("_bytes") {
        let units = ["B", "KiB", "MiB", "GiB"];
        let mut x = v;
        let mut u = 0;
        while x >= 1024.0 && u + 1 < units.len() {
            x /= 1024.0;
            u += 1;
        }
        if u == 0 {
            format!("{x:.0} B")
        } else {
            format!("{x:.1} {}", units[u])
        }
    } else if name.ends_with("_us") {
        if v >= 10_000.0 {
            format!("{:.2} ms", v / 1000.0)
        } else {
            format!("{v:.1} us")
        }
    } else {
        format!("{v:.0}")
    }
}

pub fn render(r: &BenchReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "tessera bench on {} (Vulkan {}), scene '{}', {} measured frames after {} warm-up, {}{}",
        r.device,
        r.api_version,
        r.scene,
        r.frames,
        r.warmup,
        if r.emulate_async {
            "async queue emulated on graphics"
        } else {
            "queues as the device has them"
        },
        if r.validation {
            format!(", validation on ({} messages)", r.validation_messages)
        } else {
            ", validation off".into()
        }
    );
    if !r.note.is_empty() {
        let _ = writeln!(s, "note: {}", r.note);
    }
    let mut sizes: Vec<(u32, u32)> = Vec::new();
    for c in &r.cells {
        if !sizes.contains(&(c.width, c.height)) {
            sizes.push((c.width, c.height));
        }
    }
    for (w, h) in sizes {
        let cells: Vec<_> = r
            .cells
            .iter()
            .filter(|c| (c.width, c.height) == (w, h))
            .collect();
        let _ = writeln!(s, "\n{w}x{h} (ratio against none in brackets)");
        let mut rows: Vec<Vec<String>> = vec![std::iter::once("figure".to_string())
            .chain(cells.iter().map(|c| c.column()))
            .collect()];
        let Some(first) = cells.first() else { continue };
        for (i, (name, _)) in first.figures().iter().enumerate() {
            let mut row = vec![name.to_string()];
            for c in &cells {
                let (_, v) = c.figures()[i];
                let ratio = c
                    .ratios
                    .get(*name)
                    .map_or(String::new(), |x| format!(" [{x:.2}]"));
                row.push(value(name, v) + &ratio);
            }
            rows.push(row);
        }
        let mut widths = vec![0; rows[0].len()];
        for row in &rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        for row in &rows {
            let mut line = String::new();
            for (i, (c, w)) in row.iter().zip(&widths).enumerate() {
                if i == 0 {
                    let _ = write!(line, "{c:<w$}  ");
                } else {
                    let _ = write!(line, "{c:>w$}  ");
                }
            }
            let _ = writeln!(s, "{}", line.trim_end());
        }
        for c in &cells {
            let g = &c.gpu.frame_us;
            let _ = write!(
                s,
                "{}: GPU frame median {} (p10 {}, p90 {}), graphics queue idle {}",
                c.column(),
                value("_us", g.median),
                value("_us", g.p10),
                value("_us", g.p90),
                value("_us", (g.median - c.gpu.graphics_busy_us.median).max(0.0)),
            );
            if c.gpu.frame_period_us.median > 0.0 {
                let _ = write!(
                    s,
                    "; frame period {} (frames back to back)",
                    value("_us", c.gpu.frame_period_us.median)
                );
            }
            let busy = c.gpu.async_busy_us.median;
            if busy > 0.0 && g.median > 0.0 {
                // Overlap can hide at most the async queue's own busy time.
                let _ = write!(
                    s,
                    "; async busy {} ({:.1}% of the frame: the most overlap can gain), {} of it overlapping graphics",
                    value("_us", busy),
                    100.0 * busy / g.median,
                    value("_us", c.gpu.overlap_us.median)
                );
            }
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::value;

    #[test]
    fn values_fit_their_unit() {
        assert_eq!(value("aliased_bytes", 1536.0), "1.5 KiB");
        assert_eq!(value("aliased_bytes", 12.0), "12 B");
        assert_eq!(value("cpu_declare_us", 41.25), "41.2 us");
        assert_eq!(value("gpu_frame_us", 16_700.0), "16.70 ms");
        assert_eq!(value("barriers", 61.0), "61");
    }
}
