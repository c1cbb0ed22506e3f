#pragma once
/// @file The C number format for the core during a Python call. Python's
/// locale.setlocale(locale.LC_ALL, "") with a comma-decimal locale (de_DE) switches the C
/// library's strtod and printf to "0,5"; the CLI sets LC_NUMERIC to "C" in main, the module has
/// no main. Every entry point of simscope._core (pybind11 call_guard) and the worker thread of
/// each computation (py_call.hpp) hold a CNumericLocale, so every number the core reads (edge
/// lists, CSV, parameters) or writes (warnings, messages, stats' text) is C-locale text.
#include <clocale>
#include <locale.h>

namespace simscope::python {

/// LC_NUMERIC = "C" on the calling thread (uselocale) for this object's lifetime; the other
/// categories and the process locale are left as they are.
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

}  // namespace simscope::python
