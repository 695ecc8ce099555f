# sdcMicro's side of the agreement checks (benches/sdcmicro/agreement.py runs this, then intruder,
# and compares). Usage:
#
#   Rscript benches/sdcmicro/agreement.R OUTDIR
#
# Writes to OUTDIR:
#   data/CASE.csv            the input of each case, exported from sdcMicro's own data sets
#                            (missing values as empty fields), read by both tools;
#   sdcmicro/CASE.csv        per-record figures (row numbers from 1);
#   sdcmicro/CASE.json       scalar figures;
#   manifest.json            the cases (file, keys, weight, household, sensitive, what ran), which
#                            the driver reads to run intruder on the same settings.
# Every figure is sdcMicro's own function on a data.frame, as its examples call it.
suppressPackageStartupMessages({
  library(sdcMicro)
  library(jsonlite)
  library(data.table)
})

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript agreement.R OUTDIR")
out <- args[1]
dir.create(file.path(out, "data"), recursive = TRUE, showWarnings = FALSE)
dir.create(file.path(out, "sdcmicro"), recursive = TRUE, showWarnings = FALSE)

# Full-precision CSV: numbers as %.17g, NA as the empty field.
write_exact <- function(df, path) {
  df <- as.data.frame(df)
  for (j in seq_along(df)) {
    v <- df[[j]]
    if (is.factor(v)) v <- as.character(v)
    if (is.numeric(v)) {
      s <- ifelse(is.na(v), "", ifelse(v == round(v) & abs(v) < 1e15,
                                       sprintf("%.0f", v), sprintf("%.17g", v)))
    } else {
      s <- ifelse(is.na(v), "", as.character(v))
    }
    df[[j]] <- s
  }
  fwrite(df, path, quote = "auto", na = "")
}

num <- function(x) if (is.null(x) || length(x) == 0 || is.na(x)) NA else unname(x)

# ---- the data sets --------------------------------------------------------------------------
data(francdat, testdata, testdata2, free1, EIA, Tarragona, CASCrefmicrodata,
     package = "sdcMicro", envir = environment())

# francdat with missing keys: exactly freqCalc's documented example (?freqCalc).
francdat_na <- francdat
francdat_na[3, 5] <- NA
francdat_na[4, 2] <- francdat_na[4, 4] <- NA
francdat_na[5, 6] <- NA
francdat_na[6, 2] <- NA

# testdata / free1 with missing keys: a fixed pattern (no random numbers, so R and the driver
# agree on the file): record i loses roof when i %% 20 == 0, water when i %% 31 == 0, sex when
# i %% 47 == 0, relat when i %% 53 == 0, and the sensitive electcon when i %% 29 == 0.
testdata_na <- testdata
i <- seq_len(nrow(testdata_na))
testdata_na$roof[i %% 20 == 0] <- NA
testdata_na$water[i %% 31 == 0] <- NA
testdata_na$sex[i %% 47 == 0] <- NA
testdata_na$relat[i %% 53 == 0] <- NA
testdata_na$electcon[i %% 29 == 0] <- NA
free1_na <- as.data.frame(free1)
i <- seq_len(nrow(free1_na))
free1_na$SEX[i %% 25 == 0] <- NA
free1_na$AGE[i %% 37 == 0] <- NA

datasets <- list(
  francdat = francdat, francdat_na = francdat_na, testdata = testdata,
  testdata_na = testdata_na, testdata2 = testdata2, free1 = as.data.frame(free1),
  free1_na = free1_na, EIA = as.data.frame(EIA), Tarragona = as.data.frame(Tarragona),
  CASCrefmicrodata = as.data.frame(CASCrefmicrodata)
)
for (nm in names(datasets)) write_exact(datasets[[nm]], file.path(out, "data", paste0(nm, ".csv")))

