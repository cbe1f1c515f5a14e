//! The viewer page in headless Chromium (Debian package `chromium`; `TESSERA_CHROMIUM`
//! overrides the binary): the page of the deferred example and of a generated 1,000-pass
//! frame must load with no script error (the page's script marks `<html data-viewer="ok">`
//! when it finishes, `window.onerror` marks `data-viewer-error`), draw what the plan holds,
//! and screenshot. `TESSERA_BLESS=1` rewrites `docs/viewer-deferred.png` from the screenshot.
//!
//! The page of `tests/fixtures/long_names.json` (a real frame's shape: ~25 passes with long
//! names, tiny and large buffers) is checked from inside the browser by [`CHECK`]: every
//! label on the timeline fits its box and is the name (or an elided prefix of it) with the
//! full name in a `<title>`; no card, section or the details panel overflows; no word wraps
//! mid-word in the details panel (for every item's details) or the tables; the page's byte
//! formatter agrees with `tessera_viewer::format::bytes`.
//!
//! Timings (script time and navigation-to-ready time inside the page, the browser's wall
//! time) are printed, not asserted: run with `--nocapture` to see them.

mod common;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tessera_graph::{compile, frame_file, Capabilities, CompileOptions, Graph, Plan};
use tessera_viewer::{diff, format, html, Page};

/// One browser at a time: the machines running the suite have few cores.
static BROWSER: Mutex<()> = Mutex::new(());

const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
];

const TIMEOUT: Duration = Duration::from_secs(180);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chromium() -> String {
    let bin = std::env::var("TESSERA_CHROMIUM").unwrap_or_else(|_| "chromium".to_string());
    let found = Command::new(&bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "headless Chromium is needed for the viewer test: install the Debian package `chromium` \
         (scripts/test.sh does) or point TESSERA_CHROMIUM at a Chromium binary"
    );
    bin
}

