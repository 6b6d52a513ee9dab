#!/usr/bin/env bash
# Gravebox installer for Raspberry Pi OS Bookworm (Pi 5, Pi 4, Zero 2 W).
#
#   sudo ./install.sh                     install or update the box on this Pi
#   sudo ./install.sh --model pi4         same, overriding the board detection
#   ./install.sh --root DIR [--model M]   write every file under DIR instead of /, and only
#                                         print the commands (apt, pip, systemctl...) it would run
#   sudo ./uninstall.sh [--purge]         undo it (same as ./install.sh --uninstall)
#
# Running it again changes nothing that is already in place: each file is written only when
# its content differs, the boot configuration lives between "# >>> gravebox" and
# "# <<< gravebox" markers, and /etc/gravebox/*.toml are written only when absent.
set -euo pipefail

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=""         # empty: the real system
MODEL=""        # pi5, pi4 or zero2w; empty: detect
ACTION=install  # or uninstall
PURGE=no
PREFIX=/opt/gravebox
STATE_DIR=/var/lib/gravebox
BEGIN_MARK="# >>> gravebox"
END_MARK="# <<< gravebox"
MANAGED_MARK="# gravebox: managed by install.sh"
APT_PACKAGES=(python3-venv python3-lgpio python3-pil i2c-tools polkitd)
REBOOT_NEEDED=no
SERVICE_CHANGED=no
UDEV_CHANGED=no

say() { printf '%s\n' "$*"; }
die() { printf 'gravebox install: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

parse_args() {
    while (($#)); do
        case $1 in
            --root) [[ $# -ge 2 ]] || die "--root needs a directory"; ROOT=$(cd "$2" && pwd) || die "no such directory: $2"; shift ;;
            --root=*) ROOT=$(cd "${1#--root=}" && pwd) || die "no such directory: ${1#--root=}" ;;
            --model) [[ $# -ge 2 ]] || die "--model needs pi5, pi4 or zero2w"; MODEL=$2; shift ;;
            --model=*) MODEL=${1#--model=} ;;
            --uninstall) ACTION=uninstall ;;
            --purge) PURGE=yes ;;
            -h | --help) usage; exit 0 ;;
            *) die "unknown option: $1 (see --help)" ;;
        esac
        shift
    done
    case $MODEL in
        "" | pi5 | pi4 | zero2w) ;;
        *) die "unknown model '$MODEL': use pi5, pi4 or zero2w" ;;
    esac
    if [[ -z $ROOT && $EUID -ne 0 ]]; then
        die "run it as root: sudo $0 (or --root DIR to write into a directory)"
    fi
    if [[ $ROOT == / ]]; then ROOT=""; fi
}

# A command with effects outside the file tree: run it on the real system, only print it
# under --root (the test checks the printed list).
run() {
    if [[ -n $ROOT ]]; then
        say "would run: $*"
    else
        say "+ $*"
        "$@"
    fi
}

# The board, from the device tree (or $ROOT/proc/device-tree/model under --root).
detect_model() {
    local model_file="$ROOT/proc/device-tree/model" text
    [[ -r $model_file ]] || die "cannot read $model_file to tell the board: pass --model pi5, pi4 or zero2w"
    text=$(tr -d '\0' <"$model_file")
    case $text in
        "Raspberry Pi 5"* | "Raspberry Pi Compute Module 5"*) echo pi5 ;;
        "Raspberry Pi 4"* | "Raspberry Pi Compute Module 4"*) echo pi4 ;; # also the Pi 400
        "Raspberry Pi Zero 2 W"*) echo zero2w ;;
        *) die "unsupported board '$text': Gravebox runs on a Pi 5, Pi 4 or Zero 2 W (--model overrides)" ;;
    esac
}

# install_file SOURCE DEST: copy with mode 0644 when the content differs; return 0 if it changed.
install_file() {
    local source=$1 dest=$ROOT$2
    if [[ -f $dest ]] && cmp -s "$source" "$dest"; then
        say "unchanged  $2"
        return 1
    fi
    install -D -m 0644 "$source" "$dest"
    say "installed  $2"
}

# install_once SOURCE DEST: only when DEST is absent (the owner's files: settings, pin map).
install_once() {
    if [[ -e $ROOT$2 ]]; then
        say "kept       $2 (yours; not overwritten)"
    else
        install -D -m 0644 "$1" "$ROOT$2"
        say "installed  $2"
    fi
}

