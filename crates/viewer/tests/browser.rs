//! The viewer page in headless Chromium (Debian package `chromium`; `TESSERA_CHROMIUM`
//! overrides the binary): the page of the deferred example and of a generated 1,000-pass
//! frame must load with no script error (the page's script marks `<html data-viewer="ok">`
//! when it finishes, `window.onerror` marks `data-viewer-error`), draw what the plan holds,
//! and screenshot. `TESSERA_BLESS=1` rewrites `docs/viewer-deferred.png` from the screenshot.
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
use tessera_graph::{compile, frame_file, CompileOptions, Graph, Plan};
use tessera_viewer::{diff, html, Page};

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
    let shown = format!("{:.2} MiB", planned as f64 / 1048576.0);
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