/// A fresh directory for one page, its browser profile and screenshot; removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tessera-viewer-{}-{name}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs Chromium on `page` with `extra` flags and a fresh profile; returns stdout and the
/// wall time. Fails the test on a non-zero exit or after [`TIMEOUT`].
fn run_browser(dir: &Path, page: &Path, extra: &[String]) -> (String, Duration) {
    let profile = dir.join(format!("profile-{}", extra.len()));
    let mut cmd = Command::new(chromium());
    cmd.args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("chromium starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish {} within {TIMEOUT:?}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let wall = start.elapsed();
    let out = reader.join().expect("stdout reader");
    assert!(
        status.success(),
        "chromium failed on {}: {status}",
        page.display()
    );
    (out, wall)
}

/// What the page reported about itself.
#[derive(Debug)]
struct Loaded {
    /// The DOM after the page's script ran.
    dom: String,
    /// `data-viewer` of `<html>` ("ok" when the script finished).
    status: Option<String>,
    /// `data-viewer-error`, set by `window.onerror`.
    error: Option<String>,
    /// Milliseconds the script took.
    script_ms: Option<f64>,
    /// Milliseconds from navigation start to the end of the script.
    ready_ms: Option<f64>,
    /// Browser wall time.
    wall: Duration,
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

/// Loads `html` and dumps the DOM.
fn load(dir: &Scratch, html: &str) -> Loaded {
    let page = dir.0.join("page.html");
    std::fs::write(&page, html).expect("write page");
    let (dom, wall) = run_browser(&dir.0, &page, &["--dump-dom".to_string()]);
    let tag_start = dom.find("<html").expect("dumped DOM has <html>");
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').expect("tag end")];
    Loaded {
        status: attribute(tag, "data-viewer"),
        error: attribute(tag, "data-viewer-error"),
        script_ms: attribute(tag, "data-viewer-ms").and_then(|v| v.parse().ok()),
        ready_ms: attribute(tag, "data-viewer-load-ms").and_then(|v| v.parse().ok()),
        dom,
        wall,
    }
}

/// Loads `html` with `script` run after the page's own, in a window of `width` x `height`,
/// and dumps the DOM.
fn load_checked(dir: &Scratch, html: &str, script: &str, width: u32, height: u32) -> Loaded {
    let marker = "</body>";
    let at = html.rfind(marker).expect("page has </body>");
    let text = format!(
        "{}<script>\n{script}\n</script>\n{}",
        &html[..at],
        &html[at..]
    );
    let page = dir.0.join("page.html");
    std::fs::write(&page, text).expect("write page");
    let (dom, wall) = run_browser(
        &dir.0,
        &page,
        &[
            "--dump-dom".to_string(),
            format!("--window-size={width},{height}"),
        ],
    );
    let tag_start = dom.find("<html").expect("dumped DOM has <html>");
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').expect("tag end")];
    Loaded {
        status: attribute(tag, "data-viewer"),
        error: attribute(tag, "data-viewer-error"),
        script_ms: attribute(tag, "data-viewer-ms").and_then(|v| v.parse().ok()),
        ready_ms: attribute(tag, "data-viewer-load-ms").and_then(|v| v.parse().ok()),
        dom,
        wall,
    }
}

/// Screenshots the page already written by [`load`]; returns the PNG bytes.
fn screenshot(dir: &Scratch, width: u32, height: u32) -> Vec<u8> {
    let png = dir.0.join("shot.png");
    run_browser(
        &dir.0,
        &dir.0.join("page.html"),
        &[
            format!("--screenshot={}", png.display()),
            format!("--window-size={width},{height}"),
        ],
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((w, h), (width, height), "screenshot size");
    assert!(
        bytes.len() > 20_000,
        "screenshot is not blank ({} bytes)",
        bytes.len()
    );
    bytes
}

/// Occurrences of `prefix` followed by a digit (markup the script drew, not its source).
fn drawn(dom: &str, prefix: &str) -> usize {
    dom.match_indices(prefix)
        .filter(|(i, _)| {
            dom[i + prefix.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .count()
}

fn assert_clean(label: &str, l: &Loaded) {
    assert_eq!(l.error, None, "{label}: the page's script threw");
    assert_eq!(
        l.status.as_deref(),
        Some("ok"),
        "{label}: the script did not finish"
    );
    eprintln!(
        "{label}: script {:.1} ms, navigation to ready {:.1} ms, browser wall {:.2} s",
        l.script_ms.unwrap_or(f64::NAN),
        l.ready_ms.unwrap_or(f64::NAN),
        l.wall.as_secs_f64()
    );
}

fn deferred() -> (Graph, Plan) {
    let (g, caps) =
        frame_file::load(&repo().join("assets/graphs/deferred.json")).expect("deferred loads");
    let plan = compile(&g, &caps, &CompileOptions::ALL).expect("deferred compiles");
    (g, plan)
}

#[test]
fn deferred_page_loads_draws_the_plan_and_screenshots() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, plan) = deferred();
    let page = Page::build(&graph, &plan);
    let dir = Scratch::new("deferred");
    let l = load(&dir, &html::html(&page, None));
    assert_clean("deferred", &l);
    // Every kept pass is drawn (six fit in view), the culled one too, and the bytes shown
    // are the plan's.
    assert_eq!(drawn(&l.dom, "id=\"pb"), plan.order.len());
    // Culled passes: on the timeline and in the table.
    assert_eq!(drawn(&l.dom, "data-k=\"c:"), plan.culled.len() * 2);
    let planned = plan.bandwidth.load_bytes + plan.bandwidth.store_bytes;
    let shown = tessera_viewer::format::bytes(planned);
    assert!(l.dom.contains(&shown), "planned bandwidth {shown} shown");
    assert!(l.dom.contains("debug_overlay"), "culled pass listed");
    let png = screenshot(&dir, 1400, 1250);
    if std::env::var("TESSERA_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(repo().join("docs/viewer-deferred.png"), png).expect("write docs png");
    }
}

#[test]
fn thousand_pass_page_loads_and_draws_only_what_is_in_view() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, caps) = common::frame_with_passes(7, 1000, true);
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("generated frame compiles");
    assert!(plan.order.len() >= 1000, "{} passes", plan.order.len());
    let page = Page::build(&graph, &plan);
    let text = html::html(&page, None);
    let dir = Scratch::new("big");
    let l = load(&dir, &text);
    assert_clean(&format!("{}-pass page", plan.order.len()), &l);
    let boxes = drawn(&l.dom, "id=\"pb");
    assert!(
        boxes > 0 && boxes < plan.order.len(),
        "the timeline draws the passes in view, not all: {boxes}"
    );
    assert!(!plan.syncs.is_empty() && !plan.breaks.is_empty());
    screenshot(&dir, 1400, 1000);
}

#[test]
fn a_script_error_is_caught() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, plan) = deferred();
    let good = html::html(&Page::build(&graph, &plan), None);
    let bad = good.replacen("\n  totals();\n", "\n  totals();\n  null.boom();\n", 1);
    assert_ne!(
        good, bad,
        "the script's call sequence changed: update this test"
    );
    let dir = Scratch::new("throws");
    let l = load(&dir, &bad);
    assert!(l.error.is_some(), "window.onerror marked the page");
    assert_eq!(l.status, None, "the script did not claim success");
}

