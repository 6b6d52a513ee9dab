#!/usr/bin/env bash
# Gravebox installer for Raspberry Pi OS Trixie or Bookworm (Pi 5, Pi 4, Zero 2 W).
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
# Any step that fails stops the install with that step's error and a non-zero exit status.
#
# No function is called from `if`, `||` or `&&` (bash turns `set -e` off inside those): each
# function reports through a variable (CHANGED, MODEL, BOOT) and fails like any other command.
set -Eeuo pipefail
shopt -s inherit_errexit

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=""         # empty: the real system
MODEL=""        # pi5, pi4 or zero2w; empty: detect
RELEASE=""      # the Debian code name from os-release: bookworm or trixie
ACTION=install  # or uninstall
PURGE=no
PREFIX=/opt/gravebox
STATE_DIR=/var/lib/gravebox
CONFIG_DIR=/etc/gravebox
DECKS_DIR=/etc/gravebox/decks
UNIT_DIR=/etc/systemd/system
BEGIN_MARK="# >>> gravebox"
END_MARK="# <<< gravebox"
MANAGED_MARK="# gravebox: managed by install.sh"
# python3-lgpio comes from the Raspberry Pi OS archive, built for the release's own Python
# (3.11 on Bookworm, 3.13 on Trixie, where PyPI has no lgpio wheel): the venv sees it.
APT_PACKAGES=(python3-venv python3-lgpio python3-pil i2c-tools polkitd udisks2)  # udisks2: the tag map to a USB stick
BOOT=""         # the boot partition (set by find_boot)
CHANGED=no      # set by install_file and friends: did the last one change the file?
REBOOT_NEEDED=no
SERVICE_CHANGED=no
UDEV_CHANGED=no
UNITS=()        # every unit file of systemd/, gravebox.service first (set by find_units)
MQTT_UNIT=gravebox-mqtt.service # enabled only while the settings have [mqtt] (docs/mqtt.md)
PENDING=${PREFIX}/pending.env  # what a run set in motion and did not finish (a reboot, reloads)
BOOT_ID_FILE=/proc/sys/kernel/random/boot_id  # a reboot changes it: a pending reboot is then done
BOOT_ID=""      # set by read_boot_id
KEPT_GROUPS=""  # set by remove_made_groups
SAME=no         # set by same_text
KNOWN=no        # set by unit_known and group_known
CREATED=""      # what the install made that was not there (the folder /etc/sysusers.d, groups gpio, i2c)
MADE_GROUPS=(gpio i2c)  # groups systemd-sysusers makes for the service user where the system has none
FIND_LGPIO='import importlib.util, sys; sys.exit(importlib.util.find_spec("lgpio") is None)'
TEMP=""

say() { printf '%s\n' "$*"; }
die() {
    printf 'gravebox install: %s\n' "$*" >&2
    exit 1
}

# A failed command anywhere (set -E carries this trap into functions): say which and stop.
on_error() {
    local status=$1 line=$2 command=$3
    step_failed "${status}" "${command} (install.sh line ${line})"
}

# step_failed STATUS COMMAND: say the command that failed, in words, keep what is still to do
# (a reboot, udev's and systemd's reloads: done by the next run), and stop.
step_failed() {
    trap - ERR
    printf 'gravebox install: failed (exit status %s): %s\n' "$1" "$2" >&2
    if [[ ${ACTION} == install && -n ${TEMP} ]]; then save_pending; fi
    printf 'gravebox install: stopped; nothing after that step was done. Fix the cause and run it again.\n' >&2
    exit "$1"
}
trap 'on_error "$?" "${LINENO}" "${BASH_COMMAND}"' ERR
trap '[[ -z ${TEMP} ]] || rm -rf -- "${TEMP}"' EXIT

usage() {
    sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

# ROOT=$(absolute DIR), or stop when DIR is not a directory.
set_root() {
    [[ -d $1 ]] || die "no such directory: $1"
    ROOT=$(cd "$1" && pwd)
}

parse_args() {
    while (($#)); do
        case $1 in
            --root)
                [[ $# -ge 2 ]] || die "--root needs a directory"
                set_root "$2"
                shift
                ;;
            --root=*) set_root "${1#--root=}" ;;
            --model)
                [[ $# -ge 2 ]] || die "--model needs pi5, pi4 or zero2w"
                MODEL=$2
                shift
                ;;
            --model=*) MODEL=${1#--model=} ;;
            --uninstall) ACTION=uninstall ;;
            --purge) PURGE=yes ;;
            -h | --help)
                usage
                exit 0
                ;;
            *) die "unknown option: $1 (see --help)" ;;
        esac
        shift
    done
    case ${MODEL} in
        "" | pi5 | pi4 | zero2w) ;;
        *) die "unknown model '${MODEL}': use pi5, pi4 or zero2w" ;;
    esac
    if [[ -z ${ROOT} && ${EUID} -ne 0 ]]; then
        die "run it as root: sudo $0 (or --root DIR to write into a directory)"
    fi
    if [[ ${ROOT} == / ]]; then ROOT=""; fi
}

