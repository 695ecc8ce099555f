//! A real Ballista cluster: the project's scheduler and two executors started as separate
//! processes on 127.0.0.1, the plans run through them and compared with the local engine; one
//! executor killed in the middle of a run; a scheduler that is not there.
//! Every process is stopped by the test.

use std::path::Path;
use std::time::Duration;

use intruder_attack::MissingPolicy;
use intruder_attack::fellegi_sunter::Term;
use intruder_data::{Input, load};
use intruder_engine::local_cluster::LocalCluster;
use intruder_engine::plans::blocking::{BlockingRequest, candidate_pairs};
use intruder_engine::{EngineSpec, exact, risk};
use intruder_risk::RiskParams;
use intruder_risk::registry::{Frequency, Individual};

use crate::common::{same_figures, survey};

/// The cluster of the tests: the binaries cargo built for them.
fn cluster(logs: &Path) -> LocalCluster {
    let bins = Path::new(env!("CARGO_BIN_EXE_intruder-scheduler"))
        .parent()
        .unwrap()
        .to_path_buf();
    LocalCluster::start(&bins, 2, logs).unwrap()
}

fn params(keys: &[&str], policy: intruder_risk::MissingPolicy) -> RiskParams {
    let mut p = RiskParams::new(keys.iter().map(|s| s.to_string()).collect());
    p.missing = policy;
    p.per_record = false;
    p
}