# ---- risk cases -----------------------------------------------------------------------------
# keys: the key sets sdcMicro's examples use (?freqCalc: francdat 2,4,5,6 with w = 8; free1 1:3
# with w = 30; ?createSdcObj: testdata's seven keys; ?measure_risk: testdata's five keys with
# ldiv_index = "electcon" and hid = "ori_hid"). EIA has no key set in sdcMicro's examples:
# STATE, YEAR, MONTH (the categorical columns apart from the utility's id and name).
T7 <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
T5 <- c("urbrur", "roof", "walls", "water", "sex")
FK <- c("Key1", "Key2", "Key3", "Key4")
cases <- list(
  list(name = "francdat", data = "francdat", keys = FK, weight = "w", suda2 = TRUE),
  list(name = "francdat_na", data = "francdat_na", keys = FK, weight = "w", suda2 = TRUE),
  list(name = "testdata_7keys", data = "testdata", keys = T7, weight = "sampling_weight",
       group = "ori_hid", suda2 = TRUE),
  list(name = "testdata_5keys", data = "testdata", keys = T5, weight = "sampling_weight",
       group = "ori_hid", sensitive = "electcon", max_global_risk = c(0.01, 1e-4)),
  list(name = "testdata_na_7keys", data = "testdata_na", keys = T7, weight = "sampling_weight",
       group = "ori_hid", suda2 = TRUE),
  list(name = "testdata_na_5keys", data = "testdata_na", keys = T5, weight = "sampling_weight",
       group = "ori_hid", sensitive = "electcon"),
  list(name = "testdata2_7keys", data = "testdata2", keys = T7, weight = "sampling_weight",
       group = "ori_hid", suda2 = TRUE),
  list(name = "free1", data = "free1", keys = c("REGION", "SEX", "AGE"), weight = "WEIGHT",
       suda2 = TRUE),
  list(name = "free1_na", data = "free1_na", keys = c("REGION", "SEX", "AGE"), weight = "WEIGHT",
       suda2 = TRUE),
  list(name = "EIA", data = "EIA", keys = c("STATE", "YEAR", "MONTH"), suda2 = TRUE)
)
ALPHAS <- c(1, 0.5, 0.1)
KS <- c(2, 3, 5)

timed <- function(expr) {
  t <- system.time(v <- expr)
  list(value = v, user_s = unname(t[["user.self"]]), sys_s = unname(t[["sys.self"]]),
       elapsed_s = unname(t[["elapsed"]]))
}

manifest <- list(cases = list(), mdav = list(), kanon = list(),
                 sdcmicro_version = as.character(packageVersion("sdcMicro")),
                 r_version = R.version.string)