# A command with effects outside the file tree: run it on the real system, only print it
# under --root (the test checks the printed list).
run() {
    local status=0
    if [[ -n ${ROOT} ]]; then
        say "would run: $*"
        return
    fi
    say "+ $*"
    "$@" || status=$?
    if ((status)); then step_failed "${status}" "$*"; fi
}

# MODEL from the device tree (or $ROOT/proc/device-tree/model under --root).
detect_model() {
    local model_file="${ROOT}/proc/device-tree/model" text
    [[ -r ${model_file} ]] || die "cannot read ${model_file} to tell the board: pass --model pi5, pi4 or zero2w"
    text=$(tr -d '\0' <"${model_file}")
    case ${text} in
        "Raspberry Pi 5"* | "Raspberry Pi Compute Module 5"*) MODEL=pi5 ;;
        "Raspberry Pi 4"* | "Raspberry Pi Compute Module 4"*) MODEL=pi4 ;; # also the Pi 400
        "Raspberry Pi Zero 2 W"*) MODEL=zero2w ;;
        *) die "unsupported board '${text}': Gravebox runs on a Pi 5, Pi 4 or Zero 2 W (--model overrides)" ;;
    esac
}

# RELEASE from /etc/os-release: Trixie (Debian 13) and Bookworm (Debian 12) are supported.
detect_release() {
    local file="${ROOT}/etc/os-release" line
    [[ -r ${file} ]] || die "cannot read ${file}: Gravebox needs Raspberry Pi OS Trixie or Bookworm"
    while IFS= read -r line || [[ -n ${line} ]]; do
        case ${line} in
            VERSION_CODENAME=*) RELEASE=${line#VERSION_CODENAME=} ;;
            *) ;;
        esac
    done <"${file}"
    RELEASE=${RELEASE//\"/}
    case ${RELEASE} in
        trixie | bookworm) ;;
        stretch | buster | bullseye)
            die "Raspberry Pi OS ${RELEASE} is too old (Python < 3.11): flash Trixie or Bookworm" ;;
        *) say "note: Raspberry Pi OS '${RELEASE:-unknown}' is not tested (Trixie and Bookworm are); going on" ;;
    esac
}

# install_file SOURCE DEST [MODE]: copy when the content differs; CHANGED=yes if it did.
install_file() {
    local source=$1 dest=${ROOT}$2 mode=${3:-0644}
    CHANGED=no
    if [[ -f ${dest} ]] && cmp -s "${source}" "${dest}"; then
        say "unchanged  $2"
        return
    fi
    install -D -m "${mode}" "${source}" "${dest}"
    say "installed  $2"
    CHANGED=yes
}

# install_once SOURCE DEST: only when DEST is absent (the owner's files: settings, pin map).
install_once() {
    if [[ -e ${ROOT}$2 ]]; then
        say "kept       $2 (yours; not overwritten)"
    else
        install -D -m 0644 "$1" "${ROOT}$2"
        say "installed  $2"
    fi
}

# install_managed SOURCE DEST: replace DEST only while it still carries the managed marker,
# so a rule edited by hand (marker line deleted) survives reinstalls.
install_managed() {
    CHANGED=no
    if [[ -f ${ROOT}$2 ]] && ! grep -q "^${MANAGED_MARK}" "${ROOT}$2"; then
        say "kept       $2 (edited by hand: no '${MANAGED_MARK}' line)"
        return
    fi
    install_file "$1" "$2"
}

# strip_block FILE OUT: FILE without the gravebox block into OUT; refuse unpaired markers.
strip_block() {
    local status=0
    awk -v begin="${BEGIN_MARK}" -v end="${END_MARK}" '
        index($0, begin) == 1 { if (inside) bad = 1; inside = 1; next }
        index($0, end) == 1   { if (!inside) bad = 1; inside = 0; next }
        !inside { print }
        END { if (inside || bad) exit 3 }
    ' "$1" >"$2" || status=$?
    case ${status} in
        0) ;;
        3) die "$1: unmatched '${BEGIN_MARK}' / '${END_MARK}' lines: fix the file by hand first" ;;
        *) die "$1: cannot be read (awk exit status ${status})" ;;
    esac
}

