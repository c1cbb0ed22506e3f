// A program with one deliberate bug per argument, built only in a sanitizer tree
// (./simscope.sh sanitize): test_sanitizer_canary.sh checks that each bug is reported and fails
// the process under the options simscope.sh sets, i.e. that the sanitize stage can fail at all.
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  volatile int n = argc + 15;  // volatile: the compiler cannot see the bugs coming
  if (what == "heap-overflow") {
    int* p = new int[16];
    const int v = p[n];  // one past the end
    delete[] p;
    return v;
  }
  if (what == "signed-overflow") {
    volatile int big = INT_MAX - 1 + (n - 17);  // INT_MAX
    return big + n > 0 ? 0 : 1;
  }
  if (what == "leak") {
    void* volatile p = std::malloc(4096);
    std::memset(p, 1, 4096);
    p = nullptr;
    return 0;
  }
  return 0;
}
