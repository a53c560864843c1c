#include <harness/launcher.hpp>

namespace harness {

void Impl::add(std::string exercise, std::any fn) {
  if (!launchers_.emplace(exercise, std::move(fn)).second)
    throw std::logic_error("implementation '" + name_ + "' registers exercise '" + exercise + "' twice");
}

std::map<std::string, Impl, std::less<>>& implementations() {
  static std::map<std::string, Impl, std::less<>> impls;
  return impls;
}

}  // namespace harness