#[test]
fn diff_page_shows_the_changes() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, plan) = deferred();
    let old = compile(
        &graph,
        &frame_file::load(&repo().join("assets/graphs/deferred.json"))
            .unwrap()
            .1,
        &CompileOptions::NONE,
    )
    .unwrap();
    let d = diff::diff(&old, &plan);
    let dir = Scratch::new("diff");
    let l = load(
        &dir,
        &html::html(&Page::build(&graph, &plan), Some(("no-optimize.json", &d))),
    );
    assert_clean("diff", &l);
    assert!(l.dom.contains("Changes against no-optimize.json"));
    assert!(l.dom.contains(&format!("merged pairs: {}", d.merged.len())));
}

/// Run inside the page after its script: checks what the page drew and writes the findings
/// to `<html data-check-*>` attributes (`|`-separated; `fails` empty when all is well).
const CHECK: &str = r#"(function () {
  var P = JSON.parse(document.getElementById('tessera-data').textContent).page;
  var fails = [], labels = 0, titles = 0, states = 0, words = 0;
  function fail(s) { if (fails.length < 60) fails.push(s.replace(/[|"]/g, "'")); }
  // Words (runs of letters and digits) on one line: a word whose parts sit on different
  // lines wrapped mid-word.
  var range = document.createRange();
  function wholeWords(root, where) {
    if (!root) return;
    var walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), n, m, re = /[A-Za-z0-9]{2,}/g;
    while ((n = walk.nextNode())) {
      re.lastIndex = 0;
      while ((m = re.exec(n.data))) {
        range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
        var rects = range.getClientRects();
        if (!rects.length) continue;
        words++;
        for (var i = 1; i < rects.length; i++) if (Math.abs(rects[i].top - rects[0].top) > 2) { fail(where + ': "' + m[0] + '" wraps mid-word'); break; }
      }
    }
  }
  function fits(el, where) {
    if (el.scrollWidth > el.clientWidth + 1) fail(where + ' overflows: ' + el.scrollWidth + ' > ' + el.clientWidth);
  }
  function labelOf(name, label) {
    if (label === name) return true;
    var i = label.indexOf('\u2026');
    if (i < 1) return false;
    var head = label.slice(0, i), tail = label.slice(i + 1);
    return name.indexOf(head) === 0 && (tail === '' || name.slice(-tail.length) === tail) && head.length + tail.length < name.length;
  }
  document.querySelectorAll('#tl g.hit').forEach(function (g) {
    var k = g.getAttribute('data-k') || '', m = /^(p|rp|c):(\d+)$/.exec(k);
    if (!m) return;
    var t = g.querySelector('title'), rect = g.querySelector('rect'), text = g.querySelector('text');
    var full = m[1] === 'p' ? P.passes[+m[2]].name : m[1] === 'c' ? P.culled[+m[2]].name + ' (culled)' : null;
    if (!t) fail(k + ': no <title>');
    else {
      titles++;
      if (full !== null && t.textContent !== full) fail(k + ': title "' + t.textContent + '" is not "' + full + '"');
    }
    if (!text) { if (m[1] !== 'rp') fail(k + ': a box with no label'); return; }
    labels++;
    var label = text.textContent, bb = text.getBBox(), x = +rect.getAttribute('x'), w = +rect.getAttribute('width');
    if (bb.x < x - 0.5 || bb.x + bb.width > x + w + 0.5) fail(k + ': label "' + label + '" (' + bb.width.toFixed(1) + ' wide) leaves its box (' + w + ' wide)');
    if (/^s\d+$/.test(label)) fail(k + ': placeholder label ' + label);
    var name = m[1] === 'p' ? P.passes[+m[2]].name : m[1] === 'c' ? P.culled[+m[2]].name : null;
    if (name !== null && !labelOf(name, label)) fail(k + ': label "' + label + '" is not the name "' + name + '" or a prefix of it');
    if (m[1] === 'rp' && t) {
      // The longest of its short forms that fits: 'RP 2 · 3 sub · 15.8 MiB', 'RP 2', '2', ...
      var pieces = label.split(' \u00b7 '), n = m[2];
      var ok = ['RP ' + n, 'RP' + n, n].indexOf(pieces[0]) >= 0 && pieces.slice(1).every(function (p) { return t.textContent.indexOf(p) >= 0 || /^\d+ sub$/.test(p); });
      if (!ok) fail(k + ': label "' + label + '" is not a short form of "' + t.textContent + '"');
    }
  });
  document.querySelectorAll('.card, section, #panel').forEach(function (el, i) { fits(el, (el.id || el.className || el.tagName) + ' ' + i); });
  ['totals', 'rps', 'breaks', 'memory', 'sync', 'culled', 'passes'].forEach(function (id) { wholeWords(document.getElementById(id), id); });
  // Every item's details, pinned by a click.
  var lists = { p: P.passes, r: P.resources, b: P.breaks, rp: P.render_passes, s: P.syncs, c: P.culled };
  Object.keys(lists).forEach(function (kind) {
    lists[kind].forEach(function (_, i) {
      var el = document.querySelector('[data-k="' + kind + ':' + i + '"]');
      if (!el) return;
      el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      states++;
      fits(document.getElementById('panel'), 'details of ' + kind + ':' + i);
      wholeWords(document.getElementById('details'), 'details of ' + kind + ':' + i);
    });
  });
  var F = window.tesseraFormat, root = document.documentElement;
  root.setAttribute('data-check-bytes', BYTES.map(function (b) { return F.bytes(b); }).join('|'));
  root.setAttribute('data-check-fails', fails.join('|'));
  root.setAttribute('data-check-counts', [labels, titles, states, words].join(','));
})();"#;

fn long_names(profile: &str) -> (Graph, Plan) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/long_names.json");
    let (g, _) = frame_file::load(&path).expect("long_names fixture loads");
    let caps = Capabilities::profile(profile).expect("known profile");
    let plan = compile(&g, &caps, &CompileOptions::ALL).expect("long_names compiles");
    (g, plan)
}

