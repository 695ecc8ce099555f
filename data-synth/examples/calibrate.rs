//! Generate a data set and print the calibrated figures next to the published ones.
//!
//! ```text
//! cargo run --release -p intruder-synth --example calibrate -- survey-panel 1 [key=value ...]
//! ```

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(String::as_str).unwrap_or("survey-panel");
    let seed: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(1);
    let sets: Vec<String> = args.iter().skip(2).cloned().collect();
    let dir = PathBuf::from(std::env::var("CALIBRATE_OUT").unwrap_or_else(|_| {
        std::env::temp_dir()
            .join(format!("intruder-calibrate-{name}-{seed}"))
            .display()
            .to_string()
    }));
    let g = intruder_synth::parse(name, None, &sets)?;
    g.generate(seed, &dir)?;
    println!("{name} seed {seed} {}", g.params().describe());
    for f in intruder_synth::figures::compute(name, &dir)? {
        let published = g
            .published()
            .iter()
            .find(|(k, _)| *k == f.name)
            .map(|(_, v)| *v)
            .unwrap_or("-");
        println!(
            "{:<50} {:>14}   published {}",
            f.name,
            fmt(f.value),
            published
        );
    }
    Ok(())
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v}")
    } else {
        format!("{:.2}%", v * 100.0)
    }
}