for (cs in cases) {
  d <- datasets[[cs$data]]
  n <- nrow(d)
  has_na <- any(is.na(d[, cs$keys]))
  rec <- data.frame(row = seq_len(n))
  sc <- list(n = n, keys = cs$keys, has_missing_keys = has_na)
  w <- cs$weight

  # freqCalc: fk, Fk under every alpha (alpha only matters with missing keys).
  for (a in (if (has_na) ALPHAS else 1)) {
    f <- if (is.null(w)) freqCalc(d, keyVars = cs$keys, alpha = a)
         else freqCalc(d, keyVars = cs$keys, w = w, alpha = a)
    tag <- if (a == 1) "" else paste0("_a", a)
    rec[[paste0("fk", tag)]] <- f$fk
    rec[[paste0("Fk", tag)]] <- f$Fk
    if (!is.null(w)) {
      ir <- indivRisk(f, method = "approx", qual = 1, survey = TRUE)
      rec[[paste0("indivRisk", tag)]] <- ir$rk
    }
    for (k in KS) sc[[paste0("fk_below_", k, tag)]] <- sum(f$fk < k)
    sc[[paste0("n1", tag)]] <- num(f$n1)
    sc[[paste0("n2", tag)]] <- num(f$n2)
  }

  # measure_risk, weighted (with the household column when there is one) ...
  for (mgr in (if (is.null(cs$max_global_risk)) 0.01 else cs$max_global_risk)) {
    tag <- if (mgr == 0.01) "" else paste0("_mgr", format(mgr, scientific = FALSE))
    mr <- if (is.null(w)) measure_risk(d, keyVars = cs$keys, max_global_risk = mgr)
          else if (is.null(cs$group)) measure_risk(d, keyVars = cs$keys, w = w, max_global_risk = mgr)
          else measure_risk(d, keyVars = cs$keys, w = w, hid = cs$group, max_global_risk = mgr)
    if (tag == "") {
      rec$mr_risk <- mr$Res[, "risk"]
      rec$mr_fk <- mr$Res[, "fk"]
      rec$mr_Fk <- mr$Res[, "Fk"]
      if (!is.null(cs$group)) {
        rec$hier_risk <- mr$Res[, "hier_risk"]
        sc$hier_risk_ER <- num(mr$hier_risk_ER)
        sc$hier_risk <- num(mr$hier_risk)
      }
    }
    sc[[paste0("global_risk_ER", tag)]] <- num(mr$global_risk_ER)
    sc[[paste0("global_risk", tag)]] <- num(mr$global_risk)
    sc[[paste0("global_threshold", tag)]] <- num(mr$global_threshold)
    # NA threshold: the file is already below max_global_risk; print.measure_risk shows it as
    # Inf, and no record is above Inf.
    thr <- if (is.na(mr$global_threshold)) Inf else mr$global_threshold
    sc[[paste0("records_above_threshold", tag)]] <- sum(mr$Res[, "risk"] > thr)
    sc[[paste0("max_global_risk", tag)]] <- mgr
  }
  # ... and unweighted: risk 1/fk, global_risk_ER = sum of 1/fk.
  if (!is.null(w)) {
    mu <- measure_risk(d, keyVars = cs$keys)
    rec$mr_risk_unweighted <- mu$Res[, "risk"]
    sc$global_risk_ER_unweighted <- num(mu$global_risk_ER)
    sc$global_risk_unweighted <- num(mu$global_risk)
  }

  # l-diversity (measure_risk's example: ldiv_index = "electcon"), recursive constant c = 2.
  if (!is.null(cs$sensitive)) {
    ld <- ldiversity(d, keyVars = cs$keys, ldiv_index = cs$sensitive, l_recurs_c = 2)
    rec$l_distinct <- ld[, paste0(cs$sensitive, "_Distinct_Ldiversity")]
    rec$l_entropy <- ld[, paste0(cs$sensitive, "_Entropy_Ldiversity")]
    rec$l_recursive <- ld[, paste0(cs$sensitive, "_Recursive_Ldiversity")]
    sc$l_recurs_c <- 2
    # sdcMicro 5.8.1's ldiversity passes NA to its C++ code as NA, not as its `missing` code
    # (-999), and there NA never equals a stored category, so every missing sensitive value
    # becomes a category of its own. With the NAs recoded to -999 first, the C++ code takes
    # them as missing as intended: one extra category per class that has any.
    if (any(is.na(d[[cs$sensitive]]))) {
      d999 <- d
      d999[[cs$sensitive]][is.na(d999[[cs$sensitive]])] <- -999
      ld <- ldiversity(d999, keyVars = cs$keys, ldiv_index = cs$sensitive, l_recurs_c = 2,
                       missing = -999)
      rec$l_distinct_m999 <- ld[, paste0(cs$sensitive, "_Distinct_Ldiversity")]
      rec$l_entropy_m999 <- ld[, paste0(cs$sensitive, "_Entropy_Ldiversity")]
      rec$l_recursive_m999 <- ld[, paste0(cs$sensitive, "_Recursive_Ldiversity")]
      # The same figures without the missing category (recomputed in R from the classes, as
      # a check of the explanation): distinct observed values and their entropy.
      cls <- do.call(paste, c(lapply(cs$keys, function(k) ifelse(is.na(d[[k]]), "NA", d[[k]])),
                              sep = "\r"))
      sv <- d[[cs$sensitive]]
      obs_distinct <- ave(seq_along(sv), cls, FUN = function(ix) length(unique(na.omit(sv[ix]))))
      rec$l_distinct_observed <- obs_distinct
    }
  }

  # SUDA2, on complete data and with missing keys (sdcMicro's own rule for NA; intruder's
  # drop_msus_with_missing = true under missing = "as-value").
  if (isTRUE(cs$suda2)) {
    # Factor keys as integer codes first: sdcMicro 5.8.1's suda2 on a data.frame whose first
    # key is a factor turns the numeric keys after it into NA ("invalid factor level"), so
    # every score would be 0. The codes keep the same classes.
    ds <- d[, cs$keys, drop = FALSE]
    for (v in cs$keys) if (!is.numeric(ds[[v]])) ds[[v]] <- as.integer(as.factor(ds[[v]]))
    s <- suda2(ds, variables = cs$keys, DisFraction = 0.01)
    rec$suda_score <- s$score
    rec$dis_suda_score <- s$disScore
  }

  write_exact(rec, file.path(out, "sdcmicro", paste0(cs$name, ".csv")))
  write_json(sc, file.path(out, "sdcmicro", paste0(cs$name, ".json")), auto_unbox = TRUE,
             digits = NA, na = "null", pretty = TRUE)
  manifest$cases[[length(manifest$cases) + 1]] <- list(
    name = cs$name, data = paste0("data/", cs$data, ".csv"), keys = cs$keys,
    weight = cs$weight, group = cs$group, sensitive = cs$sensitive,
    has_missing_keys = has_na, alphas = if (has_na) ALPHAS else 1, ks = KS,
    max_global_risk = if (is.null(cs$max_global_risk)) 0.01 else cs$max_global_risk,
    l_recurs_c = if (is.null(cs$sensitive)) NULL else 2,
    suda2 = isTRUE(cs$suda2))
  message("risk case ", cs$name, ": ", n, " records")
}

