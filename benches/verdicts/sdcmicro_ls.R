# sdcMicro's localSuppression (= kAnon) on one file, as its documentation calls it (data.frame
# method, default importance, alpha = 1: missing matches anything), timed; writes the masked
# file (keys replaced) and a JSON line with the suppressions per key and the seconds.
#   Rscript sdcmicro_ls.R IN.csv OUT.csv OUT.json k key1,key2,...
suppressPackageStartupMessages({library(sdcMicro); library(data.table); library(jsonlite)})
a <- commandArgs(trailingOnly = TRUE)
x <- fread(a[1], data.table = FALSE)
k <- as.integer(a[4])
kv <- strsplit(a[5], ",")[[1]]
for (v in kv) x[[v]] <- as.factor(x[[v]])
t0 <- proc.time()
ls <- localSuppression(x, keyVars = kv, k = k)
el <- proc.time() - t0
out <- x
out[, kv] <- ls$xAnon[, kv]
for (v in kv) out[[v]] <- as.character(out[[v]])
fwrite(out, a[2], na = "")
supps <- sapply(kv, function(v) sum(is.na(out[[v]])) - sum(is.na(x[[v]])))
write(toJSON(list(
  sdcmicro = as.character(packageVersion("sdcMicro")),
  k = k, keys = kv, suppressions = as.list(supps), total = sum(supps),
  seconds_elapsed = unname(el["elapsed"]), seconds_cpu = unname(el["user.self"] + el["sys.self"])
), auto_unbox = TRUE), a[3])
