//! A verdict as text: one row per attachment of every planned render pass (planned and
//! captured load/store ops side by side), then the label and name checks, what was
//! accounted for, and every difference.

use crate::verdict::Verdict;
use std::fmt::Write as _;

/// The whole report, ending with a one-line result.
pub fn render(v: &Verdict) -> String {
    let mut rows: Vec<[String; 7]> = vec![[
        "#".into(),
        "render pass (subpasses)".into(),
        "subpasses".into(),
        "attachment".into(),
        "load plan/capture".into(),
        "store plan/capture".into(),
        "result".into(),
    ]];
    for (k, rp) in v.render_passes.iter().enumerate() {
        let counts = format!(
            "{}/{}",
            rp.subpasses.len(),
            rp.captured_subpasses
                .map_or_else(|| "-".to_string(), |n| n.to_string())
        );
        let verdict = if rp.differences == 0 {
            "ok".to_string()
        } else {
            format!("{} differences", rp.differences)
        };
        if rp.attachments.is_empty() {
            rows.push([
                k.to_string(),
                rp.subpasses.join(" | "),
                counts.clone(),
                "-".into(),
                "-".into(),
                "-".into(),
                verdict.clone(),
            ]);
        }
        for (i, a) in rp.attachments.iter().enumerate() {
            let (load, store) = match &a.captured {
                Some((l, s)) => (l.as_str(), s.as_str()),
                None => ("-", "-"),
            };
            let first = i == 0;
            let name = if a.memoryless {
                format!("{} (memoryless)", a.resource)
            } else {
                a.resource.clone()
            };
            rows.push([
                if first { k.to_string() } else { String::new() },
                if first {
                    rp.subpasses.join(" | ")
                } else {
                    String::new()
                },
                if first { counts.clone() } else { String::new() },
                name,
                format!("{} / {load}", crate::verdict::short_op(a.load)),
                format!("{} / {store}", crate::verdict::short_op(a.store)),
                if a.ok { "ok".into() } else { "DIFFERS".into() },
            ]);
        }
        if rp.differences > 0 && rp.attachments.iter().all(|a| a.ok) {
            if let Some(last) = rows.last_mut() {
                last[6] = verdict;
            }
        }
    }
    let mut widths = [0usize; 7];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut s = String::new();
    for r in &rows {
        let mut line = String::new();
        for (c, w) in r.iter().zip(widths) {
            let _ = write!(line, "{c:<w$}  ");
        }
        s += line.trim_end();
        s.push('\n');
    }
    let (passes, labelled) = v.labels;
    let _ = writeln!(
        s,
        "debug labels: {labelled} of {passes} planned passes labelled once"
    );
    let (transient, named) = v.transient_names;
    let _ = writeln!(
        s,
        "debug names: {named} of {transient} transient resources carry their frame name"
    );
    for n in &v.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if v.passed() {
        let _ = writeln!(
            s,
            "result: the capture matches the plan ({} render passes)",
            v.render_passes.len()
        );
    } else {
        let _ = writeln!(s, "differences:");
        for d in &v.differences {
            let _ = writeln!(s, "  {d}");
        }
        let _ = writeln!(
            s,
            "result: the capture differs from the plan in {} place{}",
            v.differences.len(),
            if v.differences.len() == 1 { "" } else { "s" }
        );
    }
    s
}
