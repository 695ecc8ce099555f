//! The engines side by side: every plan run on `local` (the reference) and `datafusion`
//! (and, in `cluster`, on a Ballista scheduler with two executors started as processes),
//! compared figure by figure.

#[cfg(feature = "cluster")]
mod blocking;
#[cfg(feature = "cluster")]
mod cluster;
#[cfg(feature = "cluster")]
mod common;
#[cfg(feature = "cluster")]
mod exact;
#[cfg(feature = "cluster")]
mod linkage;
#[cfg(feature = "cluster")]
mod risk;

#[test]
fn without_the_feature_other_engines_are_refused_clearly() {
    let spec = intruder_engine::EngineSpec::parse(Some("datafusion"), None).unwrap();
    if intruder_engine::CLUSTER_BUILT {
        assert_eq!(spec.engine, intruder_engine::Engine::DataFusion);
    } else {
        let m = intruder_risk::registry::Frequency::new(intruder_risk::RiskParams::new(vec![
            "a".into(),
        ]))
        .unwrap();
        let e = intruder_engine::risk(&spec, "x.csv".as_ref(), &Default::default(), &m)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--features parquet,cluster"), "{e}");
    }
}
