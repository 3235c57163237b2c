#!/usr/bin/env bash
# docs/openapi.yaml generates a Swift client for the /v1 paths (types and client, as an app would) with Apple's
# swift-openapi-generator, and that client compiles without a single warning (issue 39). scripts/contract runs
# it; it also runs alone. The scratch package (scripts/openapi-client/Package.swift) is built under .build/.
set -euo pipefail
cd "$(dirname "$0")/.."
work=.build/openapi-client
mkdir -p "$work/Sources/Client"
cp scripts/openapi-client/Package.swift "$work/Package.swift"
# The /v1 paths, listed from the document: the generator filters by exact path.
python3 - docs/openapi.yaml >"$work/config.yaml" <<'PY'
import re, sys
paths = [m.group(1) for m in re.finditer(r"^  (/v1/[^:]*):\s*$", open(sys.argv[1]).read(), re.M)]
if not paths:
    sys.exit("no /v1 paths found in the document")
print("generate: [types, client]\naccessModifier: internal\nfilter:\n  paths:")
for path in paths:
    print(f"    - '{path}'")
PY
echo "openapi-client: generating a client for $(grep -c "^    - '" "$work/config.yaml") /v1 paths"
rm -f "$work"/Sources/Client/*.swift
# A target needs a source file for SwiftPM to load the package before the generator has written any.
echo "// The generated files sit beside this one." >"$work/Sources/Client/Client.swift"
swift build --package-path "$work" --product swift-openapi-generator >"$work/generator-build.log" 2>&1 \
    || { cat "$work/generator-build.log"; exit 1; }
generator="$(swift build --package-path "$work" --show-bin-path)/swift-openapi-generator"
generated=$("$generator" generate docs/openapi.yaml --config "$work/config.yaml" --output-directory "$work/Sources/Client" 2>&1) \
    || { echo "$generated"; exit 1; }
if grep -qE "warning:|error:" <<<"$generated"; then
    echo "$generated"
    echo "openapi-client: the generator warned" >&2
    exit 1
fi
touch "$work"/Sources/Client/*.swift
built=$(swift build --package-path "$work" --target Client 2>&1) || { echo "$built"; exit 1; }
if grep -q "warning:" <<<"$built"; then
    grep "warning:" <<<"$built" | sort -u | head -20
    echo "openapi-client: the generated client compiles with warnings" >&2
    exit 1
fi
echo "openapi-client: generated and compiled without a warning"
