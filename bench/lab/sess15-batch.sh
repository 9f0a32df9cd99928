#!/bin/bash
# every idea's main settings on one set: $1 = label, rest = target [vault]
L=$1; shift
cd "$(dirname "$0")/../.."
GRID='[[3,0.2,1,0,0,0],[5,0.2,1,0,0,0],[10,0.3,1,0,0,0],[3,0.2,1,0.1,20,40]]' npx tsx bench/lab/sess15-rocchio.ts "$@" | sed 's/^/rocchio /'
AGREE=3 GRID='[[2,0.2,0,0,0,0],[3,0.2,0,0,0,0]]' npx tsx bench/lab/sess15-rocchio.ts "$@" | sed 's/^/rocchio-agree3 /'
MODE=ql GRID='[[0.05,300],[0.05,1000],[0.1,1000]]' npx tsx bench/lab/sess15-third.ts "$@" | sed 's/^/third /'
MODE=dph GRID='[[0.05,0],[0.1,0]]' npx tsx bench/lab/sess15-third.ts "$@" | tail -2 | sed 's/^/third /'
MODE=bm25p GRID='[[0.05,1],[0.1,1]]' npx tsx bench/lab/sess15-third.ts "$@" | tail -2 | sed 's/^/third /'
MODE=folder GRID='[[0.02,0],[0.05,0],[0.1,0],[0.2,0]]' npx tsx bench/lab/sess15-third.ts "$@" | tail -5 | sed 's/^/folder /'
GRID='[[20,0.2],[20,0.4],[10,0.2]]' npx tsx bench/lab/sess15-qexp.ts "$@" | sed 's/^/qexp /'
GRID='[0.5,1]' npx tsx bench/lab/sess15-maxp.ts "$@" | sed 's/^/maxp /'
GRID='[0.1,0.15,0.2]' npx tsx bench/lab/sess15-len.ts "$@" | sed 's/^/len /'
KMIN=zero GRID='[[0,0.65],[0,0.75]]' npx tsx bench/lab/sess15-tmm.ts "$@" | sed 's/^/tmm /'
KMIN=list IMPUTE=1 GRID='[[null,0.65]]' npx tsx bench/lab/sess15-tmm.ts "$@" | tail -1 | sed 's/^/tmm /'
echo done
