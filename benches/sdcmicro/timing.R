# sdcMicro's side of the timings (benches/sdcmicro/timing.py runs it). Usage:
#
#   Rscript timing.R risk  FILE.csv KEYS WEIGHT REPEATS OUT.json
#   Rscript timing.R suda2 FILE.csv KEYS -      1       OUT.json [PER_RECORD.csv]
#
# KEYS comma-separated. The file is read with data.table::fread (timed apart); then each step is
# timed with system.time() on the data.frame: measure_risk(keyVars, w) (weighted individual
# risk, global risk, threshold: the compute of issue 14's target) and freqCalc(keyVars, w)
# alone, REPEATS times each; or suda2(variables = keys) once. Writes user, system and elapsed
# seconds of every run, plus figures to check the result against intruder's.
suppressPackageStartupMessages({
  library(sdcMicro)
  library(data.table)
  library(jsonlite)
})
a <- commandArgs(trailingOnly = TRUE)
if (length(a) < 6) stop("usage: Rscript timing.R risk|suda2 FILE KEYS WEIGHT REPEATS OUT.json [PER_RECORD.csv]")
mode <- a[1]; file <- a[2]; keys <- strsplit(a[3], ",")[[1]]; w <- a[4]
repeats <- as.integer(a[5]); out <- a[6]

st <- function(t) list(user_s = unname(t[["user.self"]]), system_s = unname(t[["sys.self"]]),
                       cpu_s = unname(t[["user.self"]] + t[["sys.self"]]),
                       elapsed_s = unname(t[["elapsed"]]))

# data.table's threads (fread, and the grouping inside freqCalc): SDC_DT_THREADS, default 0 =
# every logical core (data.table's own default is half of them).
setDTthreads(as.integer(Sys.getenv("SDC_DT_THREADS", "0")))
t_read <- system.time(d <- fread(file, showProgress = FALSE))
setDF(d)
res <- list(mode = mode, file = file, rows = nrow(d), keys = keys,
            sdcmicro = as.character(packageVersion("sdcMicro")), r = R.version.string,
            data_table_threads = getDTthreads(), fread = st(t_read))

if (mode == "risk") {
  runs <- list()
  for (i in seq_len(repeats)) {
    t <- system.time(mr <- measure_risk(d, keyVars = keys, w = w))
    runs[[i]] <- st(t)
    message(sprintf("measure_risk run %d: %.2f s elapsed, %.2f s CPU", i, t[["elapsed"]],
                    t[["user.self"]] + t[["sys.self"]]))
  }
  res$measure_risk <- runs
  res$global_risk_ER <- mr$global_risk_ER
  res$global_risk <- mr$global_risk
  res$global_threshold <- if (is.na(mr$global_threshold)) NULL else mr$global_threshold
  res$max_risk <- max(mr$Res[, "risk"])
  res$sum_Fk <- sum(mr$Res[, "Fk"])
  runs <- list()
  for (i in seq_len(repeats)) {
    t <- system.time(f <- freqCalc(d, keyVars = keys, w = w))
    runs[[i]] <- st(t)
    message(sprintf("freqCalc run %d: %.2f s elapsed", i, t[["elapsed"]]))
  }
  res$freqCalc <- runs
  res$n1 <- f$n1
  res$n2 <- f$n2
} else if (mode == "suda2") {
  t <- system.time(s <- suda2(d, variables = keys, DisFraction = 0.01))
  res$suda2 <- st(t)
  res$score_sum <- sum(s$score)
  res$records_with_score <- sum(s$score > 0)
  res$dis_score_max <- max(s$disScore)
  if (length(a) >= 7) {
    fwrite(data.frame(row = seq_len(nrow(d)), score = sprintf("%.17g", s$score),
                      dis_score = sprintf("%.17g", s$disScore)), a[7])
  }
} else {
  stop("mode must be risk or suda2")
}
write_json(res, out, auto_unbox = TRUE, digits = NA, pretty = TRUE)
