#!/usr/bin/env bash
# The test command (README, .ci/run): Debian packages, npm packages from the lockfile, type-check (tests included),
# lint and format check, build, the whole vitest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
npm ci --no-audit --no-fund
npm run typecheck
npm run lint
npm test
