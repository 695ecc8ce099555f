# The peer figures of crates/defence/tests/record_swap.rs (issue 35 item 4):
#
#   Rscript benches/record_swap/fixture.R crates/defence/tests/data
#
# Writes createdat500.csv (sdcMicro's createDat(500) after set.seed(35)) and
# createdat500_sdcmicro.json: for each case, sdcMicro's households at risk per hierarchy level
# (setRisk_cpp / setLevels_cpp, as sdcMicro's own tests call them) and, per seed 1..5, the
# households recordSwap swapped and how many households at risk it left unswapped.
suppressPackageStartupMessages({
  library(sdcMicro)
  library(data.table)
  library(jsonlite)
})
out <- commandArgs(trailingOnly = TRUE)[1]
set.seed(35)
dat <- sdcMicro::createDat(500)
fwrite(dat, file.path(out, "createdat500.csv"))
cases <- list(
  list(name = "k1_rate10", hierarchy = c("nuts1", "nuts2", "nuts3"),
       risk_variables = c("ageGroup", "national"), k = 1, swaprate = 0.1),
  list(name = "k3_rate05", hierarchy = c("nuts1", "nuts2", "nuts3", "lau2"),
       risk_variables = c("ageGroup", "national"), k = 3, swaprate = 0.05),
  list(name = "k2_rate05", hierarchy = c("nuts1", "nuts2"),
       risk_variables = c("ageGroup", "national", "hsize"), k = 2, swaprate = 0.05)
)
res <- list()
for (case in cases) {
  d <- copy(dat)
  setkeyv(d, "hid")
  cn <- colnames(d)
  hier <- sdcMicro:::checkIndexString(case$hierarchy, cnames = cn, matchLength = length(case$hierarchy))
  rv <- sdcMicro:::checkIndexString(case$risk_variables, cnames = cn, minLength = 1)
  hv <- sdcMicro:::checkIndexString("hid", cnames = cn, minLength = 1)
  lv <- sdcMicro:::setLevels_cpp(sdcMicro:::setRisk_cpp(transpose(d), hier, rv, hv), 1 / case$k)
  lv <- data.table(hid = d$hid, level = lv + 1)[, .(level = level[1]), by = hid]
  runs <- lapply(1:5, function(seed) {
    s <- recordSwap(data = copy(dat), hid = "hid", hierarchy = case$hierarchy, similar = list("hsize"),
                    swaprate = case$swaprate, k_anonymity = case$k,
                    risk_variables = case$risk_variables, return_swapped_id = TRUE, seed = seed,
                    log_file_name = file.path(tempdir(), "TRS_logfile.txt"))
    swapped <- s[hid != hid_swapped, unique(hid)]
    list(seed = seed, households_swapped = length(swapped),
         at_risk_not_swapped = sum(lv$level <= length(case$hierarchy) & !(lv$hid %in% swapped)))
  })
  res[[case$name]] <- c(case, list(at_risk = sapply(seq_along(case$hierarchy), function(l) sum(lv$level == l)),
                                   runs = runs))
}
res$version <- as.character(packageVersion("sdcMicro"))
write_json(res, file.path(out, "createdat500_sdcmicro.json"), auto_unbox = TRUE, pretty = TRUE)
