#!/usr/bin/env bash
# Side by side with ARX on its own `adult` data and hierarchies: ARX 3.9 built from its
# repository (javac, its own lib/ jars) and intruder's `generalise`, same data, same
# hierarchies, k = 2, 5, 10, 2 % suppression, quality models loss, discernibility, entropy, aecs.
# Writes benches/generalise/arx.jsonl, arx_subset.jsonl (ARX on adult_subset.csv), intruder.jsonl and prints the comparison (compare.py).
#
# Usage: benches/generalise/run.sh ARX_CHECKOUT [WARMUP REPEATS]
#   ARX_CHECKOUT: a checkout of https://github.com/arx-deidentifier/arx (we used commit
#   aacd487fb77b3af7970d5d6fa1b2f6cca1182b64, ARX 3.9.2), e.g. made from a mirror with
#   git --git-dir=MIRROR archive HEAD | tar -x -C ARX_CHECKOUT
# Needs a JDK (Debian's openjdk-17-jdk) and cargo. Run from the workspace root.
set -euo pipefail
ARX=$(cd "$1" && pwd)
WARMUP=${2:-2}
REPEATS=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

# ARX's runtime jars (the subset of lib/ that src/main needs; GUI jars left out)
JARS="de/linearbits/newtonraphson/0.0.1/newtonraphson-0.0.1.jar de/linearbits/objectselector/lib/objectselector-lib.jar
de/linearbits/jhpl/0.0.1/jhpl-0.0.1.jar jtds/jtds/1.3.1/jtds-1.3.1.jar ant/smile/smile-1.3.1-java7.jar ant/ojdbc/ojdbc7.jar
ant/mysql/mysql-connector-java-5.1.38-bin.jar ant/colt/colt-1.2.0.jar ant/sqlite/sqlite-jdbc-3.7.2.jar ant/hppc/hppc-0.6.0.jar
ant/mahout/slf4j-api-1.7.13.jar ant/mahout/mahout-core-0.9.jar ant/mahout/guava-18.0.jar ant/mahout/mahout-math-0.11.1.jar
ant/poi/ooxml-lib/xmlbeans-2.3.0.jar ant/poi/ooxml-lib/dom4j-1.6.1.jar ant/poi/ooxml-lib/stax-api-1.0.1.jar
ant/poi/poi-ooxml-3.10-FINAL-20140208.jar ant/poi/lib/commons-codec-1.5.jar ant/poi/lib/commons-logging-1.1.jar
ant/poi/poi-3.10-FINAL-20140208.jar ant/commons/commons-validator-1.4.1.jar ant/commons/commons-io-2.4.jar
ant/commons/commons-math3-3.6.1.jar ant/commons/commons-lang3-3.12.0.jar ant/commons/commons-lang-2.6.jar
ant/jtds/jtds-1.3.1.jar ant/univocity/univocity-parsers-2.8.4.jar ant/newtonraphson/newtonraphson-0.0.1.jar
ant/objectselector/objectselector-0.1-lib.jar ant/junit/junit-4.11.jar ant/junit/hamcrest-core-1.3.jar ant/jhpl/jhpl-0.0.1.jar
ant/exp4j/exp4j-0.4.8.jar ant/pdfbox/pdfbox-layout.jar ant/postgresql/postgresql-9.3-1101.jdbc41.jar
ant/log4j/log4j-api-2.17.2.jar ant/log4j/log4j-1.2-api-2.17.2.jar ant/log4j/log4j-core-2.17.2.jar
com/oracle/ojdbc7/12.1.0.2/ojdbc7-12.1.0.2.jar com/github/haifengl/smile/1.3.1/smile-1.3.1.jar"
CP=$(for j in $JARS; do printf '%s:' "$ARX/lib/$j"; done)

BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT
# ARX's library sources (src/main) and compile-only stand-ins for two jars its lib/ lacks
# (arx-stubs/: pdfbox classes and Hadoop's Writable, never run by the benchmark)
{ find "$ARX/src/main" -name '*.java'; find "$HERE/arx-stubs" -name '*.java'; } > "$BUILD/srcs.txt"
javac -nowarn -encoding UTF-8 -d "$BUILD/classes" -cp "$CP" @"$BUILD/srcs.txt" 2> "$BUILD/javac.log" \
  || { cat "$BUILD/javac.log"; exit 1; }
javac -d "$BUILD/bench" -cp "$BUILD/classes:$CP" "$HERE/ArxAdult.java"

java -cp "$BUILD/bench:$BUILD/classes:$CP" ArxAdult "$ARX/data" 2,5,10 loss,discernibility,entropy,aecs \
  0.02 "$WARMUP" "$REPEATS" > "$HERE/arx.jsonl"
# the same on data/arx-adult/adult_subset.csv (the values the tests compare with), one run
mkdir "$BUILD/subset"
cp "$ROOT/data/arx-adult/adult_subset.csv" "$BUILD/subset/adult.csv"
for h in "$ROOT"/data/arx-adult/hierarchies/*.csv; do cp "$h" "$BUILD/subset/adult_hierarchy_$(basename "$h")"; done
java -cp "$BUILD/bench:$BUILD/classes:$CP" ArxAdult "$BUILD/subset" 2,5,10 loss,discernibility,entropy,aecs \
  0.02 0 1 > "$HERE/arx_subset.jsonl"

cd "$ROOT"
cargo build --release -q -p intruder-benches --bin generalise_adult
zcat data/arx-adult/adult.csv.gz > "$BUILD/adult.csv"
target/release/generalise_adult "$BUILD/adult.csv" data/arx-adult/hierarchies 2,5,10 \
  loss,discernibility,entropy,aecs 0.02 "$WARMUP" "$REPEATS" > "$HERE/intruder.jsonl"
python3 "$HERE/compare.py" "$HERE/arx.jsonl" "$HERE/intruder.jsonl"