# install_managed SOURCE DEST: replace DEST only while it still carries the managed marker,
# so a rule edited by hand (marker line deleted) survives reinstalls.
install_managed() {
    if [[ -f $ROOT$2 ]] && ! grep -q "^$MANAGED_MARK" "$ROOT$2"; then
        say "kept       $2 (edited by hand: no '$MANAGED_MARK' line)"
        return 1
    fi
    install_file "$1" "$2"
}

# Print FILE without the gravebox block; refuse a file whose markers don't pair up.
strip_block() {
    awk -v begin="$BEGIN_MARK" -v end="$END_MARK" '
        index($0, begin) == 1 { if (inside) bad = 1; inside = 1; next }
        index($0, end) == 1   { if (!inside) bad = 1; inside = 0; next }
        !inside { print }
        END { if (inside || bad) exit 3 }
    ' "$1" || die "$1: unmatched '$BEGIN_MARK' / '$END_MARK' lines: fix the file by hand first"
}

# Replace FILE's content with TEXT_FILE if different, after a one-time backup FILE.gravebox-backup
# (made before the first change and kept: it is the file as it was before Gravebox).
replace_with_backup() {
    local file=$1 new=$2
    if cmp -s "$new" "$file"; then
        say "unchanged  ${file#"$ROOT"}"
        return 1
    fi
    if [[ ! -e $file.gravebox-backup ]]; then
        cp "$file" "$file.gravebox-backup"
        say "backed up  ${file#"$ROOT"} to ${file#"$ROOT"}.gravebox-backup"
    fi
    cat "$new" >"$file" # keep the file itself (owner, mode; /boot/firmware is FAT)
    say "updated    ${file#"$ROOT"}"
}

boot_dir() {
    local dir="$ROOT/boot/firmware"
    [[ -f $dir/config.txt && -f $dir/cmdline.txt ]] ||
        die "$dir/config.txt or cmdline.txt not found: Gravebox needs Raspberry Pi OS Bookworm"
    echo "$dir"
}

# The boot configuration: I2C at 400 kHz and the readers' UARTs, in a marked block at the end.
apply_config_txt() {
    local config new
    config=$(boot_dir)/config.txt
    new=$(mktemp)
    {
        strip_block "$config"
        say "$BEGIN_MARK (added by install.sh for $MODEL; removed by uninstall.sh)"
        cat "$REPO_DIR/firmware/config-$MODEL.txt"
        say "$END_MARK"
    } >"$new"
    if replace_with_backup "$config" "$new"; then REBOOT_NEEDED=yes; fi
    rm -f "$new"
}

# cmdline.txt with the serial console removed: the readers own the UARTs.
cmdline_without_console() {
    local line word kept=() dropped=0
    IFS= read -r line <"$1" || true # the last line may lack a newline
    read -ra words <<<"$line"
    for word in "${words[@]}"; do
        case $word in
            console=serial0* | console=ttyAMA0* | console=ttyS0*) dropped=1 ;;
            *) kept+=("$word") ;;
        esac
    done
    if ((dropped)); then printf '%s\n' "${kept[*]}"; else printf '%s\n' "$line"; fi
}

apply_cmdline_txt() {
    local cmdline new
    cmdline=$(boot_dir)/cmdline.txt
    new=$(mktemp)
    cmdline_without_console "$cmdline" >"$new"
    # An unchanged line is left alone byte for byte (even without a trailing newline).
    if [[ $(cat "$new") == $(cat "$cmdline") ]]; then
        say "unchanged  ${cmdline#"$ROOT"}"
    elif replace_with_backup "$cmdline" "$new"; then
        REBOOT_NEEDED=yes
    fi
    rm -f "$new"
}

