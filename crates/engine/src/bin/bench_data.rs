//! `intruder-bench-data`: writes the frequency benchmark's file as Parquet, a row group at a
//! time (never held whole): ROWS records × 10 skewed integer keys (key k has 2, 3, 5, 8, 12,
//! 20, 30, 50, 80, 120 categories with probabilities ∝ 1/rank; 10% missing in the last three),
//! seeded — the distribution of BENCHMARKS.md §1 at any size.
//!
//! Usage: `intruder-bench-data ROWS OUT.parquet [SEED]`

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int64Builder, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::properties::WriterProperties;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CARDS: [usize; 10] = [2, 3, 5, 8, 12, 20, 30, 50, 80, 120];
const GROUP: usize = 1 << 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: intruder-bench-data ROWS OUT.parquet [SEED]".into());
    }
    let rows: usize = args[1].parse()?;
    let out = &args[2];
    let seed: u64 = args.get(3).map_or(Ok(20261126), |s| s.parse())?;
    // Cumulative probabilities ∝ 1/rank per key.
    let cdf: Vec<Vec<f64>> = CARDS
        .iter()
        .map(|&c| {
            let total: f64 = (1..=c).map(|r| 1.0 / r as f64).sum();
            let mut acc = 0.0;
            (1..=c)
                .map(|r| {
                    acc += 1.0 / r as f64 / total;
                    acc
                })
                .collect()
        })
        .collect();
    let schema = Arc::new(Schema::new(
        (0..CARDS.len())
            .map(|k| Field::new(format!("k{}", k + 1), DataType::Int64, true))
            .collect::<Vec<_>>(),
    ));
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1)?))
        .set_max_row_group_row_count(Some(GROUP))
        .build();
    let tmp = format!("{out}.tmp");
    let file = std::fs::File::create(&tmp)?;
    let mut w = ArrowWriter::try_new(file, schema.clone(), Some(props))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut done = 0;
    while done < rows {
        let n = (rows - done).min(GROUP);
        let mut cols: Vec<Int64Builder> = (0..CARDS.len())
            .map(|_| Int64Builder::with_capacity(n))
            .collect();
        for _ in 0..n {
            for (k, b) in cols.iter_mut().enumerate() {
                if k >= 7 && rng.r#gen::<f64>() < 0.10 {
                    b.append_null();
                    continue;
                }
                let u: f64 = rng.r#gen();
                let v = cdf[k].partition_point(|&p| p < u).min(CARDS[k] - 1);
                b.append_value(v as i64 + 1);
            }
        }
        let arrays: Vec<ArrayRef> = cols
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        w.write(&RecordBatch::try_new(schema.clone(), arrays)?)?;
        done += n;
    }
    w.close()?;
    std::fs::rename(&tmp, out)?;
    eprintln!("{rows} records written to {out}");
    Ok(())
}
