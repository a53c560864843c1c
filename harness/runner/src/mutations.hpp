#pragma once
// Mutants: the reference's runner spoiling its own outputs after every run (runner.hpp, `mutant:<name>`), so that
// the real lab binary meets known-wrong answers of every exercise, through its real check and its real timed-run
// verification. The CPU side of the same suite (tests/labs/lab_mutations.cpp) feeds the smallest wrong answers to the
// host comparison; this side proves the GPU paths reject the generic ones.
#include <cstdint>
#include <string>
#include <vector>

namespace harness {

class Problem;

namespace runner {

/// The mutations a mutant can apply: zeros, constant, sampled_only, shifted, tail_missing, one_element_off, nan, stale.
const std::vector<std::string>& mutation_names();

/// Spoils every output of `problem` (after a run, synchronized) as `mutation` says. Every mutation leaves at least
/// one element wrong, whatever the output (a one-element output included), so a mutant is never a right answer.
/// `stale` writes the output of the first run at the same output size (the answer to other inputs). Throws
/// std::invalid_argument for an unknown name.
void mutate_outputs(Problem& problem, const std::string& mutation);

}  // namespace runner
}  // namespace harness