# same_text A B: SAME=yes when the two files hold the same text, ignoring a missing final newline.
same_text() {
    local a b
    a=$(cat "$1")
    b=$(cat "$2")
    SAME=no
    if [[ ${a} == "${b}" ]]; then SAME=yes; fi
}

# Replace FILE's content with NEW if different (CHANGED=yes), after a one-time backup
# FILE.gravebox-backup (made before the first change and kept: the file as it was before Gravebox).
replace_with_backup() {
    local file=$1 new=$2
    CHANGED=no
    if cmp -s "${new}" "${file}"; then
        say "unchanged  ${file#"${ROOT}"}"
        return
    fi
    if [[ ! -e ${file}.gravebox-backup ]]; then
        cp "${file}" "${file}.gravebox-backup"
        say "backed up  ${file#"${ROOT}"} to ${file#"${ROOT}"}.gravebox-backup"
    fi
    cat "${new}" >"${file}" # keep the file itself (owner, mode; /boot/firmware is FAT)
    say "updated    ${file#"${ROOT}"}"
    CHANGED=yes
}

find_boot() {
    BOOT="${ROOT}/boot/firmware"
    [[ -f ${BOOT}/config.txt && -f ${BOOT}/cmdline.txt ]] ||
        die "${BOOT}/config.txt or cmdline.txt not found: Gravebox needs Raspberry Pi OS Trixie or Bookworm"
}

# The boot configuration: I2C at 400 kHz and the readers' UARTs, in a marked block at the end.
apply_config_txt() {
    local config=${BOOT}/config.txt new=${TEMP}/config.txt
    strip_block "${config}" "${TEMP}/config.stripped"
    {
        cat "${TEMP}/config.stripped"
        say "${BEGIN_MARK} (added by install.sh for ${MODEL}; removed by uninstall.sh)"
        cat "${REPO_DIR}/firmware/config-${MODEL}.txt"
        say "${END_MARK}"
    } >"${new}"
    replace_with_backup "${config}" "${new}"
    if [[ ${CHANGED} == yes ]]; then REBOOT_NEEDED=yes; fi
}

# cmdline_without_console FILE OUT: FILE's line without the serial console, into OUT.
cmdline_without_console() {
    local line="" word kept=() dropped=0 words=()
    IFS= read -r line <"$1" || [[ -n ${line} ]] || die "$1 is empty"
    read -ra words <<<"${line}"
    for word in "${words[@]}"; do
        case ${word} in
            console=serial0* | console=ttyAMA0* | console=ttyS0*) dropped=1 ;;
            *) kept+=("${word}") ;;
        esac
    done
    if ((dropped)); then printf '%s\n' "${kept[*]}" >"$2"; else printf '%s\n' "${line}" >"$2"; fi
}

# The serial console removed from cmdline.txt: the readers own the UARTs.
apply_cmdline_txt() {
    local cmdline=${BOOT}/cmdline.txt new=${TEMP}/cmdline.txt
    cmdline_without_console "${cmdline}" "${new}"
    # An unchanged line is left alone byte for byte (even without a trailing newline).
    CHANGED=no
    same_text "${new}" "${cmdline}"
    if [[ ${SAME} == yes ]]; then
        say "unchanged  ${cmdline#"${ROOT}"}"
    else
        replace_with_backup "${cmdline}" "${new}"
    fi
    if [[ ${CHANGED} == yes ]]; then REBOOT_NEEDED=yes; fi
}