#[test]
fn two_executors_give_the_local_figures() {
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let (_, released) = survey(dir.path(), "r", 4000, 21, true);
    let (_, intruder) = survey(dir.path(), "i", 800, 22, false);
    let cluster = cluster(logs.path());
    let ballista = cluster.spec();
    let local = EngineSpec::default();
    let check = |r: Result<(), String>, cluster: &LocalCluster| {
        if let Err(e) = r {
            panic!("{e}\n{}", cluster.log_tails(15));
        }
    };

    // Risk: every policy, weighted.
    for policy in [
        intruder_risk::MissingPolicy::Listwise,
        intruder_risk::MissingPolicy::AsValue,
        intruder_risk::MissingPolicy::Wildcard,
    ] {
        // Two keys that may be missing: four patterns, each a job of up to three joins under
        // wildcard.
        let mut p = params(&["region", "age", "sex"], policy);
        p.weight = Some("w".into());
        for m in [
            &Frequency::new(p.clone()).unwrap() as &dyn intruder_risk::RiskMeasure,
            &Individual::new(p.clone()).unwrap(),
        ] {
            let a = risk(&local, &released, &Input::default(), m).unwrap();
            check(
                risk(&ballista, &released, &Input::default(), m)
                    .map(|b| {
                        same_figures(
                            &a.report.figures,
                            &b.report.figures,
                            &format!("ballista {policy:?}"),
                        )
                    })
                    .map_err(|e| format!("ballista risk {policy:?}: {e}")),
                &cluster,
            );
        }
    }

    // Exact, every policy: the executors scan numbered copies in the scratch directory
    // (Ballista 55 loses Parquet's row numbers); the candidates are the local engine's, and
    // the copies are gone when the run ends.
    for policy in [
        MissingPolicy::Listwise,
        MissingPolicy::AsValue,
        MissingPolicy::Wildcard,
    ] {
        let req = crate::exact::request(&intruder, &released, policy, 5);
        let a = exact(&local, &req).unwrap();
        let b = match exact(&ballista, &req) {
            Ok(b) => b,
            Err(e) => panic!("ballista exact {policy:?}: {e}\n{}", cluster.log_tails(15)),
        };
        assert_eq!(a.records, b.records, "ballista exact {policy:?}");
        assert_eq!(a.notes, b.notes, "ballista exact {policy:?}");
        let part: Vec<usize> = (0..a.records.len())
            .filter(|&i| a.records[i].in_part())
            .take(3)
            .collect();
        assert!(!part.is_empty(), "{policy:?}: a record listed in part");
        assert_eq!(
            a.lister.as_ref().unwrap().list(&part),
            b.lister.as_ref().unwrap().list(&part),
            "ballista exact {policy:?}: whole lists"
        );
        drop(b);
        assert_eq!(
            std::fs::read_dir(cluster.scratch_dir()).unwrap().count(),
            0,
            "the numbered copies are removed"
        );
    }
    // Without a scratch directory: refused, naming the option.
    let bare = EngineSpec::parse(Some(&cluster.url()), None).unwrap();
    let req = crate::exact::request(&intruder, &released, MissingPolicy::Listwise, 5);
    let e = exact(&bare, &req).unwrap_err().to_string();
    assert!(
        e.contains("--scratch-dir") && e.contains("row number"),
        "{e}"
    );

    // Blocking: the candidate pairs per rule through the cluster, as the local engine counts.
    let rules: Vec<Vec<Term>> = [&["region", "age"][..], &["sex", "job"], &["age"]]
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| Term::Column {
                    column: c.to_string(),
                })
                .collect()
        })
        .collect();
    let i = load(&intruder, &Input::default()).unwrap();
    let r = load(&released, &Input::default()).unwrap();
    let want = intruder_attack::fellegi_sunter::blocking::candidate_pairs(
        &i.table,
        &r.table,
        &rules,
        &|c: &str| c.to_string(),
    )
    .unwrap();
    let breq = BlockingRequest {
        intruder: intruder.clone(),
        intruder_input: Input::default(),
        released: released.clone(),
        released_input: Input::default(),
        rules,
        released_names: Vec::new(),
    };
    check(
        candidate_pairs(&ballista, &breq, true)
            .map(|(per_rule, listed)| {
                let want_n: Vec<u64> = want.per_rule.iter().map(|&n| n as u64).collect();
                assert_eq!(per_rule, want_n, "ballista blocking");
                let mut pairs: Vec<(usize, usize)> = want
                    .intruder
                    .iter()
                    .zip(&want.released)
                    .map(|(&a, &b)| (a as usize, b as usize))
                    .collect();
                pairs.sort_unstable();
                assert_eq!(listed.unwrap(), pairs, "ballista blocking: the pairs");
            })
            .map_err(|e| format!("ballista blocking: {e}")),
        &cluster,
    );

    // Fellegi–Sunter: its functions reach the executors with their dictionaries and model
    // (plans::shipped); the dictionaries and u's random pairs are files in the scratch
    // directory. Every assignment, u from frequencies and from random pairs.
    {
        use intruder_attack::fellegi_sunter::{Assignment, FellegiSunter, FsParams, LinkageSpec};
        let (a, b, bq) = crate::linkage::people(dir.path(), 3000, 2000, 9);
        let spec = LinkageSpec::from_toml(crate::linkage::TF_SPEC, "spec.toml").unwrap();
        let renamed = vec![
            ("last".to_string(), "surname".to_string()),
            ("id".to_string(), "rid".to_string()),
        ];
        let ti = load(&a, &Input::default()).unwrap().table;
        let tr = load(&b, &Input::default()).unwrap().table;
        // and Splink's recipe (sessions on their own rules, λ from deterministic rules)
        let training =
            LinkageSpec::from_toml(&crate::linkage::training_spec(true), "spec.toml").unwrap();
        // and blocking terms that derive a value from a column (their keys made from the
        // distinct values on the client, joined back on the executors)
        let derived = LinkageSpec::from_toml(
            &crate::linkage::TF_SPEC.replace(
                r#"blocking = [["town", "year"], ["last"], ["first", "town"]]"#,
                r#"blocking = [["first_letter(last)", "year"], ["soundex(first)", "town"]]"#,
            ),
            "spec.toml",
        )
        .unwrap();
        assert_eq!(derived.blocking[1][0].label(), "soundex(first)");
        // and Splink's swapped names: a blocking rule on two different columns,
        // columns-reversed levels (the other columns' ids joined to the records, their values
        // in the functions' payload)
        let bs = crate::linkage::with_swapped_names(dir.path(), &b, "swapped.csv");
        let ts = load(&bs, &Input::default()).unwrap().table;
        let swapped = LinkageSpec::from_toml(&crate::linkage::swapped_spec(), "spec.toml").unwrap();
        for (assignment, u_sample, released, spec) in [
            (Assignment::Greedy, Some(500), &bq, &spec),
            (Assignment::None, None, &b, &spec),
            (Assignment::Optimal, Some(500), &bq, &spec),
            (Assignment::Greedy, None, &b, &training),
            (Assignment::Greedy, None, &bq, &derived),
            (Assignment::Greedy, None, &bs, &swapped),
        ] {
            let tr = if released == &bs { &ts } else { &tr };
            let (fs, want) = crate::linkage::local_run(spec, assignment, u_sample, (&ti, tr));
            let req = crate::linkage::request(&a, released, spec, &renamed);
            let got = match intruder_engine::plans::linkage::link(&ballista, &req, &fs, 11) {
                Ok(g) => g,
                Err(e) => panic!(
                    "ballista fellegi-sunter {assignment:?}: {e}\n{}",
                    cluster.log_tails(15)
                ),
            };
            crate::linkage::same_linked(&want, &got, &format!("ballista {assignment:?}"));
            if released == &bs {
                let dims = (ti.nrows(), tr.nrows());
                crate::linkage::same_answers(&want, &got, dims, "ballista, swapped names", true);
            }
        }
        assert_eq!(
            std::fs::read_dir(cluster.scratch_dir()).unwrap().count(),
            0,
            "the dictionaries' and samples' files are removed"
        );
        // Without a scratch directory: refused, naming the option.
        let req = crate::linkage::request(&a, &bq, &spec, &renamed);
        let fs = FellegiSunter::new(FsParams {
            spec: Some(spec.clone()),
            ..FsParams::default()
        })
        .unwrap();
        let e = intruder_engine::plans::linkage::link(&bare, &req, &fs, 11)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--scratch-dir"), "{e}");
    }

    drop(cluster);
}

