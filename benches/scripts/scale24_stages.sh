#!/bin/bash
# scale24: mean inclusive Ir per step of the step's stages and main functions over the last N per-step
# callgrind dumps of TAG (scale22_fn_per_step.py). scale24_stages.sh TAG N
cd "$(dirname "$0")"
python3 scale22_fn_per_step.py $1 $2 'Pipeline::step_with$' 'collide::broad_phase$' 'narrow_phase_from$' \
  'carry_to_present$' 'continuous_collision_outside$' 'penalty::resolve_impacts$' 'ImpactMemory::rewind$' \
  'penalty::contact_wrenches$' 'SupportLoads::compute$' 'ImplicitContact::solve$' 'BlockCholesky::factor$' \
  'BlockCholesky::refactor_affected$' 'BlockCholesky::solve$' 'BlockCholesky::analyze$' 'ImplicitContact::add_row$' \
  'penalty::implicit_friction$' 'LinearSticks::sweep_cold$' 'penalty::late_friction$' 'rotation::step_from_acceleration$' \
  'bodies::derivatives$' 'sleep::' '__memcpy_avx_unaligned_erms$' '__memset_avx2_unaligned_erms$'