# apt packages: only the missing ones, so a second run needs no network.
install_apt_packages() {
    local missing=() package status
    if [[ -n ${ROOT} ]]; then
        missing=("${APT_PACKAGES[@]}")
    else
        for package in "${APT_PACKAGES[@]}"; do
            status=$(dpkg-query -W -f='${Status}' "${package}" 2>/dev/null) || status=absent
            [[ ${status} == *"install ok installed"* ]] || missing+=("${package}")
        done
    fi
    if ((${#missing[@]})); then
        run apt-get update
        run apt-get install -y --no-install-recommends "${missing[@]}"
    else
        say "unchanged  apt packages (${APT_PACKAGES[*]})"
    fi
    # Found, not imported: importing lgpio leaves a notification FIFO in the working directory.
    if [[ -n ${ROOT} ]]; then
        say "would run: python3 -c ${FIND_LGPIO@Q}"
    elif ! python3 -c "${FIND_LGPIO}"; then
        die "python3 does not see the system's lgpio: sudo apt-get install python3-lgpio (Raspberry Pi OS archive)"
    fi
}

# The extras to install: pi (rpi-lgpio), and web and mqtt when pyproject.toml has them.
extras() {
    local list=pi
    if awk '/^\[/ { inside = ($0 == "[project.optional-dependencies]") }
            inside && /^web[ \t]*=/ { found = 1 }
            END { exit !found }' "${REPO_DIR}/pyproject.toml"; then
        list="${list},web"
    fi
    # paho-mqtt (pure Python, imported only when the settings have [mqtt]): always, so MQTT needs no reinstall of the program
    if awk '/^\[/ { inside = ($0 == "[project.optional-dependencies]") }
            inside && /^mqtt[ \t]*=/ { found = 1 }
            END { exit !found }' "${REPO_DIR}/pyproject.toml"; then
        list="${list},mqtt"
    fi
    printf '%s\n' "${list}"
}

# pip install from a copy of the repository, so pip's build files never land in the clone
# (as root-owned files in someone's home directory). lgpio comes only as a binary: the
# system's python3-lgpio satisfies rpi-lgpio's requirement, so pip builds nothing; without it
# pip stops at once instead of compiling lgpio from source (swig, liblgpio-dev).
# pip builds the project in an isolated environment it downloads (setuptools): a rerun of an
# unchanged checkout skips pip, so it needs no network. "Unchanged": the same files (names,
# modes, content: the copy's tar made with fixed times and owners) and the same extras as the
# install recorded in ${PREFIX}/source.sha256 after pip succeeded.
install_program() {
    local source want fingerprint recorded=""
    want=$(extras)
    source=${TEMP}/source
    mkdir "${source}"
    tar -C "${REPO_DIR}" --exclude=.git --exclude=.venv --exclude=build --exclude='*.egg-info' \
        --exclude=__pycache__ --exclude=.pytest_cache --sort=name --mtime=@0 --owner=0 --group=0 \
        --numeric-owner -cf "${TEMP}/source.tar" .
    fingerprint=$(sha256sum <"${TEMP}/source.tar")
    fingerprint="${fingerprint%% *} ${want}"
    if [[ -r ${ROOT}${PREFIX}/source.sha256 ]]; then recorded=$(<"${ROOT}${PREFIX}/source.sha256"); fi
    if [[ ${recorded} == "${fingerprint}" && (-n ${ROOT} || -x ${PREFIX}/venv/bin/gravebox) ]]; then
        say "unchanged  the program (${PREFIX}/venv: the same checkout and extras as installed; pip not run)"
        return
    fi
    if [[ -n ${ROOT} ]]; then
        run "${PREFIX}/venv/bin/pip" install --only-binary=lgpio "${REPO_DIR}[${want}]"
    else
        tar -C "${source}" -xf "${TEMP}/source.tar"
        run "${PREFIX}/venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=lgpio "${source}[${want}]"
    fi
    # the dataclasses' methods compiled once, kept beside the byte code pip wrote (box/files/classcode.py):
    # the services cannot write there, and each start would compile them again
    run "${PREFIX}/venv/bin/python" -c "from box.cli.service import keep_class_code; keep_class_code()"
    install -d -m 0755 "${ROOT}${PREFIX}"
    printf '%s\n' "${fingerprint}" >"${ROOT}${PREFIX}/source.sha256"
    say "installed  the program (${PREFIX}/venv)"
}

# BOOT_ID: this boot's id (empty where there is none to read); a reboot gives a new one.
read_boot_id() {
    BOOT_ID=""
    if [[ -r ${ROOT}${BOOT_ID_FILE} ]]; then BOOT_ID=$(tr -d '[:space:]' <"${ROOT}${BOOT_ID_FILE}"); fi
}

# Keep the steps still to do in ${PENDING}: a failed run leaves them for the next one.
save_pending() {
    read_boot_id
    if install -d -m 0755 "${ROOT}${PREFIX}" 2>/dev/null &&
        printf 'REBOOT_NEEDED=%s\nBOOT_ID=%s\nUDEV_CHANGED=%s\nSERVICE_CHANGED=%s\n' "${REBOOT_NEEDED}" \
            "${BOOT_ID}" "${UDEV_CHANGED}" "${SERVICE_CHANGED}" 2>/dev/null >"${ROOT}${PENDING}"; then
        : # kept (no `return` here: called from the ERR trap, it would leave the trap too)
    else
        printf 'gravebox install: the steps still to do could not be kept in %s\n' "${PENDING}" >&2
    fi
}

# The steps an earlier run left to do: its reloads, and its reboot unless the box rebooted since.
load_pending() {
    local line reboot=no booted=""
    [[ -r ${ROOT}${PENDING} ]] || return 0
    while IFS= read -r line || [[ -n ${line} ]]; do
        case ${line} in
            REBOOT_NEEDED=yes) reboot=yes ;;
            BOOT_ID=*) booted=${line#BOOT_ID=} ;;
            UDEV_CHANGED=yes) UDEV_CHANGED=yes ;;
            SERVICE_CHANGED=yes) SERVICE_CHANGED=yes ;;
            *) ;;
        esac
    done <"${ROOT}${PENDING}"
    read_boot_id
    if [[ ${reboot} == yes && ${booted} == "${BOOT_ID}" ]]; then REBOOT_NEEDED=yes; fi
    say "note: an earlier run left steps to do (reboot needed: ${REBOOT_NEEDED}, udev reload: ${UDEV_CHANGED}, systemd reload: ${SERVICE_CHANGED}): done in this run"
}

