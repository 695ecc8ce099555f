#!/usr/bin/env bash
# Install R, the Debian packages sdcMicro imports, prettydoc (not in Debian) and sdcMicro itself.
#
#   benches/sdcmicro/install.sh [SDCMICRO_SRC_DIR]
#
# SDCMICRO_SRC_DIR (or the SDCMICRO_SRC environment variable) is an unpacked sdcMicro source tree
# (the directory holding DESCRIPTION). Without one, the GitHub tarball of the pinned tag
# $SDCMICRO_TAG is downloaded (needs a network). prettydoc (imported by sdcMicro's NAMESPACE for
# its report template, not packaged by Debian) is installed the same way: PRETTYDOC_SRC or the
# GitHub tarball of $PRETTYDOC_TAG. Re-runnable: apt-get skips what is installed, and an R
# package already at the source's version is not reinstalled (set FORCE=1 to reinstall).
# Runs as root (apt-get); prints the installed sdcMicro version last.
set -euo pipefail

SDCMICRO_TAG="${SDCMICRO_TAG:-5.7.1}"
PRETTYDOC_TAG="${PRETTYDOC_TAG:-v0.4.1}"
SRC="${1:-${SDCMICRO_SRC:-}}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# sdcMicro's DESCRIPTION Imports and the Debian package of each. utils, stats, graphics, tools
# and methods come with r-base-core; prettydoc has no Debian package (installed below).
DEBIAN_PKGS=(
  r-base-core r-base-dev       # R, and the compiler toolchain for sdcMicro's C++ (Rcpp) code
  r-cran-car r-cran-cardata r-cran-rmarkdown r-cran-knitr r-cran-data.table r-cran-xtable
  r-cran-robustbase r-cran-cluster r-cran-mass r-cran-e1071 r-cran-rcpp r-cran-ggplot2
  r-cran-shiny r-cran-haven r-cran-rhandsontable r-cran-dt r-cran-vim r-cran-httr
  r-cran-jsonlite
  r-cran-laeken                # Suggests; used by some of sdcMicro's examples
  pandoc                       # prettydoc's SystemRequirements (only for rendering reports)
  curl ca-certificates         # the tarball fallback
)

missing=()
for p in "${DEBIAN_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "apt-get install: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || echo "apt-get update failed; trying the cached package lists" >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "Debian packages: all ${#DEBIAN_PKGS[@]} installed" >&2
fi

# Version of an installed R package, empty when absent.
installed_version() {
  Rscript -e "v <- tryCatch(as.character(packageVersion('$1')), error = function(e) ''); cat(v)"
}
# Version in a source tree's DESCRIPTION.
source_version() { sed -n 's/^Version:[[:space:]]*//p' "$1/DESCRIPTION"; }

# Unpack a GitHub tag's tarball into $WORK/NAME and print the directory.
fetch_tag() { # repo tag name
  local url="https://github.com/$1/archive/refs/tags/$2.tar.gz"
  echo "downloading $url" >&2
  mkdir -p "$WORK/$3"
  curl -fsSL --retry 2 "$url" | tar -xz -C "$WORK/$3" --strip-components=1 \
    || { echo "error: could not download $url; pass a source directory instead" >&2; exit 1; }
  echo "$WORK/$3"
}

install_r_source() { # name dir
  local name="$1" dir="$2"
  [[ -f "$dir/DESCRIPTION" ]] || { echo "error: $dir/DESCRIPTION not found (expected an unpacked $name source tree)" >&2; exit 1; }
  local want have
  want="$(source_version "$dir")"
  have="$(installed_version "$name")"
  if [[ "$have" == "$want" && "${FORCE:-0}" != 1 ]]; then
    echo "$name $have already installed" >&2
    return
  fi
  echo "R CMD INSTALL $name $want from $dir (installed: ${have:-none})" >&2
  # A copy, so that the build's object files never land in the caller's tree.
  local copy="$WORK/build-$name"
  rm -rf "$copy"; cp -a "$dir" "$copy"
  MAKEFLAGS="${MAKEFLAGS:--j2}" R CMD INSTALL --no-docs --no-multiarch "$copy"
}

# prettydoc: sdcMicro's NAMESPACE has importFrom(prettydoc, html_pretty), so it must be present
# for sdcMicro to load; pure R, installed from its own source.
if [[ -z "$(installed_version prettydoc)" || "${FORCE:-0}" == 1 ]]; then
  PD="${PRETTYDOC_SRC:-}"
  [[ -n "$PD" ]] || PD="$(fetch_tag yixuan/prettydoc "$PRETTYDOC_TAG" prettydoc)"
  install_r_source prettydoc "$PD"
else
  echo "prettydoc $(installed_version prettydoc) already installed" >&2
fi

if [[ -z "$SRC" ]]; then
  SRC="$(fetch_tag sdcTools/sdcMicro "$SDCMICRO_TAG" sdcMicro)"
fi
install_r_source sdcMicro "$SRC"

Rscript -e 'suppressPackageStartupMessages(library(sdcMicro)); cat("sdcMicro", as.character(packageVersion("sdcMicro")), "\n"); cat(R.version.string, "\n")'