/// `&quot;` and friends back to text.
fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn long_names_fit_wrap_at_words_and_show_sizes_and_counts_right() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let bytes_js = format!(
        "var BYTES = [{}];\n",
        format::BYTES_CASES
            .iter()
            .map(|c| c.0.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    // Wide (details beside the timeline) and narrow (one column, a squeezed timeline).
    for (profile, width, height) in [
        ("mali", 1600, 1000),
        ("desktop", 1600, 1000),
        ("mali", 820, 1200),
    ] {
        let (graph, plan) = long_names(profile);
        let page = Page::build(&graph, &plan);
        let dir = Scratch::new(&format!("long-{profile}"));
        let l = load_checked(
            &dir,
            &html::html(&page, None),
            &format!("{bytes_js}{CHECK}"),
            width,
            height,
        );
        let profile = format!("{profile} at {width}x{height}");
        assert_clean(&format!("long_names, {profile}"), &l);
        let tag_start = l.dom.find("<html").unwrap();
        let tag = &l.dom[tag_start..tag_start + l.dom[tag_start..].find('>').unwrap()];
        let check = |name: &str| {
            unescape(
                &attribute(tag, name)
                    .unwrap_or_else(|| panic!("{profile}: the check ran ({name})")),
            )
        };
        // Labels fit, every shape has its full name on hover, nothing overflows or wraps
        // mid-word.
        let fails = check("data-check-fails");
        assert!(
            fails.is_empty(),
            "{profile}:\n  {}",
            fails.replace('|', "\n  ")
        );
        // The page formats bytes as the crate does.
        let shown = check("data-check-bytes");
        let expected: Vec<&str> = format::BYTES_CASES.iter().map(|c| c.1).collect();
        assert_eq!(
            shown.split('|').collect::<Vec<_>>(),
            expected,
            "{profile}: page.js bytes()"
        );
        let counts: Vec<usize> = check("data-check-counts")
            .split(',')
            .map(|n| n.parse().expect("a count"))
            .collect();
        let (labels, titles, states, words) = (counts[0], counts[1], counts[2], counts[3]);
        eprintln!("{profile}: {labels} labels, {titles} titles, {states} detail states, {words} words checked");
        let shapes = plan.order.len() + plan.render_passes.len() + plan.culled.len();
        assert_eq!(
            titles, shapes,
            "{profile}: every pass, render pass and culled pass is drawn with a <title>"
        );
        assert!(
            labels >= plan.order.len(),
            "{profile}: every pass box has a label ({labels})"
        );
        assert!(
            states >= plan.order.len() + page.resources.len(),
            "{profile}: details opened ({states})"
        );
        assert!(words > 1000, "{profile}: words checked ({words})");
        // Sizes with a unit that fits: the 16-byte exposure buffer and the 1 KiB constants.
        let text = &l.dom;
        assert!(
            !text.contains("0.00 MiB"),
            "{profile}: a small size shown as 0.00 MiB"
        );
        assert!(
            text.contains("exposure \u{b7} 16 B"),
            "{profile}: exposure shown as 16 B"
        );
        assert!(
            text.contains("frame constants \u{b7} 1.0 KiB"),
            "{profile}: frame constants shown as 1.0 KiB"
        );
        // Counted nouns agree with their counts.
        for noun in [
            "breaks",
            "attachments",
            "subpasses",
            "passes",
            "resources",
            "blocks",
            "barriers",
        ] {
            for sep in [" ", "\u{a0}"] {
                let bad = format!(">1{sep}{noun}");
                let bad2 = format!(" 1{sep}{noun}");
                assert!(
                    !text.contains(&bad) && !text.contains(&bad2),
                    "{profile}: '1 {noun}' shown"
                );
            }
        }
        assert!(
            text.contains("1 attachment \u{b7}"),
            "{profile}: a one-attachment render pass is counted right"
        );
        if profile.starts_with("mali") {
            assert!(
                text.contains("1 subpass \u{b7}"),
                "{profile}: a one-subpass render pass"
            );
        }
    }
}

/// The page of the TAA example: its history section lists the double-buffered history with
/// both physical resources and the single exposure; the timeline draws each history's edge
/// to the next frame; the resource rows say which physical resource they are.
#[test]
fn taa_page_shows_history_resources() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, caps) =
        frame_file::load(&repo().join("assets/graphs/taa.json")).expect("taa loads");
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("taa compiles");
    let page = Page::build(&graph, &plan);
    let dir = Scratch::new("taa");
    let l = load(&dir, &html::html(&page, None));
    assert_clean("taa", &l);
    let section = l
        .dom
        .find("id=\"history-section\"")
        .map(|i| &l.dom[i..])
        .expect("a history section");
    assert!(
        !section[..section.find('>').unwrap_or(0)].contains("hidden"),
        "the history section is shown"
    );
    for needle in [
        "A taa_<wbr>history + B taa_<wbr>history (previous), swapped each frame",
        "<span class=\"tag hist\">double</span>",
        "<span class=\"tag hist\">single</span>",
        "next frame \u{21bb} taa_history",
        "next frame \u{21bb} exposure",
        "taa_history (previous) \u{b7} history, physical B",
    ] {
        assert!(l.dom.contains(needle), "page shows {needle:?}");
    }
    // Table rows and timeline edges, one of each per history resource.
    assert_eq!(drawn(&l.dom, "data-k=\"h:"), 2 * plan.history.len());
    screenshot(&dir, 1400, 900);
}