# UNITS: every unit file the repository ships in systemd/ (the box's service and any other).
find_units() {
    local path
    [[ -f ${REPO_DIR}/systemd/gravebox.service ]] || die "${REPO_DIR}/systemd/gravebox.service is missing"
    UNITS=(gravebox.service)
    for path in "${REPO_DIR}"/systemd/*.service "${REPO_DIR}"/systemd/*.socket "${REPO_DIR}"/systemd/*.timer; do
        if [[ -f ${path} && ${path##*/} != gravebox.service ]]; then UNITS+=("${path##*/}"); fi
    done
}

# KNOWN=yes when UNIT is enabled (never under --root: nothing was enabled there).
unit_enabled() {
    KNOWN=no
    if [[ -z ${ROOT} ]] && systemctl is-enabled --quiet "$1" 2>/dev/null; then KNOWN=yes; fi
}

# KNOWN=yes when systemd knows UNIT (always under --root, where commands are printed).
unit_known() {
    KNOWN=yes
    if [[ -z ${ROOT} ]]; then
        systemctl list-unit-files --quiet "$1" >/dev/null 2>&1 || KNOWN=no
    fi
}

# KNOWN=yes when the group exists (under --root: in DIR/etc/group).
group_known() {
    KNOWN=no
    if [[ -n ${ROOT} ]]; then
        if [[ -r ${ROOT}/etc/group ]] && grep -q "^$1:" "${ROOT}/etc/group"; then KNOWN=yes; fi
    elif getent group "$1" >/dev/null 2>&1; then
        KNOWN=yes
    fi
}

# created THING: add it to CREATED (once).
created() {
    if [[ " ${CREATED} " != *" $1 "* ]]; then CREATED="${CREATED:+${CREATED} }$1"; fi
}

# CREATED from the last install's record (a rerun keeps what the first run made).
recorded_install() {
    local line
    [[ -r ${ROOT}${PREFIX}/installed.env ]] || return 0
    while IFS= read -r line || [[ -n ${line} ]]; do
        case ${line} in
            CREATED=*) CREATED=${line#CREATED=} CREATED=${CREATED//\"/} ;;
            *) ;;
        esac
    done <"${ROOT}${PREFIX}/installed.env"
}

# The owner's account (the one that ran sudo) joins the gravebox group, so that `gravebox
# enroll`, `--export`, `--import` and `selftest` from an SSH shell work on the service's state.
add_owner_to_group() {
    local owner=${SUDO_USER:-} groups
    if [[ -z ${owner} || ${owner} == root ]]; then
        say "note: no sudo user to add to the gravebox group: sudo usermod -aG gravebox YOU"
        return
    fi
    if [[ -z ${ROOT} ]]; then
        groups=$(id -nG "${owner}")
        if [[ " ${groups} " == *" gravebox "* ]]; then
            say "unchanged  ${owner} is in the gravebox group"
            return
        fi
    fi
    run usermod -aG gravebox "${owner}"
    say "note: ${owner} joins the gravebox group at the next login (log out and in again)"
}

# The state directory: the service's (user gravebox), shared with the gravebox group. Setgid,
# so files made by the owner's commands belong to the group too; the unit's UMask=0007 and
# StateDirectoryMode=2770 keep it that way. Files of an older install (mode 0600) are opened up.
prepare_state_dir() {
    install -d -m 2770 "${ROOT}${STATE_DIR}"
    chmod -R g+rwX,o-rwx "${ROOT}${STATE_DIR}"
    find "${ROOT}${STATE_DIR}" -type d -exec chmod g+s {} +
    run chown -R gravebox:gravebox "${STATE_DIR}"
}