# ---- MDAV microaggregation (microaggregation(method = "mdav")) ------------------------------
# ?microaggregation: testdata[1:100, c("expend","income","savings")] with aggr = 4; the whole of
# testdata, Tarragona (every column, as ?sdcMicro-package) and CASCrefmicrodata's and EIA's
# numeric columns at aggr = 3.
num_cols <- function(d) names(d)[vapply(d, is.numeric, TRUE)]
eia_num <- setdiff(num_cols(datasets$EIA), c("UTILITYID", "YEAR", "MONTH"))
mdav_cases <- list(
  list(name = "testdata100_k4", data = "testdata", rows = 100,
       vars = c("expend", "income", "savings"), k = 4),
  list(name = "testdata_k3", data = "testdata", vars = c("expend", "income", "savings"), k = 3),
  list(name = "Tarragona_k3", data = "Tarragona", vars = names(datasets$Tarragona), k = 3),
  list(name = "CASCrefmicrodata_k3", data = "CASCrefmicrodata",
       vars = names(datasets$CASCrefmicrodata), k = 3),
  list(name = "EIA_k3", data = "EIA", vars = eia_num, k = 3)
)
for (mc in mdav_cases) {
  d <- datasets[[mc$data]]
  if (!is.null(mc$rows)) {
    d <- d[seq_len(mc$rows), , drop = FALSE]
    write_exact(d, file.path(out, "data", paste0(mc$name, ".csv")))
    file <- paste0("data/", mc$name, ".csv")
  } else {
    file <- paste0("data/", mc$data, ".csv")
  }
  m <- microaggregation(obj = d, variables = mc$vars, method = "mdav", aggr = mc$k)
  mx <- as.data.frame(m$mx)[, mc$vars, drop = FALSE]
  write_exact(cbind(row = seq_len(nrow(mx)), mx),
              file.path(out, "sdcmicro", paste0("mdav_", mc$name, ".csv")))
  manifest$mdav[[length(manifest$mdav) + 1]] <- list(name = mc$name, data = file,
                                                     variables = mc$vars, k = mc$k)
  message("mdav case ", mc$name)
}

# ---- local suppression (localSuppression / kAnon, default importance) ------------------------
# ?localSuppression: francdat keyVar = c(4, 5, 6) (Key2, Key3, Key4) with k = 2 and testdata2's
# seven keys (k = 2); also testdata's seven keys at k = 3, with and without missing keys, and
# free1's three at k = 3.
ls_cases <- list(
  list(name = "francdat_k2", data = "francdat", keys = c("Key2", "Key3", "Key4"), k = 2),
  list(name = "testdata2_k2", data = "testdata2", keys = T7, k = 2),
  list(name = "testdata_k3", data = "testdata", keys = T7, k = 3),
  list(name = "testdata_na_k3", data = "testdata_na", keys = T7, k = 3),
  list(name = "free1_k3", data = "free1", keys = c("REGION", "SEX", "AGE"), k = 3)
)
for (lc in ls_cases) {
  d <- datasets[[lc$data]]
  t <- timed(localSuppression(d, keyVars = lc$keys, k = lc$k))
  ls <- t$value
  x <- ls$xAnon[, lc$keys, drop = FALSE]
  write_exact(cbind(row = seq_len(nrow(x)), x),
              file.path(out, "sdcmicro", paste0("kanon_", lc$name, ".csv")))
  f <- freqCalc(x, keyVars = lc$keys, alpha = 1)
  sc <- list(supps = as.list(ls$supps[nrow(ls$supps), , drop = TRUE]),
             total_supps = sum(ls$supps[nrow(ls$supps), ]),
             importance = ls$importance, k = lc$k, min_fk_after = min(f$fk),
             elapsed_s = t$elapsed_s)
  write_json(sc, file.path(out, "sdcmicro", paste0("kanon_", lc$name, ".json")),
             auto_unbox = TRUE, digits = NA, pretty = TRUE)
  manifest$kanon[[length(manifest$kanon) + 1]] <- list(
    name = lc$name, data = paste0("data/", lc$data, ".csv"), keys = lc$keys, k = lc$k,
    importance = ls$importance)
  message("kAnon case ", lc$name, ": ", sc$total_supps, " suppressions")
}

write_json(manifest, file.path(out, "manifest.json"), auto_unbox = TRUE, digits = NA,
           pretty = TRUE, null = "null")
cat("sdcMicro", manifest$sdcmicro_version, "figures written to", out, "\n")
