#!/bin/sh
# peg36 (issue 12): the sweep of PEG's pours (10 seeds x 16 step sizes, 2 s, PEG's defaults) for one variant of
# the X constraints without a free member, through the survey tool (peg26_survey.py; PEG_STD_CHECK=1 as peg29-35).
#
#   peg36_sweep.sh TOOL OUT VARIANT 2d|3d
#     VARIANT: D (the default: such an X has no row), C (`[lcp] peg_x_own_row`, peg35's copies),
#              J (`[lcp] peg_x_joined`, peg36), E (`[lcp] peg_edge_edge_uncovered`, peg36; 3D). Writes OUT/VARIANT/<dim>_off/h_<h>.txt.
#   Compare: python3 benches/scripts/peg30_compare.py 2d|3d OUT/D OUT/J --all
# TOOL: `cargo test --release --no-run --test peg_lcp_survey`, the binary under target/release/deps copied out.
set -e
TOOL=$1 OUT=$2 VAR=$3 DIM=$4
case $VAR in
  D) KEYS="" ;;
  C) KEYS="PEG_X_OWN_ROW=1" ;;
  J) KEYS="PEG_X_JOINED=1" ;;
  E) KEYS="PEG_EE_UNCOVERED=1" ;;
  EJ) KEYS="PEG_EE_UNCOVERED=1 PEG_X_JOINED=1" ;;
  *) echo "variant D, C, J, E or EJ" >&2; exit 2 ;;
esac
exec nice python3 "$(dirname "$0")/peg26_survey.py" run "$TOOL" "$OUT/$VAR" "$DIM" off \
  --seeds 1,2,3,4,5,6,7,8,9,10 PEG_STD_CHECK=1 $KEYS