# /etc/gravebox/decks: where the service can read the owner's decks (ProtectHome=yes hides
# /home from it). Group gravebox may write, so the owner copies decks there without sudo.
prepare_decks_dir() {
    if [[ -d ${ROOT}${DECKS_DIR} ]]; then
        say "unchanged  ${DECKS_DIR}"
    else
        install -d -m 2775 "${ROOT}${DECKS_DIR}"
        say "installed  ${DECKS_DIR} (put your decks here)"
    fi
    run chgrp gravebox "${DECKS_DIR}"
}

install_box() {
    local unit group
    if [[ -z ${MODEL} ]]; then detect_model; fi
    detect_release
    find_boot
    find_units
    TEMP=$(mktemp -d)
    say "Gravebox: installing for ${MODEL} on Raspberry Pi OS ${RELEASE}${ROOT:+ under ${ROOT}}"
    load_pending

    install_apt_packages

    # The service user and group, declared for systemd-sysusers (creates only what is missing).
    # What it makes that was not there (on plain Debian a gpio group) is recorded for uninstall.
    recorded_install
    if [[ ! -d ${ROOT}/etc/sysusers.d ]]; then created /etc/sysusers.d; fi
    for group in "${MADE_GROUPS[@]}"; do
        group_known "${group}"
        if [[ ${KNOWN} == no ]]; then created "group:${group}"; fi
    done
    install_file "${REPO_DIR}/systemd/gravebox.sysusers" /etc/sysusers.d/gravebox.conf
    run systemd-sysusers gravebox.conf
    add_owner_to_group

    # The program: a venv that also sees Raspberry Pi OS's python3-lgpio.
    if [[ ! -x ${ROOT}${PREFIX}/venv/bin/python ]]; then
        run python3 -m venv --system-site-packages "${PREFIX}/venv"
    fi
    install_program
    install -d -m 0755 "${ROOT}${PREFIX}"
    printf 'MODEL=%s\nUNITS="%s"\nCREATED="%s"\n' "${MODEL}" "${UNITS[*]}" "${CREATED}" >"${TEMP}/installed.env"
    install_file "${TEMP}/installed.env" "${PREFIX}/installed.env"

    # Settings, pin map: the owner's, written only when absent. Decks and state: shared folders.
    install_once "${REPO_DIR}/systemd/gravebox-config.toml" "${CONFIG_DIR}/config.toml"
    install_once "${REPO_DIR}/wiring/pinmap.toml" "${CONFIG_DIR}/pinmap.toml"
    prepare_decks_dir
    prepare_state_dir

    # Devices: i2c-dev at boot, stable reader names, power-off through polkit.
    install_file "${REPO_DIR}/systemd/gravebox-modules.conf" /etc/modules-load.d/gravebox.conf
    install_managed "${REPO_DIR}/systemd/udev/gravebox-${MODEL}.rules" /etc/udev/rules.d/99-gravebox.rules
    if [[ ${CHANGED} == yes ]]; then UDEV_CHANGED=yes; fi
    install_file "${REPO_DIR}/systemd/50-gravebox.rules" /etc/polkit-1/rules.d/50-gravebox.rules
    # The box's own Wi-Fi: NetworkManager's dnsmasq answers every name there with the box (docs/install.md).
    if [[ -d ${ROOT}/etc/NetworkManager ]]; then
        install_file "${REPO_DIR}/systemd/gravebox-dnsmasq-shared.conf" /etc/NetworkManager/dnsmasq-shared.d/gravebox.conf
    else
        say "skipped    /etc/NetworkManager/dnsmasq-shared.d/gravebox.conf (no NetworkManager here: no own Wi-Fi)"
    fi

    # Boot configuration.
    apply_config_txt
    apply_cmdline_txt
    if [[ ${MODEL} == pi4 ]]; then
        # disable-bt takes the Bluetooth UART; hciuart would fail at every boot.
        unit_known hciuart.service
        if [[ ${KNOWN} == yes ]]; then run systemctl disable hciuart.service; fi
    fi

    # The units: the box's service and every other unit file of systemd/.
    for unit in "${UNITS[@]}"; do
        install_file "${REPO_DIR}/systemd/${unit}" "${UNIT_DIR}/${unit}"
        if [[ ${CHANGED} == yes ]]; then SERVICE_CHANGED=yes; fi
    done
    # MQTT (docs/mqtt.md): its own unit, enabled only while the settings have an [mqtt] table.
    local active=() unit
    for unit in "${UNITS[@]}"; do
        if [[ ${unit} == "${MQTT_UNIT}" ]] && ! grep -qs '^\[mqtt\]' "${ROOT}${CONFIG_DIR}/config.toml"; then
            unit_enabled "${unit}"
            if [[ ${KNOWN} == yes ]]; then run systemctl disable --now "${unit}"; fi
            continue
        fi
        active+=("${unit}")
    done
    run modprobe i2c-dev
    if [[ ${UDEV_CHANGED} == yes ]]; then
        run udevadm control --reload
        run udevadm trigger --subsystem-match=tty --action=change
    fi
    if [[ ${SERVICE_CHANGED} == yes ]]; then run systemctl daemon-reload; fi
    run systemctl enable "${active[@]}"
    if [[ ${REBOOT_NEEDED} == no ]]; then
        # Restart to pick up new code or a new unit (a no-op for the files on a second run).
        run systemctl restart "${active[@]}"
    fi # else: I2C and the UARTs appear only after the reboot; the service starts then.

    rm -f "${ROOT}${PENDING}" # every step done (the reboot is said below)
    say "Gravebox installed for ${MODEL}."
    if [[ ${REBOOT_NEEDED} == yes ]]; then
        say "The boot configuration changed: reboot to turn on I2C and the reader UARTs (sudo reboot)."
    fi
    say "Then check the wiring with: ${PREFIX}/venv/bin/gravebox selftest"
}