/// A lost executor: one of two is killed while a wildcard run (many joins) is under way; the
/// run fails at once with an error that names the killed executor, or (when the run was
/// already done) gives the local figures.
///
/// Ballista 55 alone does not do this: with its defaults the scheduler resets the lost
/// executor's tasks, then logs "Can't find active stage to update stage output" and the job
/// makes no progress for minutes (a run took 617 s); with executors that ask for work and the
/// static planner a linkage completed with wrong figures (docs/cluster.md). The client's
/// watchdog (`plans::watchdog`) sees the executor's port close, cancels the run's jobs and
/// fails the run.
#[test]
fn a_lost_executor_never_gives_wrong_figures() {
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let mut cluster = cluster(logs.path());
    let ballista = cluster.spec();
    let local = EngineSpec::default();
    // A lost executor: one is killed while a wildcard run (many joins) is under way. The run
    // either fails with an error naming the engine, or completes with the local figures.
    let (_, big) = survey(dir.path(), "big", 20_000, 23, false);
    let m = Frequency::new(params(
        &["region", "age", "job"],
        intruder_risk::MissingPolicy::Wildcard,
    ))
    .unwrap();
    let expected = risk(&local, &big, &Input::default(), &m).unwrap();
    let spec = ballista.clone();
    let big2 = big.clone();
    let run = std::thread::spawn(move || {
        let m = Frequency::new(params(
            &["region", "age", "job"],
            intruder_risk::MissingPolicy::Wildcard,
        ))
        .unwrap();
        risk(&spec, &big2, &Input::default(), &m)
    });
    std::thread::sleep(Duration::from_millis(1500));
    // The kill tells something only while the run is under way.
    let in_flight = !run.is_finished();
    let killed = format!("127.0.0.1:{}", cluster.executor_port(1).unwrap());
    let at = std::time::Instant::now();
    assert!(cluster.kill_executor(1));
    let got = run.join().unwrap();
    let took = at.elapsed();
    match got {
        Ok(out) => {
            same_figures(
                &expected.report.figures,
                &out.report.figures,
                "after a lost executor",
            );
            eprintln!(
                "the run completed with the local figures after a lost executor (killed in flight: {in_flight})"
            );
        }
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.starts_with("--engine ballista://127.0.0.1:"),
                "unclear error: {e}"
            );
            assert!(
                e.contains(&killed),
                "the error names the lost executor: {e}"
            );
            assert!(e.contains("No figures are reported"), "{e}");
            // Stopped by the watchdog, not after Ballista's minutes-long stall (the watchdog
            // looks twice a second; 30 s leaves room for a loaded machine).
            assert!(
                took < Duration::from_secs(30),
                "stopped after {took:?}: {e}"
            );
            eprintln!("the run failed clearly after a lost executor, {took:?} after it: {e}");
        }
    }
    drop(cluster);
}

/// No scheduler at the address: the run fails before any plan, naming the address.
#[test]
fn a_scheduler_that_is_not_there_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, data) = survey(dir.path(), "r", 50, 21, true);
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let spec =
        intruder_engine::EngineSpec::parse(Some(&format!("ballista://127.0.0.1:{port}")), None)
            .unwrap();
    let m = Frequency::new(params(
        &["region", "age"],
        intruder_risk::MissingPolicy::Listwise,
    ))
    .unwrap();
    let e = risk(&spec, &data, &Input::default(), &m)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "--engine ballista://127.0.0.1:{port}: GET http://127.0.0.1:{port}/api/executors: "
        )),
        "{e}"
    );
    assert!(e.contains("Is intruder-scheduler running there?"), "{e}");
    assert!(e.contains("Connection refused"), "{e}");
    eprintln!("{e}");
}
