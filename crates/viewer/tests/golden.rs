//! Graphviz output of example frames against committed goldens (`tests/golden/*.dot`), and
//! the HTML page's self-containment. `TESSERA_BLESS=1` rewrites the goldens; review the
//! change with `git diff` before committing it.

use std::path::{Path, PathBuf};
use tessera_graph::{compile, frame_file, CompileOptions};
use tessera_viewer::{dot, html, Page};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn page(frame: &str) -> Page {
    let (g, caps) = frame_file::load(&repo().join(format!("assets/graphs/{frame}.json")))
        .expect("example loads");
    let plan = compile(&g, &caps, &CompileOptions::ALL).expect("example compiles");
    Page::build(&g, &plan)
}

#[test]
fn dot_matches_goldens() {
    let mut failures = Vec::new();
    for frame in [
        "deferred",
        "async_scenario1",
        "tile_msaa",
        "postprocess",
        "taa",
    ] {
        let actual = dot::dot(&page(frame));
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{frame}.dot"));
        if std::env::var("TESSERA_BLESS").is_ok_and(|v| v == "1") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(expected.lines().count().min(actual.lines().count()));
            failures.push(format!(
                "{}: differs at line {} (TESSERA_BLESS=1 rewrites it):\n  golden: {}\n  now:    {}",
                path.display(),
                line + 1,
                expected.lines().nth(line).unwrap_or("<end>"),
                actual.lines().nth(line).unwrap_or("<end>")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dot_has_every_pass_sync_and_break() {
    let p = page("async_scenario1");
    let d = dot::dot(&p);
    for row in &p.passes {
        assert!(
            d.contains(&format!("\"{}\" [label=", row.name)),
            "{}",
            row.name
        );
    }
    assert_eq!(d.matches("label=\"semaphore ").count(), p.syncs.len());
    assert_eq!(d.matches("label=\"break · ").count(), p.breaks.len());
    assert_eq!(
        d.matches("subgraph cluster_rp").count(),
        p.render_passes.len()
    );
}

#[test]
fn html_is_self_contained() {
    for frame in ["deferred", "postprocess", "tile_msaa"] {
        let text = html::html(&page(frame), None);
        for needle in [
            "<link",
            " src=",
            "@import",
            "url(http",
            "fetch(",
            "XMLHttpRequest",
        ] {
            assert!(!text.contains(needle), "{frame}: page contains {needle}");
        }
        // The only URL is the SVG namespace.
        for (i, _) in text.match_indices("http") {
            assert!(
                text[i..].starts_with("http://www.w3.org/2000/svg"),
                "{frame}: unexpected URL {}",
                &text[i..(i + 40).min(text.len())]
            );
        }
        assert!(text.contains(&format!("<title>{frame} ")));
    }
}

/// History resources in the digraph: the pair's two physical resources, swapped each
/// frame, the single one, and the dashed "next frame" edges from the last writer to the
/// first reader of the previous content.
#[test]
fn dot_shows_history_pairs_and_next_frame_edges() {
    let p = page("taa");
    let d = dot::dot(&p);
    assert!(d.contains("subgraph cluster_history"), "{d}");
    assert!(
        d.contains("\"history: taa_history\" [label=\"taa_history\\nphysical A"),
        "{d}"
    );
    assert!(
        d.contains(
            "\"history: taa_history (previous)\" [label=\"taa_history (previous)\\nphysical B"
        ),
        "{d}"
    );
    assert!(
        d.contains("\"history: taa_history\" -> \"history: taa_history (previous)\" [label=\"double-buffered, swapped each frame\""),
        "{d}"
    );
    assert!(
        d.contains("\"history: exposure\" [label=\"exposure\\nsingle · one physical resource"),
        "{d}"
    );
    let next = |from: &str, to: &str, resource: &str| {
        d.lines().any(|l| {
            l.starts_with(&format!(
                "  \"{from}\" -> \"{to}\" [label=\"next frame · {resource}\""
            )) && l.contains("style=dashed")
        })
    };
    assert!(next("taa_resolve", "taa_resolve", "taa_history"), "{d}");
    assert!(next("adapt_exposure", "tonemap", "exposure"), "{d}");
    // A frame without history resources has none of it.
    let plain = dot::dot(&page("deferred"));
    assert!(!plain.contains("history") && !plain.contains("next frame"));
}
