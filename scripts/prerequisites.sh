# Sourced by scripts/dev and scripts/test: makes sure the machine can build and run Hearth.
# As root on Debian/Ubuntu it installs what is missing; otherwise it says exactly what to install.

hearth_require_prerequisites() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: Swift 6 is not on PATH (https://www.swift.org/install/linux/)." >&2
        exit 1
    fi
    local packages=(postgresql libargon2-dev pkg-config)
    local missing=()
    for package in "${packages[@]}"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
            echo "installing: ${missing[*]}"
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
        else
            echo "error: missing Debian packages: ${missing[*]}" >&2
            echo "       install them with: sudo apt-get install -y ${missing[*]}" >&2
            exit 1
        fi
    fi
}

# The console's browser check (Tests/HearthAppTests/ConsoleBrowserCheckTests.swift) drives Debian's Chromium. As
# root it is installed; otherwise the check is skipped, and this says so.
hearth_offer_chromium() {
    dpkg -s chromium >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing: chromium (the console's browser check)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
            echo "note: chromium could not be installed, so the console's browser check will be skipped" >&2
    else
        echo "note: chromium is not installed, so the console's browser check will be skipped" >&2
        echo "      (install it with: sudo apt-get install -y chromium)" >&2
    fi
}