# remove_file DEST: delete a file Gravebox installed.
remove_file() {
    if [[ -e ${ROOT}$1 || -L ${ROOT}$1 ]]; then
        rm -f "${ROOT}$1"
        say "removed    $1"
    fi
}

# remove_if_ours DEST SOURCE: delete an owner's file only if unchanged since install (or --purge).
remove_if_ours() {
    [[ -e ${ROOT}$1 ]] || return 0
    if [[ ${PURGE} == yes ]] || cmp -s "${ROOT}$1" "$2"; then
        remove_file "$1"
    else
        say "kept       $1 (edited; --purge removes it)"
    fi
}

# Undo a change to FILE: the current content without our change (WITHOUT) must equal the
# backup; then the backup goes too. Otherwise keep both and say so.
restore_boot_file() {
    local file=$1 without=$2
    if [[ -e ${file}.gravebox-backup ]]; then
        same_text "${without}" "${file}.gravebox-backup"
        if [[ ${SAME} == yes ]]; then
            cat "${file}.gravebox-backup" >"${file}"
            rm -f "${file}.gravebox-backup"
            say "restored   ${file#"${ROOT}"}"
            return
        fi
        say "note: ${file#"${ROOT}"} changed since install; compare with ${file#"${ROOT}"}.gravebox-backup"
    fi
    if ! cmp -s "${without}" "${file}"; then
        cat "${without}" >"${file}"
        say "updated    ${file#"${ROOT}"}"
    fi
}

# The units to remove: those the install recorded, and those the repository ships now.
installed_units() {
    local line recorded="" recorded_units=()
    if [[ -r ${ROOT}${PREFIX}/installed.env ]]; then
        while IFS= read -r line || [[ -n ${line} ]]; do
            case ${line} in
                MODEL=*) if [[ -z ${MODEL} ]]; then MODEL=${line#MODEL=}; fi ;;
                UNITS=*) recorded=${line#UNITS=} ;;
                CREATED=*) CREATED=${line#CREATED=} CREATED=${CREATED//\"/} ;;
                *) ;;
            esac
        done <"${ROOT}${PREFIX}/installed.env"
    fi
    find_units
    read -ra recorded_units <<<"${recorded//\"/}"
    for line in "${recorded_units[@]}"; do
        [[ " ${UNITS[*]} " == *" ${line} "* ]] || UNITS+=("${line}")
    done
}

