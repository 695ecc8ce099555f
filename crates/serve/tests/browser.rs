//! The page in a real browser (headless Chromium over the DevTools protocol): load a file
//! under the root, assign keys, see the risk, add a defence and an attack, run, and check that
//! the exported experiment reproduces the figures shown; then the teaching walkthrough.
//! Screenshots of each step go to `target/tmp/serve-screenshots/`. Skipped, with a note, when
//! Chromium is not installed.

use std::path::PathBuf;
use std::time::Duration;

use intruder_serve::{Config, Server};
use serde_json::Value;

use crate::devtools::{Browser, chromium};
use crate::server::run_exported;

/// One browser at a time: three headless Chromiums starting at once on a loaded machine may
/// not listen within the 30 seconds `Browser::start` waits.
static ONE_BROWSER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The browser tests' turn (a test that failed while holding it does not block the others).
fn one_browser() -> std::sync::MutexGuard<'static, ()> {
    ONE_BROWSER.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where the screenshots go.
fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_session_in_the_browser_is_run_and_its_export_reproduces_it() {
    let Some(binary) = chromium() else {
        eprintln!(
            "note: no chromium at /usr/bin/chromium (or $CHROMIUM): the browser test is skipped"
        );
        return;
    };
    let _turn = one_browser();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    intruder_synth::run("survey-panel", Some(400), &[], 11, &root).unwrap();
    let server = Server::bind(&Config {
        root: Some(root.clone()),
        ..Config::default()
    })
    .unwrap()
    .spawn();
    let shots = shots();
    let mut b = Browser::start(&binary, 1280, 900);
    b.call("Page.navigate", serde_json::json!({"url": server.url}));
    b.wait_for(
        "document.body && document.body.dataset.ready === '1'",
        Duration::from_secs(30),
    );
    b.screenshot(&shots.join("01-start.png"));

    // load a file under the root
    b.eval(
        r##"document.querySelector("input[name=place][value=root]").click();
        document.getElementById("root-file").value = "survey-panel.csv";
        document.getElementById("seed").value = "11";
        document.getElementById("load").click(); true"##,
    );
    b.wait_for(
        "S.data !== null && !!document.getElementById('roles')",
        Duration::from_secs(60),
    );
    assert_eq!(b.eval("S.data.records"), Value::from(400));
    b.screenshot(&shots.join("02-loaded.png"));

    // assign keys (as a person does: the role selects, one change event each)
    b.eval(
        r##"for (const sel of document.querySelectorAll("#roles select")) {
          const key = ["year_of_birth", "gender", "occupation"].includes(sel.dataset.col);
          const v = key ? "key" : (sel.value === "truth" ? "truth" : "");
          if (sel.value !== v) { sel.value = v; sel.dispatchEvent(new Event("change")); }
        } true"##,
    );
    b.wait_for(
        r##"!!document.getElementById('risk-figures') && [...document.querySelectorAll("#risk-figures tr")].some(r => r.cells[1].textContent === "year_of_birth,gender,occupation")"##,
        Duration::from_secs(60),
    );
    let uniques = b.eval(r##"[...document.querySelectorAll("#risk-figures tr")].find(r => r.cells[0].textContent === "sample_uniques").cells[1].textContent"##);
    assert!(
        uniques.as_str().is_some_and(|u| u.parse::<u32>().is_ok()),
        "{uniques}"
    );
    b.screenshot(&shots.join("03-keys-and-risk.png"));
    b.screenshot_of("#risk", &shots.join("03b-risk-section.png"));

    // a defence setting with a grid, an attack, a utility measure
    b.eval(
        r##"document.getElementById("def-name").value = "k-anonymity";
        document.getElementById("def-add").click();
        const card = document.querySelector('[data-setting="k-anonymity"]');
        card.querySelector("select").value = "local-suppression";
        [...card.querySelectorAll("button")].find(x => x.textContent === "Add step").click();
        const k = document.querySelector('[data-setting="k-anonymity"] [data-param="k"]');
        k.value = "2, 3";
        document.getElementById("att-method").value = "exact";
        document.getElementById("att-add").click();
        document.querySelector('[data-measure="information-loss"]').click(); true"##,
    );
    b.screenshot(&shots.join("04-pipeline.png"));
    // where it runs: DataFusion offered only by a build that has it (feature cluster), the
    // memory limit asked only for it
    assert_eq!(
        b.eval(
            r##"document.querySelector('#engine option[value=datafusion]').disabled === !S.reg.engines.includes("datafusion")
              && document.getElementById("engine").value === "local"
              && document.getElementById("memory-limit").disabled"##
        ),
        Value::Bool(true)
    );
    b.screenshot_of("#run", &shots.join("04b-runs-on.png"));

    // run, and wait for the map
    run_session(&mut b);
    assert_eq!(
        b.eval("!!document.querySelector('#res-map svg')"),
        Value::Bool(true)
    );
    assert_eq!(b.eval("S.lastResult.settings.length"), Value::from(3));
    b.screenshot(&shots.join("05-results.png"));
    b.screenshot_of("#results", &shots.join("06-results-section.png"));

    // export: the page's experiment file, saved beside the data and run as `intruder run` runs it
    let toml = b.eval("S.toml");
    assert_eq!(toml, b.eval("document.getElementById('toml').textContent"));
    let file = root.join("exported.toml");
    std::fs::write(&file, toml.as_str().unwrap()).unwrap();
    let shown: Value = serde_json::from_str(
        b.eval("JSON.stringify(S.lastResult.settings)")
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let reproduced = run_exported(&file, &dir.path().join("rerun"));
    // JavaScript writes 400.0 as 400: the figures are compared as numbers
    assert_eq!(as_f64(&reproduced["settings"]), as_f64(&shown));
    assert!(
        as_f64(&shown)
            .to_string()
            .contains("exact.correct_per_target")
    );

    // a build with DataFusion (feature cluster): the same session run there gives the same
    // figures (risk and the exact attack as its plans, within a memory limit)
    if b.eval(r##"S.reg.engines.includes("datafusion")"##) == Value::Bool(true) {
        b.eval(
            r##"const e = document.getElementById("engine");
            e.value = "datafusion"; e.dispatchEvent(new Event("change"));
            document.getElementById("memory-limit").value = "256MiB"; true"##,
        );
        run_session(&mut b);
        let toml = b.eval("S.toml");
        let engine = toml
            .as_str()
            .unwrap()
            .split("[engine]\n")
            .nth(1)
            .unwrap_or("");
        assert!(
            engine.contains("name = \"datafusion\"\n")
                && engine.contains("memory_limit = \"256MiB\"\n"),
            "{toml}"
        );
        b.screenshot_of("#run", &shots.join("07-runs-on-datafusion.png"));
        let on_df: Value = serde_json::from_str(
            b.eval("JSON.stringify(S.lastResult.settings)")
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(as_f64(&on_df), as_f64(&shown));
    }
}

/// Clicks Run and waits for the session's results (four minutes at most), which must come
/// without an error.
fn run_session(b: &mut Browser) {
    b.eval(r##"S.lastResult = null; document.getElementById("run-btn").click(); true"##);
    b.wait_for(
        "S.lastResult !== null || document.getElementById('run-err').textContent !== ''",
        Duration::from_secs(240),
    );
    assert_eq!(
        b.eval("document.getElementById('run-err').textContent"),
        Value::from("")
    );
}

/// `v` with every number as a 64-bit float.
fn as_f64(v: &Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().map_or(Value::Null, Value::from),
        Value::Array(a) => Value::Array(a.iter().map(as_f64).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), as_f64(x))).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_teaching_walkthrough_runs_its_five_steps() {
    let Some(binary) = chromium() else {
        eprintln!(
            "note: no chromium at /usr/bin/chromium (or $CHROMIUM): the browser test is skipped"
        );
        return;
    };
    let _turn = one_browser();
    let server = Server::bind(&Config::default()).unwrap().spawn();
    let shots = shots();
    let mut b = Browser::start(&binary, 1280, 900);
    b.call("Page.navigate", serde_json::json!({"url": server.url}));
    b.wait_for(
        "document.body && document.body.dataset.ready === '1'",
        Duration::from_secs(30),
    );
    b.eval("document.getElementById('walk-start').click(); true");
    for step in 2..=5 {
        b.wait_for(
            "!!document.getElementById('walk-next')",
            Duration::from_secs(240),
        );
        if step == 3 {
            b.screenshot(&shots.join("10-walkthrough-step2.png"));
        }
        b.eval("document.getElementById('walk-next').click(); true");
    }
    b.wait_for(
        "S.lastResult !== null && S.lastResult.settings.length === 2 && document.querySelector('#walk-body p.help') !== null",
        Duration::from_secs(240),
    );
    let text = b.eval("document.getElementById('walk-body').textContent");
    assert!(
        text.as_str()
            .unwrap()
            .contains("Step 5 of 5: The attack again"),
        "{text}"
    );
    b.screenshot(&shots.join("11-walkthrough-step5.png"));
    b.screenshot_of("#walk", &shots.join("12-walkthrough-text.png"));
    b.screenshot_of("#results", &shots.join("13-walkthrough-results.png"));
}

#[test]
fn the_records_panel_shows_who_was_re_identified_and_why() {
    let Some(binary) = chromium() else {
        eprintln!(
            "note: no chromium at /usr/bin/chromium (or $CHROMIUM): the browser test is skipped"
        );
        return;
    };
    let _turn = one_browser();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    intruder_synth::run("survey-panel", Some(400), &[], 11, &root).unwrap();
    let server = Server::bind(&Config {
        root: Some(root.clone()),
        ..Config::default()
    })
    .unwrap()
    .spawn();
    let shots = shots();
    let mut b = Browser::start(&binary, 1280, 900);
    b.call("Page.navigate", serde_json::json!({"url": server.url}));
    b.wait_for(
        "document.body && document.body.dataset.ready === '1'",
        Duration::from_secs(30),
    );
    b.eval(
        r##"document.querySelector("input[name=place][value=root]").click();
        document.getElementById("root-file").value = "survey-panel.csv";
        document.getElementById("seed").value = "11";
        document.getElementById("load").click(); true"##,
    );
    b.wait_for(
        "S.data !== null && !!document.getElementById('roles')",
        Duration::from_secs(60),
    );
    // keys, then the exact attack and Fellegi–Sunter, run on the unmasked file
    b.eval(
        r##"for (const sel of document.querySelectorAll("#roles select")) {
          const key = ["year_of_birth", "gender", "occupation"].includes(sel.dataset.col);
          const v = key ? "key" : (sel.value === "truth" ? "truth" : "");
          if (sel.value !== v) { sel.value = v; sel.dispatchEvent(new Event("change")); }
        }
        for (const m of ["exact", "fellegi-sunter"]) {
          document.getElementById("att-method").value = m;
          document.getElementById("att-add").click();
        }
        document.getElementById("run-btn").click(); true"##,
    );
    b.wait_for(
        "!!document.querySelector('#rec-table tr[data-row]') || document.getElementById('run-err').textContent !== '' || document.getElementById('rec-err').textContent !== ''",
        Duration::from_secs(240),
    );
    assert_eq!(
        b.eval("document.getElementById('run-err').textContent + document.getElementById('rec-err').textContent"),
        Value::from("")
    );
    // the first record listed was re-identified: its pick is its true record
    assert_eq!(
        b.eval("document.querySelector('#rec-table tr[data-row]').cells[1].textContent"),
        Value::from("re-identified")
    );
    let row = b.eval("document.querySelector('#rec-table tr[data-row]').cells");
    assert!(row.is_object(), "{row}");
    b.eval("document.querySelector('#rec-table tr[data-row]').click(); true");
    b.wait_for(
        "!!document.getElementById('rec-cands')",
        Duration::from_secs(10),
    );
    let picked = b.eval(
        "[...document.querySelectorAll('#rec-cands tr.picked td')].map(td => td.textContent).pop()",
    );
    assert_eq!(picked, Value::from("picked, true record"));
    // the keys' values of the picked candidate equal the intruder's (exact matching)
    assert_eq!(
        b.eval("document.querySelectorAll('#rec-cands tr.picked td.differs').length"),
        Value::from(0)
    );
    let summary = b.eval("document.getElementById('rec-summary').textContent");
    assert!(
        summary.as_str().unwrap().contains("re-identified"),
        "{summary}"
    );
    b.screenshot_of("#records", &shots.join("20-records-exact.png"));

    // Fellegi–Sunter: the best pair's agreement pattern, one row per comparison
    b.eval(
        r##"const a = document.getElementById("rec-attack"); a.value = "fellegi-sunter";
        a.dispatchEvent(new Event("change")); true"##,
    );
    b.wait_for(
        "S.records && S.records.attack === 'fellegi-sunter' && !!document.querySelector('#rec-table tr[data-row]')",
        Duration::from_secs(120),
    );
    b.eval("document.querySelector('#rec-table tr[data-row]').click(); true");
    b.wait_for(
        "!!document.getElementById('rec-pattern')",
        Duration::from_secs(10),
    );
    // a header, the prior, and the three comparisons
    assert_eq!(
        b.eval("document.querySelectorAll('#rec-pattern tr').length"),
        Value::from(5)
    );
    let weight = b.eval("document.getElementById('rec-pattern-weight').textContent");
    assert!(
        weight.as_str().unwrap().starts_with("match weight "),
        "{weight}"
    );
    b.screenshot_of("#records", &shots.join("21-records-fellegi-sunter.png"));

    // a wrong link: the pair it picked, and the pair with the true record it passed over
    b.eval(
        r##"const s = document.getElementById("rec-status"); s.value = "wrong";
        s.dispatchEvent(new Event("change")); true"##,
    );
    b.wait_for(
        "S.records && S.records.status === 'wrong' && !!document.querySelector('#rec-table tr[data-row]')",
        Duration::from_secs(30),
    );
    assert_eq!(
        b.eval("document.querySelector('#rec-table tr[data-row]').cells[1].textContent"),
        Value::from("wrong link")
    );
    b.eval("document.querySelector('#rec-table tr[data-row]').click(); true");
    b.wait_for(
        "!!document.getElementById('rec-pattern') && !!document.getElementById('rec-true-pattern')",
        Duration::from_secs(10),
    );
    b.screenshot_of("#rec-detail", &shots.join("22-records-wrong-link.png"));
}
