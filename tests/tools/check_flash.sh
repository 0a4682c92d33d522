#!/bin/sh
# check_flash.sh SOURCE_ROOT - the flashing scripts as a user meets them,
# without a board: scripts/flash-sd.sh against files (and the devices it
# must refuse), scripts/flash-maskrom.sh against a stub rkdeveloptool on
# PATH that records its arguments and plays no device, a device in loader
# mode, a write error and a good maskrom device. Each case checks the exit
# status, the message and what was (not) written or run.
set -u
root=$(cd "$1" && pwd)
sd=$root/scripts/flash-sd.sh
mr=$root/scripts/flash-maskrom.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

# expect NAME STATUS PATTERN COMMAND... : the exit status and a line of its output
expect() {
    name=$1 want=$2 pattern=$3
    shift 3
    "$@" >"$work/out" 2>&1 </dev/null
    got=$?
    if [ "$got" -eq "$want" ] && grep -q -e "$pattern" "$work/out"; then
        echo "ok: $name"
    else
        echo "FAIL: $name: exit $got (want $want), output:"
        sed 's/^/    /' "$work/out"
        fails=$((fails + 1))
    fi
}
check() { # NAME CONDITION...
    name=$1
    shift
    if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

# ---- flash-sd.sh ---------------------------------------------------------
head -c 1572864 /dev/urandom >"$work/image.img"
head -c 4194304 /dev/zero >"$work/card.bin"
cp "$work/card.bin" "$work/blank.bin"
expect "sd: usage" 2 usage sh "$sd" "$work/image.img"
expect "sd: no image" 1 "is not a file" sh "$sd" --yes --to-file "$work/none.img" "$work/card.bin"
expect "sd: a regular file without --to-file" 1 "not a block device" \
    sh "$sd" --yes "$work/image.img" "$work/card.bin"
expect "sd: a character device" 1 "not a block device" sh "$sd" --yes "$work/image.img" /dev/null
expect "sd: --to-file needs an existing file" 1 "not an existing regular file" \
    sh "$sd" --yes --to-file "$work/image.img" "$work/missing.bin"
expect "sd: no terminal, no --yes" 1 "pass --yes" \
    sh "$sd" --to-file "$work/image.img" "$work/card.bin"
check "sd: nothing written when not confirmed" cmp -s "$work/card.bin" "$work/blank.bin"
head -c 1000000 /dev/zero >"$work/small.bin"
expect "sd: image larger than the target" 1 "does not fit" \
    sh "$sd" --yes --to-file "$work/image.img" "$work/small.bin"
expect "sd: write and verify" 0 "written and verified (1572864 bytes)" \
    sh "$sd" --yes --to-file "$work/image.img" "$work/card.bin"
check "sd: the image is at the start" cmp -s -n 1572864 "$work/image.img" "$work/card.bin"
check "sd: the rest is untouched" cmp -s -i 1572864 "$work/card.bin" "$work/blank.bin"
check "sd: the target keeps its size" [ "$(wc -c <"$work/card.bin")" -eq 4194304 ]
# a write that silently loses the data: the read-back must catch it
mkdir -p "$work/baddd"
printf '#!/bin/sh\nexit 0\n' >"$work/baddd/dd"
chmod +x "$work/baddd/dd"
cp "$work/blank.bin" "$work/card2.bin"
expect "sd: read-back catches a lost write" 1 "verification failed" \
    env PATH="$work/baddd:$PATH" sh "$sd" --yes --to-file "$work/image.img" "$work/card2.bin"

# ---- flash-maskrom.sh with a stub rkdeveloptool --------------------------
head -c 4096 /dev/urandom >"$work/loader.bin"
mkdir -p "$work/stub"
cat >"$work/stub/rkdeveloptool" <<'EOF'
#!/bin/sh
# a stand-in for rkdeveloptool: records its arguments, plays STUB_MODE
echo "$*" >>"$STUB_LOG"
case $1 in
ld)
    case $STUB_MODE in
    none) echo "not found any devices!" ;;
    loader) printf 'DevNo=1\tVid=0x2207,Pid=0x350b,LocationID=13\tLoader\n' ;;
    *) printf 'DevNo=1\tVid=0x2207,Pid=0x350b,LocationID=13\tMaskrom\n' ;;
    esac ;;
db) echo "Downloading bootloader succeeded." ;;
wl)
    if [ "$STUB_MODE" = write_error ]; then echo "Write LBA failed!"; exit 1; fi
    echo "Write LBA from file (100%)" ;;
rd) echo "Reset Device OK." ;;
*) echo "unknown command"; exit 1 ;;
esac
EOF
chmod +x "$work/stub/rkdeveloptool"
run_stub() { # MODE ARGS...
    mode=$1
    shift
    rm -f "$work/stub.log"
    : >"$work/stub.log"
    env PATH="$work/stub:$PATH" STUB_MODE="$mode" STUB_LOG="$work/stub.log" sh "$mr" "$@"
}
calls() { tr '\n' ';' <"$work/stub.log"; }

expect "maskrom: usage without --loader" 2 usage sh "$mr" "$work/image.img"
expect "maskrom: missing loader" 1 "not a non-empty file" \
    sh "$mr" "$work/image.img" --loader "$work/none.bin"
expect "maskrom: dry run" 0 "rkdeveloptool wl 0 $work/image.img" \
    env PATH="/nonexistent" /bin/sh "$mr" --dry-run "$work/image.img" --loader "$work/loader.bin"
expect "maskrom: no device" 1 "no Rockchip device in maskrom mode" \
    run_stub none "$work/image.img" --loader "$work/loader.bin"
check "maskrom: no device: only ld ran" [ "$(calls)" = "ld;" ]
expect "maskrom: loader mode" 1 "loader mode, not maskrom" \
    run_stub loader "$work/image.img" --loader "$work/loader.bin"
check "maskrom: loader mode: only ld ran" [ "$(calls)" = "ld;" ]
expect "maskrom: write error" 1 "writing .* failed" \
    run_stub write_error "$work/image.img" --loader "$work/loader.bin"
check "maskrom: write error: no reset" \
    [ "$(calls)" = "ld;db $work/loader.bin;wl 0 $work/image.img;" ]
expect "maskrom: a good device" 0 "board reset" \
    run_stub maskrom "$work/image.img" --loader "$work/loader.bin"
check "maskrom: ld, db, wl 0, rd in order" \
    [ "$(calls)" = "ld;db $work/loader.bin;wl 0 $work/image.img;rd;" ]

if [ $fails -eq 0 ]; then
    echo "check_flash: PASS"
    exit 0
fi
echo "check_flash: $fails failure(s)"
exit 1