# The groups the install made (on plain Debian: gpio): removed with it, unless someone else
# joined them since (said). KEPT_GROUPS: those the system had before, kept.
remove_made_groups() {
    local group members
    KEPT_GROUPS=""
    for group in "${MADE_GROUPS[@]}"; do
        if [[ " ${CREATED} " != *" group:${group} "* ]]; then
            KEPT_GROUPS="${KEPT_GROUPS:+${KEPT_GROUPS} }${group}"
            continue
        fi
        members=""
        if [[ -z ${ROOT} ]]; then
            members=$(getent group "${group}") || continue # gone already
            members=${members##*:}
        fi
        if [[ -n ${members} ]]; then
            say "kept       group ${group} (made by the install; its members now: ${members})"
        else
            run groupdel "${group}"
        fi
    done
}

uninstall_box() {
    local boot config unit
    TEMP=$(mktemp -d)
    say "Gravebox: uninstalling${ROOT:+ under ${ROOT}}"
    installed_units
    for unit in "${UNITS[@]}"; do
        unit_known "${unit}"
        if [[ ${KNOWN} == yes ]]; then run systemctl disable --now "${unit}"; fi
        remove_file "${UNIT_DIR}/${unit}"
    done
    run systemctl daemon-reload
    remove_file /etc/udev/rules.d/99-gravebox.rules
    remove_file /etc/polkit-1/rules.d/50-gravebox.rules
    remove_file /etc/NetworkManager/dnsmasq-shared.d/gravebox.conf
    remove_file /etc/NetworkManager/system-connections/gravebox-wifi.nmconnection # the own Wi-Fi's profile (gone at the reboot)
    remove_file /etc/modules-load.d/gravebox.conf
    remove_if_ours "${CONFIG_DIR}/config.toml" "${REPO_DIR}/systemd/gravebox-config.toml"
    remove_if_ours "${CONFIG_DIR}/pinmap.toml" "${REPO_DIR}/wiring/pinmap.toml"
    if [[ ${PURGE} == yes && -d ${ROOT}${DECKS_DIR} ]]; then
        rm -rf -- "${ROOT}${DECKS_DIR}"
        say "removed    ${DECKS_DIR} (--purge)"
    fi
    rmdir "${ROOT}${DECKS_DIR}" 2>/dev/null || true # kept when it holds the owner's decks
    if [[ -d ${ROOT}${DECKS_DIR} ]]; then say "kept       ${DECKS_DIR} (your decks; --purge removes it)"; fi
    rmdir "${ROOT}${CONFIG_DIR}" 2>/dev/null || true # kept when it holds the owner's files
    if [[ ${MODEL} == pi4 ]]; then
        unit_known hciuart.service
        if [[ ${KNOWN} == yes ]]; then run systemctl enable hciuart.service; fi
    fi

    boot="${ROOT}/boot/firmware"
    if [[ -f ${boot}/config.txt ]]; then
        config=${boot}/config.txt
        strip_block "${config}" "${TEMP}/config.txt"
        restore_boot_file "${config}" "${TEMP}/config.txt"
    fi
    if [[ -f ${boot}/cmdline.txt.gravebox-backup ]]; then
        # Restore the console only if nothing else changed in cmdline.txt since install.
        cmdline_without_console "${boot}/cmdline.txt.gravebox-backup" "${TEMP}/cmdline.expected"
        same_text "${TEMP}/cmdline.expected" "${boot}/cmdline.txt"
        if [[ ${SAME} == yes ]]; then
            cp "${boot}/cmdline.txt.gravebox-backup" "${TEMP}/cmdline.txt"
        else
            cp "${boot}/cmdline.txt" "${TEMP}/cmdline.txt"
        fi
        restore_boot_file "${boot}/cmdline.txt" "${TEMP}/cmdline.txt"
    fi

    if [[ -d ${ROOT}${PREFIX} ]]; then
        rm -rf -- "${ROOT}${PREFIX}"
        say "removed    ${PREFIX}"
    fi
    if [[ -n ${ROOT} ]] || id -u gravebox >/dev/null 2>&1; then run userdel gravebox; fi
    if [[ -n ${ROOT} ]] || getent group gravebox >/dev/null 2>&1; then run groupdel gravebox; fi
    remove_made_groups
    remove_file /etc/sysusers.d/gravebox.conf
    if [[ " ${CREATED} " == *" /etc/sysusers.d "* && -d ${ROOT}/etc/sysusers.d ]]; then
        if rmdir "${ROOT}/etc/sysusers.d" 2>/dev/null; then
            say "removed    /etc/sysusers.d (made by the install, empty)"
        else
            say "kept       /etc/sysusers.d (made by the install, now holds other files)"
        fi
    fi
    if [[ ${PURGE} == yes ]]; then
        rm -rf -- "${ROOT}${STATE_DIR}"
        say "removed    ${STATE_DIR} (--purge)"
    elif [[ -d ${ROOT}${STATE_DIR} ]]; then
        run chown -R root:root "${STATE_DIR}" # the gravebox user is gone: no files of a uid without a name
        say "kept       ${STATE_DIR} (enrolled cards, games; now owned by root; --purge removes it)"
    fi
    say "Gravebox uninstalled. Kept: the apt packages (${APT_PACKAGES[*]})${KEPT_GROUPS:+, the groups ${KEPT_GROUPS} (they were there before)}. Reboot to release the UARTs."
}

main() {
    parse_args "$@"
    if [[ ${ACTION} == uninstall ]]; then uninstall_box; else install_box; fi
}

# Sourced (by the tests, to try one function), it defines the functions and does nothing else.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
