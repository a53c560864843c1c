// The figures a deck asks for by name: SVG bar charts and Markdown tables, drawn from one results file. Each kind is
// one function over the same bar-chart primitive, so a new kind is a few lines, not a new renderer.
#pragma once

#include "results.hpp"

#include <string>

namespace slides {

/// An SVG document for `<!-- chart: KIND FILE lab=N [exercise=NAME] -->`. Kinds:
///  - percent: each exercise's % of its ceiling, the shipped stub beside the reference (the lab's staircase);
///  - ladder: rates on a log scale, from the first stage's baseline through every stage's reference to the peers
///    (CUB, Thrust) and the ceiling (cuBLAS, the copy): stages where each stub is the previous stage's answer;
///  - overlap: one streams exercise's times: each stage alone, the sequential baseline, the stub, the reference,
///    and the slowest stage as the line nothing can beat.
std::string chart_svg(const std::string& kind, const Results& results, const Args& args);

/// A Markdown table for `<!-- table: FILE lab=N -->`: per exercise, the stub's, reference's and ceiling's median
/// times, the reference's rate and % of ceiling, and the reference's speedup over the stub.
std::string results_table(const Results& results, int lab);

}  // namespace slides
