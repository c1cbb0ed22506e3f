#pragma once
/// @file The C number format on one thread, for callers inside a process whose locale is not
/// theirs (the Python modules). A comma-decimal locale set through Python's locale.setlocale
/// makes strtod and printf use "0,5". Every simscope._core and simscope._gui entry point
/// (pybind11 call_guard) and each computation's worker thread (app/python/py_call.hpp) hold a
/// CNumericLocale. Every number the run layer and the core read or write is then C-locale text.
#include <clocale>
#include <locale.h>

namespace simscope::app {

/// Sets LC_NUMERIC = "C" on the calling thread (uselocale) for this object's lifetime.
/// Other categories and the process locale are unchanged.
class CNumericLocale {
 public:
  CNumericLocale() {
    const locale_t base = duplocale(LC_GLOBAL_LOCALE);
    c_ = base ? newlocale(LC_NUMERIC_MASK, "C", base) : nullptr;
    if (!c_ && base) freelocale(base);
    if (c_) old_ = uselocale(c_);
  }
  ~CNumericLocale() {
    if (!c_) return;
    uselocale(old_);
    freelocale(c_);
  }
  CNumericLocale(const CNumericLocale&) = delete;
  CNumericLocale& operator=(const CNumericLocale&) = delete;

 private:
  locale_t c_ = nullptr, old_ = nullptr;
};

}  // namespace simscope::app
