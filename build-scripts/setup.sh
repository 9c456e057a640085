#!/usr/bin/env bash
# Installs everything hwplan needs on Debian 12, and is quick and quiet when all is there:
# Debian packages (compilers, Emscripten, GoogleTest, Google Benchmark, nlohmann_json, Chromium),
# Dear ImGui 1.92's source from Debian's sid source archive into third_party/ (ignored), npm dev dependencies.
# Usage: build-scripts/setup.sh        Safe to run twice. Exits non-zero and says what to do on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

say()  { printf 'setup: %s\n' "$*"; }
fail() { printf 'setup: FAILED: %s\n' "$1" >&2; [ $# -gt 1 ] && printf 'setup: what to do: %s\n' "$2" >&2; exit 1; }

# [SECTION] Debian packages -------------------------------------------------------------------
# One line per package: what it is for.
packages=(
  cmake                 # the build
  make                  # CMake's generator
  g++                   # native compiler
  clang                 # sanitizers and fuzzing
  libclang-rt-14-dev    # libFuzzer and the sanitizer runtimes for clang 14 (the fuzz preset)
  lld                   # LLVM's linker: links the sanitizer tree's large programs about 4x faster than GNU ld
  pkg-config            # used by CMake's find modules
  emscripten            # WebAssembly compiler (emcc 3.1.6 on Debian 12)
  node-acorn            # emcc's link step needs the acorn module
  nlohmann-json3-dev    # JSON
  googletest            # GoogleTest sources
  libgtest-dev          # GoogleTest (native)
  libbenchmark-dev      # Google Benchmark
  chromium              # the browser the end-to-end tests drive (never a downloaded one)
  xz-utils              # unpacks the Dear ImGui source tarball
  fonts-dejavu-core     # DejaVu Sans, the page's embedded font
  fonttools             # pyftsubset: cuts the embedded font down to the glyphs the page uses
  ca-certificates       # https for apt and npm
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm: any install that provides the commands will do (Debian's nodejs 18 + npm 9, or a
# machine's own Node 20 with its bundled npm, which Debian's npm package would conflict with).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] && sudo="" || sudo="sudo"
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null || fail "apt-get update" "check the network and /etc/apt/sources.list.d/, then run build-scripts/setup.sh again"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/hwplan-apt.log 2>&1 \
    || { tail -20 /tmp/hwplan-apt.log >&2; fail "apt-get install ${missing[*]}" "read /tmp/hwplan-apt.log; fix apt, then run build-scripts/setup.sh again"; }
fi

# [SECTION] Dear ImGui source (1.92.2b, from Debian's sid source archive) -----------------------
# libimgui-dev ships no sources, so fetch the source package without touching the machine's apt
# configuration: a temporary deb-src list and a temporary lists folder. 1.92 (not bookworm's 1.86) for
# its input queue (fast clicks), dynamic font scaling (crisp HiDPI text) and sane wheel handling.
# A checkout that holds another version (1.86 from an earlier setup) gets 1.92 in its place.
imgui_dir="$root/third_party/imgui"
imgui_want="1.92.2b"
imgui_have=$(sed -nE 's/^#define IMGUI_VERSION +"([^"]+)".*/\1/p' "$imgui_dir/imgui.h" 2>/dev/null || true)
if [ "$imgui_have" != "$imgui_want" ] || [ ! -f "$imgui_dir/imgui.cpp" ] || [ ! -f "$imgui_dir/backends/imgui_impl_glfw.cpp" ]; then
  say "fetching Dear ImGui $imgui_want source from Debian's source archive (found: ${imgui_have:-none})"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # The machine's Debian mirror and keyring: deb822 sources (Debian 12 images) or a classic sources.list
  # (debootstrap). `|| true`: a missing file is not an error here, an empty result is handled below.
  src=$(grep -hs '^URIs:' /etc/apt/sources.list.d/debian.sources | head -1 | awk '{print $2}' || true)
  key=$(grep -hs '^Signed-By:' /etc/apt/sources.list.d/debian.sources | head -1 | awk '{print $2}' || true)
  if [ -z "$src" ]; then
    src=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | grep -v -e security -e updates \
          | sed -E 's/\[[^]]*\]//' | head -1 | awk '{print $2}' || true)
  fi
  [ -n "$key" ] && [ -f "$key" ] || key=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -n "$src" ] || fail "no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list" \
    "add a Debian 'deb' entry, then run setup again"
  echo "deb-src [signed-by=$key] $src sid main" > "$tmp/src.list"
  mkdir -p "$tmp/lists/partial"
  # Check-Valid-Until=false: a mirror's copy of sid's Release file can be past its Valid-Until date (seen on a
  # fresh Debian 12: "Release file ... is expired"); the signature and the pinned version are still checked.
  aptsrc=(-o Dir::Etc::SourceList="$tmp/src.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$tmp/lists"
          -o Acquire::Check-Valid-Until=false)
  apt-get "${aptsrc[@]}" update -qq >/dev/null 2>&1 || fail "apt-get update of the temporary deb-src list ($src sid)" "check the network"
  (cd "$tmp" && apt-get "${aptsrc[@]}" source --download-only "imgui=$imgui_want+ds-1" >/dev/null 2>&1) \
    || fail "apt-get source --download-only imgui=$imgui_want+ds-1" "check the network; Debian sid's source archive must be reachable"
  tarball=$(ls "$tmp"/imgui_"$imgui_want"*.orig.tar.* 2>/dev/null | head -1 || true)
  [ -n "$tarball" ] || fail "the imgui source package has no orig tarball" "report this; the Debian source package changed"
  rm -rf "$imgui_dir" && mkdir -p "$imgui_dir"
  tar -xf "$tarball" -C "$imgui_dir" --strip-components=1 || fail "unpacking $tarball"
  [ -f "$imgui_dir/backends/imgui_impl_glfw.cpp" ] || fail "ImGui source lacks backends/imgui_impl_glfw.cpp" "report this"
  rm -rf "$tmp"; trap - EXIT
  # A wasm build tree configured against the old sources must rebuild ImGui.
  rm -rf "$root/build/wasm/wasm/CMakeFiles/imgui.dir"
fi

# [SECTION] npm dev dependencies (exact versions from package-lock.json) ----------------------
lock_hash=$(sha256sum package-lock.json | cut -c1-16)
if [ ! -f node_modules/.hwplan-lock-$lock_hash ]; then
  say "installing npm dev dependencies from package-lock.json"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/tmp/hwplan-npm.log 2>&1 \
    || { tail -20 /tmp/hwplan-npm.log >&2; fail "npm ci" "read /tmp/hwplan-npm.log; the npm registry must be reachable"; }
  touch node_modules/.hwplan-lock-$lock_hash
fi

# [SECTION] checks ----------------------------------------------------------------------------
command -v emcc >/dev/null || fail "emcc not on PATH after installing emscripten"
command -v pyftsubset >/dev/null || fail "pyftsubset missing after installing fonttools"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || fail "DejaVuSans.ttf missing after installing fonts-dejavu-core"
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium missing after installing chromium"
exit 0
