//! The page as one self-contained HTML file (`tessera graph FILE --html OUT.html`).
//!
//! The page model (and the diff, if any) is embedded as JSON in a
//! `<script type="application/json">` element; inline CSS and one inline script
//! (`page.css`, `page.js` next to this module) draw it: totals, a timeline SVG (queue lanes,
//! render passes, breaks, semaphores, culled passes, resource lifetimes) that scrolls and
//! zooms, memory maps per block, tables (history resources among them: buffering, physical
//! resources, and the passes that hand their content to the next frame, also drawn on the
//! timeline as dashed edges to the frame's end and from its start), for a plan that overlaps
//! frames a second lane drawing of two consecutive frames (frame N's async tail beside frame
//! N+1's graphics head, the cross-frame wait, doubled and re-placed resources and the memory
//! the overlap adds), and a side panel with
//! the details of whatever is hovered or clicked. Nothing is fetched: no network, no fonts, no CDN.
//!
//! Labels: byte sizes and counts follow [`crate::format`]; a name that does not fit its box
//! (pass, render pass, culled pass, resource, memory placement) is elided with an ellipsis to
//! the width the page's font measures, and every such shape carries an SVG `<title>` with the
//! full text; names and stage lists get `<wbr>` after `_ | / .`, so they wrap at those
//! boundaries, never mid-word unless one word alone is wider than its box. A URL fragment
//! naming an item (`page.html#rp:2`, `#p:5`, `#r:0`, `#b:1`, `#s:0`, `#c:0`, `#h:0`) opens the page
//! with its details pinned; pinning updates the fragment.
//!
//! Markers for tests: when the script finishes it sets `data-viewer="ok"` (and the time it
//! took in `data-viewer-ms`) on `<html>`; an uncaught error sets `data-viewer-error` instead.
//! Cost: O(size of the model) here; the script's work is linear in it too.

use crate::diff::PlanDiff;
use crate::model::Page;
use serde::Serialize;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What the script reads.
#[derive(Serialize)]
struct Data<'a> {
    page: &'a Page,
    diff: Option<DiffData<'a>>,
}

#[derive(Serialize)]
struct DiffData<'a> {
    against: &'a str,
    diff: &'a PlanDiff,
    text: String,
}

/// JSON safe inside a `<script>` element: `<`, `>` and `&` only occur inside JSON strings,
/// where their `\u` escapes mean the same.
fn script_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|e| {
            log::error!("page data does not serialize: {e}");
            "null".to_string()
        })
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The HTML page of `page`; with `diff`, also the changes against the plan named `against`.
pub fn html(page: &Page, diff: Option<(&str, &PlanDiff)>) -> String {
    let data = Data {
        page,
        diff: diff.map(|(against, diff)| DiffData {
            against,
            diff,
            text: diff.to_string(),
        }),
    };
    let title = escape(&page.name);
    let mut s = String::with_capacity(64 * 1024);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str(&format!("<title>{title} · Tessera render graph</title>\n"));
    s.push_str(
        "<script>window.onerror=function(m,src,l,c){document.documentElement.setAttribute('data-viewer-error',String(m)+' at '+l+':'+c);};</script>\n",
    );
    s.push_str("<style>\n");
    s.push_str(CSS);
    s.push_str("</style>\n</head>\n<body>\n");
    s.push_str(&format!(
        "<header><h1>{title}</h1><p class=\"sub\">Tessera render graph · compiled plan</p></header>\n"
    ));
    s.push_str(SKELETON);
    s.push_str("<script type=\"application/json\" id=\"tessera-data\">");
    s.push_str(&script_json(&data));
    s.push_str("</script>\n<script>\n");
    s.push_str(JS);
    s.push_str("</script>\n</body>\n</html>\n");
    s
}

/// The static sections the script fills.
const SKELETON: &str = r#"<div id="layout">
<main>
<section id="totals" class="cards"></section>
<section id="diff-section" hidden><h2 id="diff-title">Changes</h2><div id="diff"></div></section>
<section><h2>Timeline</h2>
<div class="toolbar"><button id="zoom-out" title="Zoom out">&minus;</button><button id="zoom-in" title="Zoom in">+</button><button id="zoom-fit" title="Fit the width">fit</button><button id="zoom-one" title="Actual size">1:1</button>
<span class="hint">Ctrl+wheel zooms at the cursor, drag pans, wheel scrolls; hover or click for details.</span></div>
<div id="legend" class="legend"></div>
<div id="timeline" class="scroll"></div></section>
<section id="overlap-section" hidden><h2>Two frames (overlapping)</h2><div id="overlap"></div></section>
<section><h2>Render passes and attachments</h2><div id="rps"></div></section>
<section><h2>Breaks</h2><div id="breaks"></div></section>
<section><h2>Memory</h2><div id="memory"></div></section>
<section id="history-section" hidden><h2>History (kept from one frame to the next)</h2><div id="history"></div></section>
<section><h2>Queues and semaphores</h2><div id="sync"></div></section>
<section><h2>Culled passes</h2><div id="culled"></div></section>
<section><h2>Passes and barriers</h2><div id="passes"></div></section>
</main>
<aside id="panel"><h2>Details</h2><div id="details"><p class="muted">Hover or click a pass, render pass, break, semaphore or resource.</p></div></aside>
</div>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script_element() {
        let s = script_json(&"</script><!-- & >");
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "</script><!-- & >");
    }

    #[test]
    fn escape_covers_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
