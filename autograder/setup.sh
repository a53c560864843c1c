#!/usr/bin/env bash
# Gradescope runs this once, while it builds the autograder's image (autograder/README.md): installs what the course
# builds with and builds `grade`, so that grading a submission only compiles its labs. The CUDA toolkit and driver
# come with the GPU runner's image (nvcc on the PATH or in /usr/local/cuda/bin). Shell: it is glue.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
export PATH=/usr/local/cuda/bin:$PATH

root=${AUTOGRADER_ROOT:-/autograder}
source_dir=$root/source
work=${AUTOGRADER_WORK:-$root/work}
# shellcheck source=autograder/course.env
[ -f "$source_dir/autograder/course.env" ] && . "$source_dir/autograder/course.env"
read -r -a cmake_args <<< "${AUTOGRADER_CMAKE_ARGS:-}"

# Ubuntu's Catch2 may be v2: the configure step then fetches v3 itself (the image build has network access).
apt-get update -qq
apt-get install -y -qq cmake make g++ git libcli11-dev nlohmann-json3-dev libfmt-dev binutils

command -v nvcc >/dev/null || { echo "setup.sh: no nvcc: use a GPU runner image with the CUDA toolkit" >&2; exit 1; }
cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build "$work/build" --target grade -j "$(nproc)"