# apt packages: only the missing ones, so a second run needs no network.
install_apt_packages() {
    local missing=() package
    if [[ -n $ROOT ]]; then
        missing=("${APT_PACKAGES[@]}")
    else
        for package in "${APT_PACKAGES[@]}"; do
            dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
        done
    fi
    if ((${#missing[@]})); then
        run apt-get update
        run apt-get install -y --no-install-recommends "${missing[@]}"
    else
        say "unchanged  apt packages (${APT_PACKAGES[*]})"
    fi
}

# pip install from a copy of the repository, so pip's build files never land in the clone
# (as root-owned files in someone's home directory).
install_program() {
    local source
    if [[ -n $ROOT ]]; then
        run "$PREFIX/venv/bin/pip" install "${REPO_DIR}[pi]"
        return
    fi
    source=$(mktemp -d)
    tar -C "$REPO_DIR" --exclude=.git --exclude=.venv --exclude=build --exclude='*.egg-info' \
        --exclude=__pycache__ --exclude=.pytest_cache -cf - . | tar -C "$source" -xf -
    run "$PREFIX/venv/bin/pip" install --quiet --disable-pip-version-check "${source}[pi]"
    rm -rf "$source"
}

# unit_known UNIT: true when systemd knows UNIT (always under --root, where commands are printed).
unit_known() {
    [[ -n $ROOT ]] || systemctl list-unit-files --quiet "$1" >/dev/null 2>&1
}

install_box() {
    if [[ -z $MODEL ]]; then MODEL=$(detect_model); fi
    say "Gravebox: installing for $MODEL${ROOT:+ under $ROOT}"
    boot_dir >/dev/null

    install_apt_packages

    # The service user, declared for systemd-sysusers (creates only what is missing).
    install_file "$REPO_DIR/systemd/gravebox.sysusers" /etc/sysusers.d/gravebox.conf || true
    run systemd-sysusers gravebox.conf

    # The program: a venv that also sees Raspberry Pi OS's python3-lgpio.
    if [[ ! -x $ROOT$PREFIX/venv/bin/python ]]; then
        run python3 -m venv --system-site-packages "$PREFIX/venv"
    fi
    install_program
    install -d -m 0755 "$ROOT$PREFIX"
    printf 'MODEL=%s\n' "$MODEL" >"$ROOT$PREFIX/installed.env.new"
    install_file "$ROOT$PREFIX/installed.env.new" "$PREFIX/installed.env" || true
    rm -f "$ROOT$PREFIX/installed.env.new"

    # Settings and pin map: the owner's, written only when absent.
    install_once "$REPO_DIR/systemd/gravebox-config.toml" /etc/gravebox/config.toml
    install_once "$REPO_DIR/wiring/pinmap.toml" /etc/gravebox/pinmap.toml

    # Devices: i2c-dev at boot, stable reader names, power-off through polkit.
    install_file "$REPO_DIR/systemd/gravebox-modules.conf" /etc/modules-load.d/gravebox.conf || true
    if install_managed "$REPO_DIR/systemd/udev/gravebox-$MODEL.rules" /etc/udev/rules.d/99-gravebox.rules; then
        UDEV_CHANGED=yes
    fi
    install_file "$REPO_DIR/systemd/50-gravebox.rules" /etc/polkit-1/rules.d/50-gravebox.rules || true

    # Boot configuration.
    apply_config_txt
    apply_cmdline_txt
    if [[ $MODEL == pi4 ]]; then
        # disable-bt takes the Bluetooth UART; hciuart would fail at every boot.
        if unit_known hciuart.service; then run systemctl disable hciuart.service; fi
    fi

    # The service.
    if install_file "$REPO_DIR/systemd/gravebox.service" /etc/systemd/system/gravebox.service; then
        SERVICE_CHANGED=yes
    fi
    run modprobe i2c-dev
    if [[ $UDEV_CHANGED == yes ]]; then
        run udevadm control --reload
        run udevadm trigger --subsystem-match=tty --action=change
    fi
    if [[ $SERVICE_CHANGED == yes ]]; then run systemctl daemon-reload; fi
    run systemctl enable gravebox.service
    if [[ $REBOOT_NEEDED == no ]]; then
        # Restart to pick up new code or a new unit (a no-op for the files on a second run).
        run systemctl restart gravebox.service
    fi # else: I2C and the UARTs appear only after the reboot; the service starts then.

    say "Gravebox installed for $MODEL."
    if [[ $REBOOT_NEEDED == yes ]]; then
        say "The boot configuration changed: reboot to turn on I2C and the reader UARTs (sudo reboot)."
    fi
    say "Then check the wiring with: $PREFIX/venv/bin/gravebox selftest"
}

# remove_file DEST: delete a file Gravebox installed.
remove_file() {
    if [[ -e $ROOT$1 || -L $ROOT$1 ]]; then
        rm -f "$ROOT$1"
        say "removed    $1"
    fi
}

# remove_if_ours DEST SOURCE: delete an owner's file only if unchanged since install (or --purge).
remove_if_ours() {
    [[ -e $ROOT$1 ]] || return 0
    if [[ $PURGE == yes ]] || cmp -s "$ROOT$1" "$2"; then
        remove_file "$1"
    else
        say "kept       $1 (edited; --purge removes it)"
    fi
}

# Undo a change to FILE: the current content without our change must equal the backup;
# then the backup goes too. Otherwise keep both and say so.
restore_boot_file() {
    local file=$1 without=$2
    if [[ -e $file.gravebox-backup ]]; then
        if cmp -s "$without" "$file.gravebox-backup" || [[ $(cat "$without") == $(cat "$file.gravebox-backup") ]]; then
            cat "$file.gravebox-backup" >"$file"
            rm -f "$file.gravebox-backup"
            say "restored   ${file#"$ROOT"}"
            return
        fi
        say "note: ${file#"$ROOT"} changed since install; compare with ${file#"$ROOT"}.gravebox-backup"
    fi
    if ! cmp -s "$without" "$file"; then
        cat "$without" >"$file"
        say "updated    ${file#"$ROOT"}"
    fi
}

uninstall_box() {
    local boot config new
    say "Gravebox: uninstalling${ROOT:+ under $ROOT}"
    if [[ -z $MODEL && -r $ROOT$PREFIX/installed.env ]]; then
        MODEL=$(sed -n 's/^MODEL=//p' "$ROOT$PREFIX/installed.env")
    fi
    if unit_known gravebox.service; then run systemctl disable --now gravebox.service; fi
    remove_file /etc/systemd/system/gravebox.service
    run systemctl daemon-reload
    remove_file /etc/udev/rules.d/99-gravebox.rules
    remove_file /etc/polkit-1/rules.d/50-gravebox.rules
    remove_file /etc/modules-load.d/gravebox.conf
    remove_if_ours /etc/gravebox/config.toml "$REPO_DIR/systemd/gravebox-config.toml"
    remove_if_ours /etc/gravebox/pinmap.toml "$REPO_DIR/wiring/pinmap.toml"
    rmdir "$ROOT/etc/gravebox" 2>/dev/null || true
    if [[ $MODEL == pi4 ]] && unit_known hciuart.service; then run systemctl enable hciuart.service; fi

    boot="$ROOT/boot/firmware"
    if [[ -f $boot/config.txt ]]; then
        config=$boot/config.txt
        new=$(mktemp)
        strip_block "$config" >"$new"
        restore_boot_file "$config" "$new"
        rm -f "$new"
    fi
    if [[ -f $boot/cmdline.txt.gravebox-backup ]]; then
        # Restore the console only if nothing else changed in cmdline.txt since install.
        new=$(mktemp)
        cmdline_without_console "$boot/cmdline.txt.gravebox-backup" >"$new"
        if [[ $(cat "$new") == $(cat "$boot/cmdline.txt") ]]; then
            cp "$boot/cmdline.txt.gravebox-backup" "$new"
        else
            cp "$boot/cmdline.txt" "$new"
        fi
        restore_boot_file "$boot/cmdline.txt" "$new"
        rm -f "$new"
    fi

    if [[ -d $ROOT$PREFIX ]]; then
        rm -rf -- "$ROOT$PREFIX"
        say "removed    $PREFIX"
    fi
    if [[ -n $ROOT ]] || id -u gravebox >/dev/null 2>&1; then run userdel gravebox; fi
    remove_file /etc/sysusers.d/gravebox.conf
    if [[ $PURGE == yes ]]; then
        rm -rf -- "$ROOT$STATE_DIR"
        say "removed    $STATE_DIR (--purge)"
    elif [[ -d $ROOT$STATE_DIR ]]; then
        say "kept       $STATE_DIR (enrolled cards, games; --purge removes it)"
    fi
    say "Gravebox uninstalled. The apt packages stay (${APT_PACKAGES[*]}). Reboot to release the UARTs."
}

main() {
    parse_args "$@"
    if [[ $ACTION == uninstall ]]; then uninstall_box; else install_box; fi
}

main "$@"
