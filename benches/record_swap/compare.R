# sdcMicro's side of the record-swapping comparison (issue 35 item 4).
#
#   Rscript benches/record_swap/compare.R OUTDIR [SEEDS]
#
# Writes OUTDIR/data.csv (sdcMicro's createDat(10000) after set.seed(2021), as in sdcMicro's own
# tests/testthat/test_recordSwap_outputs.R), OUTDIR/cases.json (the parameter sets) and
# OUTDIR/sdcmicro.json: for every case and seed, sdcMicro's recordSwap figures — households and
# records swapped, pairs by the coarsest level where the pair's geographies differ, households at
# risk per level (sdcMicro's own setRisk_cpp/setLevels_cpp) and how many of them were not swapped.
suppressPackageStartupMessages({
  library(sdcMicro)
  library(data.table)
  library(jsonlite)
})
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "benches/record_swap/results"
nseeds <- if (length(args) >= 2) as.integer(args[2]) else 20L
dir.create(out, recursive = TRUE, showWarnings = FALSE)

set.seed(2021)
dat <- sdcMicro::createDat(10000)
fwrite(dat, file.path(out, "data.csv"))

cases <- list(
  list(name = "k1_rate05_3levels", hierarchy = c("nuts1", "nuts2", "nuts3"),
       similar = "hsize", risk_variables = c("ageGroup", "national"), k = 1, swaprate = 0.05),
  list(name = "k3_rate05_3levels", hierarchy = c("nuts1", "nuts2", "nuts3"),
       similar = "hsize", risk_variables = c("ageGroup", "national"), k = 3, swaprate = 0.05),
  list(name = "k2_rate05_2levels_hsize", hierarchy = c("nuts1", "nuts2"),
       similar = "hsize", risk_variables = c("ageGroup", "national", "hsize"), k = 2, swaprate = 0.05),
  list(name = "k3_rate10_4levels", hierarchy = c("nuts1", "nuts2", "nuts3", "lau2"),
       similar = "hsize", risk_variables = c("ageGroup", "national"), k = 3, swaprate = 0.10)
)
write_json(cases, file.path(out, "cases.json"), auto_unbox = TRUE, pretty = TRUE)

# The level (1-based) each household must be swapped across, by sdcMicro's own functions
# (nhier + 1: none).
risk_levels <- function(d, case) {
  setkeyv(d, "hid")
  cn <- colnames(d)
  hier <- sdcMicro:::checkIndexString(case$hierarchy, cnames = cn, matchLength = length(case$hierarchy))
  rv <- sdcMicro:::checkIndexString(case$risk_variables, cnames = cn, minLength = 1)
  hv <- sdcMicro:::checkIndexString("hid", cnames = cn, minLength = 1)
  risk <- sdcMicro:::setRisk_cpp(transpose(d), hier, rv, hv)
  lv <- sdcMicro:::setLevels_cpp(risk, 1 / case$k)
  data.table(hid = d$hid, level = lv + 1)[, .(level = level[1]), by = hid]
}

results <- list()
for (case in cases) {
  d <- copy(dat)
  lv <- risk_levels(d, case)
  nh <- length(case$hierarchy)
  at_risk <- sapply(seq_len(nh), function(l) sum(lv$level == l))
  geo <- unique(dat[, c("hid", case$hierarchy), with = FALSE])
  runs <- list()
  for (seed in seq_len(nseeds)) {
    t0 <- Sys.time()
    s <- recordSwap(data = copy(dat), hid = "hid", hierarchy = case$hierarchy,
                    similar = list(case$similar), swaprate = case$swaprate,
                    k_anonymity = case$k, risk_variables = case$risk_variables,
                    carry_along = NULL, return_swapped_id = TRUE, seed = seed,
                    log_file_name = file.path(tempdir(), "TRS_logfile.txt"))
    secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
    pairs <- unique(s[hid != hid_swapped, .(hid, hid_swapped)])
    pairs <- pairs[hid < hid_swapped]
    a <- geo[match(pairs$hid, geo$hid)]
    b <- geo[match(pairs$hid_swapped, geo$hid)]
    differ <- sapply(seq_len(nrow(pairs)), function(i) {
      which(unlist(a[i, case$hierarchy, with = FALSE]) != unlist(b[i, case$hierarchy, with = FALSE]))[1]
    })
    swapped <- unique(c(pairs$hid, pairs$hid_swapped))
    runs[[length(runs) + 1]] <- list(
      seed = seed,
      households_swapped = length(swapped),
      records_swapped = s[hid != hid_swapped, .N],
      pairs = nrow(pairs),
      pairs_by_first_differing_level = sapply(seq_len(nh), function(l) sum(differ == l)),
      at_risk_not_swapped = sum(lv$level <= nh & !(lv$hid %in% swapped)),
      seconds = secs
    )
  }
  results[[case$name]] <- list(households = nrow(lv), records = nrow(dat),
                               at_risk = at_risk, runs = runs)
}
results$version <- list(sdcMicro = as.character(packageVersion("sdcMicro")),
                        R = R.version.string)
write_json(results, file.path(out, "sdcmicro.json"), auto_unbox = TRUE, pretty = TRUE, digits = NA)
cat("wrote", file.path(out, "sdcmicro.json"), "\n")
