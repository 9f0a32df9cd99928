#!/bin/bash
# sess16-title.ts's grid on one set: $1 = label, rest = target [vault]
L=$1; shift
cd "$(dirname "$0")/../.."
MATCH=stem GRID='[[0.02,1,"flat"],[0.05,1,"flat"],[0.1,1,"flat"],[0.2,1,"flat"],[0.05,2,"flat"],[0.1,2,"flat"],[0.2,2,"flat"],[0.05,1,"cover"],[0.1,1,"cover"],[0.2,1,"cover"]]' npx tsx bench/lab/sess16-title.ts "$@" | sed "s/^/$L /"
MATCH=norm GRID='[[0.1,1,"flat"]]' npx tsx bench/lab/sess16-title.ts "$@" | tail -1 | sed "s/^/$L /"