#[test]
fn ibl_page_shows_skipped_passes_apart() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, caps) =
        frame_file::load(&repo().join("assets/graphs/ibl.json")).expect("ibl loads");
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("ibl compiles");
    assert_eq!(plan.skipped, ["brdf lut"]);
    let page = Page::build(&graph, &plan);
    let dir = Scratch::new("ibl");
    let l = load(&dir, &html::html(&page, None));
    assert_clean("ibl", &l);
    for needle in [
        "<span class=\"tag skipped\">skipped (outputs still valid)</span>",
        "(skipped: outputs still valid)",
    ] {
        assert!(l.dom.contains(needle), "page shows {needle:?}");
    }
    screenshot(&dir, 1400, 900);
}

/// A frame that overlaps the next: the async post pass is the tail, and the next frame's
/// raster work waits for it (it overwrites what post reads).
fn overlapping_with_wait() -> (Graph, Plan) {
    use tessera_graph::graph::QueueKind;
    use tessera_graph::{Access, Format, ImageDesc};
    let mut g = Graph::new("w");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
    let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
    let ldr = g.image("ldr", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(ldr).origin = tessera_graph::Origin::Imported(Default::default());
    g.raster("prepass").clears(depth, Access::DepthWrite).id();
    g.raster("shade")
        .uses(depth, Access::DepthRead)
        .clears(hdr, Access::ColorWrite)
        .id();
    g.compute("post")
        .on_queue(QueueKind::AsyncCompute)
        .uses(hdr, Access::Sampled)
        .uses(ldr, Access::StorageWrite)
        .id();
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
    (g, plan)
}

/// A plan with `frame_overlap` gets the two-frame lanes: every pass once per frame, the
/// cross-frame wait, where the head ends, and the overlap's memory; a plan without gets none.
#[test]
fn overlapping_page_draws_two_frames() {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let (graph, plan) = overlapping_with_wait();
    let o = plan
        .frame_overlap
        .as_ref()
        .expect("the plan overlaps frames");
    assert!(!o.waits.is_empty());
    let dir = Scratch::new("overlap");
    let l = load(&dir, &html::html(&Page::build(&graph, &plan), None));
    assert_clean("overlap", &l);
    let section = l
        .dom
        .find("id=\"overlap-section\"")
        .map(|i| &l.dom[i..])
        .expect("an overlap section");
    assert!(
        !section[..section.find('>').unwrap_or(0)].contains("hidden"),
        "the two-frame section is shown"
    );
    let n = plan.order.len();
    assert_eq!(l.dom.matches("tf-pass\" data-frame=\"0\"").count(), n);
    assert_eq!(l.dom.matches("tf-pass\" data-frame=\"1\"").count(), n);
    // (The page's script holds these class names too: match what only drawing makes.)
    assert_eq!(
        l.dom.matches("class=\"tf-wait\"><title>frame N+1 ").count(),
        o.waits.len()
    );
    let w = &o.waits[0];
    let budget = format!(
        "<dt>budget</dt><dd>{} · {:.1}% used</dd>",
        format::bytes(o.budget_bytes),
        100.0 * o.extra_bytes as f64 / o.budget_bytes as f64
    );
    for needle in [
        format!("<title>the head ends at {}</title>", o.head_end),
        format!("frame N+1 {} waits for frame N {}", w.wait, w.signal),
        ">frame N</text>".to_string(),
        ">frame N+1</text>".to_string(),
        format!(
            "<dt>extra memory</dt><dd>{} ({} B)</dd>",
            format::bytes(o.extra_bytes),
            o.extra_bytes
        ),
        budget,
        "<th>frame N+1 pass waits</th>".to_string(),
    ] {
        assert!(l.dom.contains(&needle), "page shows {needle:?}");
    }
    // Without frame_overlap: the section stays hidden and empty.
    let mut plain = plan.clone();
    plain.frame_overlap = None;
    let l = load(&dir, &html::html(&Page::build(&graph, &plain), None));
    assert_clean("no overlap", &l);
    assert!(l
        .dom
        .contains("<section id=\"overlap-section\" hidden=\"\">"));
    assert!(!l.dom.contains("data-frame=\"0\""));
}
